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
import { NO_FRAMES, keptAt, keyStart, signatureLine } from './signature.js';
import type { SimilarityLevel } from './types.js';

/** Signatures from which `comparator` compares ranks rather than key text. */
const RANKED_FROM = 2000;

export class SignatureTable {
  /** Piece text → number, and back. */
  private readonly numbers = new Map<string, number>();
  private readonly pieces: string[] = [];
  /** A frame's line as piece numbers. */
  private readonly lines = new Map<Frame, readonly number[]>();
  /** The pieces of every signature, one after another: signature s is `seq[starts[s]] … seq[starts[s + 1] - 1]`. */
  private readonly seq: number[] = [];
  private readonly starts: number[] = [0];
  /** Hash of a signature's pieces → its number, or the numbers of those that share the hash. */
  private readonly byHash = new Map<number, number | number[]>();
  /** The texts of the signatures, kept by the analyzed groups (the maps above are not). */
  readonly texts: SignatureTexts;
  private readonly scratch: number[] = [];
  /** The piece of the empty signature's text, '(no frames)'. */
  private readonly empty: number;
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
    // The pieces go to the front of `scratch`, counted by n: emptying an array with `length = 0`
    // drops its storage, and each signature would allocate it again.
    const s = this.scratch;
    let n = 0;
    const start = keyStart(frames);
    for (let i = Math.max(start, 0); i < frames.length; i++) {
      const f = frames[i];
      if (!keptAt(f, start)) continue;
      const pieces = this.line(f);
      for (let k = 0; k < pieces.length; k++) s[n++] = pieces[k];
    }
    // An empty signature reads '(no frames)', as `signature(g) || '(no frames)'` does.
    if (n === 0 || (n === 1 && this.pieces[s[0]] === '')) {
      n = 0;
      s[n++] = this.empty;
    }
    let h = 0x811c9dc5;
    for (let k = 0; k < n; k++) h = Math.imul(h ^ s[k], 0x01000193);
    const found = this.byHash.get(h);
    if (typeof found === 'number') {
      if (this.holds(found, s, n)) return found;
    } else if (found !== undefined) {
      for (let x = 0; x < found.length; x++) if (this.holds(found[x], s, n)) return found[x];
    }
    const sig = this.size;
    for (let k = 0; k < n; k++) this.seq.push(s[k]);
    this.starts.push(this.seq.length);
    if (found === undefined) this.byHash.set(h, sig);
    else if (typeof found === 'number') this.byHash.set(h, [found, sig]);
    else found.push(sig);
    return sig;
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
    const order = texts.map((_, i) => i).sort((a, b) => (texts[a] < texts[b] ? -1 : 1));
    const rank = new Int32Array(texts.length);
    for (let r = 0; r < order.length; r++) rank[order[r]] = r;
    const seq = this.seq;
    const ranked = new Int32Array(seq.length);
    for (let x = 0; x < seq.length; x++) ranked[x] = rank[seq[x]];
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

  /** Whether signature `sig` is the first `n` pieces of `s`. */
  private holds(sig: number, s: readonly number[], n: number): boolean {
    const from = this.starts[sig];
    if (this.starts[sig + 1] - from !== n) return false;
    for (let k = 0; k < n; k++) if (this.seq[from + k] !== s[k]) return false;
    return true;
  }

  private line(f: Frame): readonly number[] {
    let l = this.lines.get(f);
    if (l === undefined) {
      const text = signatureLine(f, this.level);
      l = text.includes('\n') ? text.split('\n').map((p) => this.numbered(p)) : [this.numbered(text)];
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

/** The texts of a table's signatures: its pieces, and each signature's piece numbers. */
export class SignatureTexts {
  private readonly keys: (string | undefined)[] = [];

  constructor(
    private readonly pieces: readonly string[],
    private readonly seq: readonly number[],
    private readonly starts: readonly number[],
  ) {}

  /** The text of signature `sig`: `signatureOfFrames(frames, level) || '(no frames)'`, made once. */
  key(sig: number): string {
    return (this.keys[sig] ??= this.keyOnce(sig));
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
