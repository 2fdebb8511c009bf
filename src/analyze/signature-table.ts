/**
 * One analysis's table of signatures (signature.ts), for grouping and ordering thousands of stacks
 * without building, hashing or comparing their ~1 KB text: each distinct line is numbered once, a
 * stack's signature is the sequence of its lines' numbers (hashed as integers), and its text is
 * joined only when asked (`SignatureTexts`, kept by the groups for their `key`, see group-key.ts).
 * On 20,000 distinct stacks, hashing the texts in a Map and
 * sorting them (long shared prefixes, read from scattered memory) cost more than the rest of
 * grouping.
 *
 * A line is numbered by its '\n'-separated pieces (a line Go printed is one piece; a crafted
 * profile's function name may hold '\n'), so that equal sequences mean equal joined texts and back.
 */
import type { Frame } from '../model/dump.js';
import { FrameSlots } from './frame-slots.js';
import { NO_FRAMES, isRuntimeFunc, isWrapperFrame, keptAt, signatureLine } from './signature.js';
import type { SimilarityLevel } from './types.js';

/**
 * First size of `seq` and of the hash set. Small, so that both grow, and the set's probes meet a
 * taken slot, within the first stacks: while `add` still runs unoptimized and records what those
 * paths do. Reached first after V8 optimized `add`, each of them threw the optimized code away
 * (two recompilations of `add`, while 20,000 distinct stacks were grouped in slower code).
 */
const INITIAL = 16;

/** Where the low 32 bits of a 64-bit integer lie in its two 32-bit halves (0 on little-endian machines). */
const LOW_HALF = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1 ? 0 : 1;

/** Signatures from which `comparator` compares ranks rather than key text. */
const RANKED_FROM = 2000;

export class SignatureTable {
  /** Piece text → number, and back. */
  private readonly numbers = new Map<string, number>();
  private readonly pieces: string[] = [];
  /** Per frame: its line as piece numbers, and where it is kept (`FrameLine`). */
  private readonly lines = new FrameSlots<FrameLine>();
  /**
   * The pieces of every signature, one after another: signature s is `seq[starts[s]] … seq[starts[s + 1] - 1]`.
   * A stack's pieces are written past the last signature's, and kept there only when its signature is
   * new (220,000 pushes onto a growing array were the costliest line of grouping distinct stacks).
   * Replaced by a copy twice the size when full (`texts.seq` with it).
   */
  private seq: Int32Array = new Int32Array(INITIAL);
  private readonly starts: number[] = [0];
  /**
   * Open-addressed hash set of the signatures, by the hash of their pieces: each slot holds a
   * signature's number + 1, or 0 when empty (a Map keyed by the 32-bit hash boxed half of them as
   * heap numbers, the costliest line of grouping distinct stacks).
   */
  private slots = new Int32Array(INITIAL);
  /** Each signature's hash. */
  private readonly hashes: number[] = [];
  /** The texts of the signatures, kept by the analyzed groups (the maps above are not). */
  readonly texts: SignatureTexts;
  /** The piece of the empty signature's text, '(no frames)'. */
  private readonly empty: number;
  /** The most pieces of a signature. */
  private longest = 0;
  /** Some piece holds a character below '\n' (see `comparator`). */
  private low = false;

  constructor(private readonly level: SimilarityLevel) {
    this.texts = new SignatureTexts(this.pieces, this.seq, this.starts);
    this.empty = this.numbered(NO_FRAMES);
  }

  /** Signatures so far. */
  get size(): number {
    return this.starts.length - 1;
  }

  /** The number of the signature of `frames`: equal for equal signatures, from 0 in order of first sight. */
  add(frames: readonly Frame[]): number {
    const starts = this.starts;
    const from = starts[starts.length - 1];
    // keyStart (signature.ts): the signature starts past the leading runtime frames (start < 0
    // until then). One call of `line` and of `put` on the path every stack takes: V8 inlines each
    // call it has seen often into add's optimized code, and compiles it once more for every call.
    let end = from;
    let start = -1;
    for (let i = 0; i < frames.length; i++) {
      const l = this.line(frames[i]);
      if (start < 0) {
        if (l.runtime) continue;
        start = i;
      }
      if (!l.kept || (l.wrapper && end !== from)) continue;
      end = l.piece >= 0 ? this.put(end, l.piece) : this.putAll(end, l.pieces);
    }
    // A stack of runtime frames only keeps them all but goexit (keptAt(f, -1)).
    for (let i = 0; start < 0 && i < frames.length; i++) {
      const l = this.line(frames[i]);
      if (l.keptInRuntime) end = this.putAll(end, l.pieces);
    }
    // An empty signature reads '(no frames)', as `signature(g) || '(no frames)'` does.
    if (end === from || (end === from + 1 && this.pieces[this.seq[from]] === '')) end = this.put(from, this.empty);
    const n = end - from;
    const seq = this.seq;
    let h = 0x811c9dc5;
    for (let k = from; k < from + n; k++) h = Math.imul(h ^ seq[k], 0x01000193);
    const slots = this.slots;
    const hashes = this.hashes;
    const mask = slots.length - 1;
    let at = h & mask;
    for (let found = slots[at]; found !== 0; found = slots[(at = (at + 1) & mask)]) {
      if (hashes[found - 1] === h && this.holds(found - 1, from, n)) return found - 1;
    }
    const sig = starts.length - 1;
    if (n > this.longest) this.longest = n;
    starts.push(from + n);
    hashes.push(h);
    slots[at] = sig + 1;
    // At most half full: probes stay short.
    if (2 * (sig + 1) > slots.length) this.grow();
    return sig;
  }

  /** `put` of each of `pieces` in turn. */
  private putAll(at: number, pieces: readonly number[]): number {
    for (let k = 0; k < pieces.length; k++) at = this.put(at, pieces[k]);
    return at;
  }

  /** Writes `piece` at `at` of `seq` (grown when full); returns the position after it. */
  private put(at: number, piece: number): number {
    if (at === this.seq.length) this.grown();
    this.seq[at] = piece;
    return at + 1;
  }

  /** `seq` copied into one twice its size. */
  private grown(): Int32Array {
    const seq = new Int32Array(this.seq.length * 2);
    seq.set(this.seq);
    this.seq = seq;
    this.texts.seq = seq;
    return seq;
  }

  private grow(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let sig = 0; sig < this.hashes.length; sig++) {
      let at = this.hashes[sig] & mask;
      while (slots[at] !== 0) at = (at + 1) & mask;
      slots[at] = sig + 1;
    }
    this.slots = slots;
  }

  /** The text of signature `sig` (`SignatureTexts.key`). */
  key(sig: number): string {
    return this.texts.key(sig);
  }

  /**
   * Orders signature numbers as their keys (`key`) compare with `<`. The keys compare as the
   * sequences of their pieces' ranks in string order, the shorter first where one is a prefix of
   * the other: a piece that is a prefix of another is followed in its key by '\n' or nothing, both
   * below the longer one's next character unless that is below '\n' itself. Where some piece holds
   * such a character, the keys themselves are compared; so are the keys of a table of a few hundred
   * signatures, which fit in cache and compare natively from the first call (the rank loop pays off
   * on thousands of signatures, and costs more than it saves while the code is still cold).
   */
  comparator(): (a: number, b: number) => number {
    if (this.low || this.size < RANKED_FROM) {
      return (a, b) => {
        const x = this.key(a);
        const y = this.key(b);
        return x < y ? -1 : x > y ? 1 : 0;
      };
    }
    const texts = this.pieces;
    const rank = this.ranks();
    const seq = this.seq;
    const ranked = new Int32Array(this.starts[this.size]);
    for (let x = 0; x < ranked.length; x++) ranked[x] = rank[seq[x]];
    const starts = this.starts;
    // Each signature's first ranks packed into one number (rank + 1, 0 past its end, so a shorter
    // signature sorts first), as many as fit exactly in a double: most pairs differ there and are
    // told by one subtraction; equal prefixes go on to the rank loop.
    const bits = Math.ceil(Math.log2(texts.length + 1));
    const per = Math.floor(52 / bits);
    const scale = 2 ** bits;
    const prefix = new Float64Array(this.size);
    for (let sig = 0; sig < prefix.length; sig++) {
      let k = 0;
      for (let j = 0, x = starts[sig]; j < per; j++, x++) k = k * scale + (x < starts[sig + 1] ? ranked[x] + 1 : 0);
      prefix[sig] = k;
    }
    return (a, b) => {
      const d = prefix[a] - prefix[b];
      if (d !== 0) return d;
      const ea = starts[a + 1];
      const eb = starts[b + 1];
      for (let x = starts[a], y = starts[b]; x < ea && y < eb; x++, y++) if (ranked[x] !== ranked[y]) return ranked[x] - ranked[y];
      return ea - starts[a] - (eb - starts[b]);
    };
  }

  /**
   * Every signature number, by `counts[sig]` descending, then by key as `comparator` orders them.
   * Where every count is equal (a dump of distinct stacks), `packedOrder` where it can, else the
   * comparator is the sort's own: the counts' comparison around it doubled the calls of the
   * ~300,000 comparisons of 20,000 stacks. (A native sort of the packed first ranks, with a search
   * of each signature's run of equal ones, was faster warm but slower in the one cold call a CLI
   * run makes: its loops ran in the interpreter. `packedOrder` searches nothing: one pass packs the
   * keys, one reads the numbers back.)
   */
  order(counts: ArrayLike<number>): number[] {
    const size = this.size;
    const equal = allEqual(counts, size);
    const packed = equal ? this.packedOrder() : undefined;
    if (packed !== undefined) return packed;
    const sigs = new Array<number>(size);
    for (let sig = 0; sig < size; sig++) sigs[sig] = sig;
    const byKey = this.comparator();
    return equal ? sigs.sort(byKey) : sigs.sort((a, b) => counts[b] - counts[a] || byKey(a, b));
  }

  /** Each piece's rank in string order. */
  private ranks(): Int32Array {
    const texts = this.pieces;
    const order = texts.map((_, i) => i).sort((a, b) => (texts[a] < texts[b] ? -1 : 1));
    const rank = new Int32Array(texts.length);
    for (let r = 0; r < order.length; r++) rank[order[r]] = r;
    return rank;
  }

  /**
   * Every signature number in `comparator`'s order, by one native sort of 64-bit integers, where
   * each signature's ranks (as `comparator` packs its first ones) and then its number fit in 64
   * bits: the ranks tell every pair apart, and the number is read back from the low bits. Else
   * undefined (as for the tables `comparator` compares by key text). On 20,000 distinct stacks of
   * a few functions it replaces ~300,000 calls of the comparator, and its rank loop.
   */
  packedOrder(): number[] | undefined {
    const size = this.size;
    if (this.low || size < RANKED_FROM) return undefined;
    const starts = this.starts;
    const longest = this.longest;
    const bits = Math.ceil(Math.log2(this.pieces.length + 1));
    const sigBits = Math.ceil(Math.log2(size));
    // (Each step multiplies a 32-bit half by 2^bits or 2^sigBits: at most 2^53, exact in a double.)
    if (bits * longest + sigBits > 64 || bits > 21 || sigBits > 21) return undefined;
    const keys = new BigUint64Array(size);
    const halves = new Uint32Array(keys.buffer);
    packKeys(halves, size, starts, this.seq, this.ranks(), longest, bits, sigBits);
    keys.sort();
    return sigsOfKeys(halves, size, sigBits);
  }

  /** Whether signature `sig` is the `n` pieces of `seq` from `at`. */
  private holds(sig: number, at: number, n: number): boolean {
    const from = this.starts[sig];
    if (this.starts[sig + 1] - from !== n) return false;
    for (let k = 0; k < n; k++) if (this.seq[from + k] !== this.seq[at + k]) return false;
    return true;
  }

  private line(f: Frame): FrameLine {
    let l = this.lines.get(f);
    if (l === undefined) {
      const text = signatureLine(f, this.level);
      const pieces = text.includes('\n') ? text.split('\n').map((p) => this.numbered(p)) : [this.numbered(text)];
      l = { piece: pieces.length === 1 ? pieces[0] : -1, pieces, runtime: isRuntimeFunc(f.func), kept: keptAt(f, 0), keptInRuntime: keptAt(f, -1), wrapper: isWrapperFrame(f) };
      this.lines.set(f, l);
    }
    return l;
  }

  private numbered(piece: string): number {
    let n = this.numbers.get(piece);
    if (n === undefined) {
      n = this.pieces.length;
      this.numbers.set(piece, n);
      this.pieces.push(piece);
      if (/[\0-\t]/.test(piece)) this.low = true;
    }
    return n;
  }
}

/** A frame's part of the signatures: decided once per frame, read for each stack it is on. */
interface FrameLine {
  /** Its line's only piece number, or -1 where it has several (a line Go printed has one). */
  readonly piece: number;
  /** Its line, as piece numbers. */
  readonly pieces: readonly number[];
  /** A `runtime.*` frame (keyStart skips the leading ones). */
  readonly runtime: boolean;
  /** `keptAt(f, start)` for a stack with some frame past its leading runtime ones (start ≥ 0)… */
  readonly kept: boolean;
  /** …and for a stack of runtime frames only (start < 0). */
  readonly keptInRuntime: boolean;
  /** A compiler's wrapper: kept only as a signature's first frame (`isWrapperFrame`). */
  readonly wrapper: boolean;
}

/** The texts of a table's signatures: its pieces, and each signature's piece numbers. */
export class SignatureTexts {
  private readonly keys: (string | undefined)[] = [];
  private readonly ids: (string | undefined)[] = [];

  constructor(
    private readonly pieces: readonly string[],
    /** The table's `seq` (replaced as it grows). */
    public seq: Int32Array,
    private readonly starts: readonly number[],
  ) {}

  /** The text of signature `sig`: `signatureOfFrames(frames, level) || '(no frames)'`, made once. */
  key(sig: number): string {
    return (this.keys[sig] ??= this.keyOnce(sig));
  }

  /** `idOf(keyOnce(sig))`, made once (group-key.ts: the id of the group of signature `sig`). */
  id(sig: number, idOf: (key: string) => string): string {
    return (this.ids[sig] ??= idOf(this.keyOnce(sig)));
  }

  /** Piece `n`'s text: signature `sig`'s key is the pieces of `seq` from `start(sig)` to `start(sig + 1)`, joined by '\n'. */
  piece(n: number): string {
    return this.pieces[n];
  }

  /** Where signature `sig`'s piece numbers start in `seq` (see `piece`). */
  start(sig: number): number {
    return this.starts[sig];
  }

  /** `key(sig)`, without keeping it when it was not made before (for a caller that only hashes it). */
  keyOnce(sig: number): string {
    const known = this.keys[sig];
    if (known !== undefined) return known;
    const parts: string[] = [];
    for (let x = this.starts[sig]; x < this.starts[sig + 1]; x++) parts.push(this.pieces[this.seq[x]]);
    return parts.join('\n');
  }
}

/** Whether `counts[0 … size - 1]` are all equal. */
function allEqual(counts: ArrayLike<number>, size: number): boolean {
  for (let sig = 1; sig < size; sig++) if (counts[sig] !== counts[0]) return false;
  return true;
}

/**
 * Writes the key of each signature of `packedOrder` to `halves` (its 64-bit keys as 32-bit halves):
 * `hi` * 2^32 + `lo`, shifted left by `bits` per rank, then by `sigBits` for the number: every step
 * stays below 2^53, exact in a double. (Each pass of `packedOrder` is a function of its own: see
 * `groupSnapshot`.)
 */
function packKeys(
  halves: Uint32Array, size: number, starts: readonly number[], seq: Int32Array, rank: Int32Array,
  longest: number, bits: number, sigBits: number,
): void {
  const scale = 2 ** bits;
  const sigScale = 2 ** sigBits;
  for (let sig = 0; sig < size; sig++) {
    let hi = 0;
    let lo = 0;
    for (let j = 0, x = starts[sig]; j <= longest; j++, x++) {
      const last = j === longest;
      const by = last ? sigScale : scale;
      lo = lo * by + (last ? sig : x < starts[sig + 1] ? rank[seq[x]] + 1 : 0);
      const carry = Math.floor(lo / 0x100000000);
      lo -= carry * 0x100000000;
      hi = hi * by + carry;
    }
    halves[2 * sig + LOW_HALF] = lo;
    halves[2 * sig + 1 - LOW_HALF] = hi;
  }
}

/** The signature numbers of `packKeys`' keys, in the order they are in. */
function sigsOfKeys(halves: Uint32Array, size: number, sigBits: number): number[] {
  const sigScale = 2 ** sigBits;
  const out = new Array<number>(size);
  for (let i = 0; i < size; i++) out[i] = halves[2 * i + LOW_HALF] % sigScale;
  return out;
}
