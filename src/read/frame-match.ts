/**
 * Frames of known stacks matched against the input's bytes (frame-match.wat, in WebAssembly). The
 * traceback reader keeps a trie of the stacks it has read (traceback.ts, `StackNode`); a goroutine
 * of a known stack repeats its call and file lines byte for byte but for the arguments. The matcher
 * holds a copy of the trie's nodes as bytes (a node's `func(` and file line) and walks it over the
 * input in one call per goroutine, comparing eight bytes at a time, where reading line by line costs
 * strings and calls per line. Nodes are copied when a walk first needs their children.
 *
 * Memory of the instance: the piece being read (at most `PIECE` bytes, copied in when first
 * needed), the walk's result, then the nodes. A piece that lies in a buffer of the instance's memory
 * (`inputBuffer`: a file read straight into it) is walked in place, without the copy. Without
 * WebAssembly (`--jitless`) there is no matcher and every line goes the usual way.
 */
import { FRAME_MATCH_WASM } from './frame-match-wasm.js';
import { PIECE, type Bytes } from './lines.js';

/**
 * How goroutines whose stack ends at a node were created, as the text says it: `created by F`, then
 * ` in goroutine N` when `withId` (Go 1.21 and later), then `fileLine` (as one goroutine read line by
 * line said it: the id of the others may differ).
 */
export interface CreatorLines {
  readonly head: string;
  readonly withId: boolean;
  readonly fileLine: string;
  /** Where the matcher holds them (0: not yet). */
  at: number;
}

/**
 * A frame's text: the function and the file line of every node made from them (traceback.ts,
 * `FrameLine`). The matcher writes the text once, for all these nodes, and finds it by its file line
 * where a frame follows a node that has no such kid (`Walk.text`).
 */
export interface MatchText {
  readonly frame: { readonly func: string; readonly inlined: boolean };
  readonly line: string;
  /** Where the matcher holds it (0: not yet; NEVER: text that is not ASCII). */
  at: number;
}

/** What the matcher needs of a trie node (traceback.ts, `StackNode`). */
export interface MatchNode {
  readonly frame: { readonly func: string; readonly inlined: boolean } | undefined;
  readonly line: string;
  /** Shared by the nodes of the same `frame` and `line` (undefined: the root). */
  readonly text: MatchText | undefined;
  /** Its first kid, then the others (`kids`), in the order they are tried. */
  readonly kid: MatchNode | undefined;
  readonly kids: readonly MatchNode[] | undefined;
  readonly creatorLines: CreatorLines | undefined;
  /** Where the matcher holds it (0: not yet), and how many of its kids it holds (the first ones). */
  at: number;
  held: number;
}

type WalkFn = (p: number, end: number, node: number, max: number, budget: number) => number;

/** What this file uses of the WebAssembly API (typed here: the build's `lib` is the language's, not the DOM's). */
interface WasmMemory {
  /** A SharedArrayBuffer (the memory is shared): views of it stay valid when the memory grows. */
  readonly buffer: ArrayBufferLike;
  grow(pages: number): number;
}
interface WasmExports {
  readonly memory: WasmMemory;
  readonly walk: WalkFn;
  readonly addText: (text: number) => void;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { readonly exports: WasmExports };
}

let compiled: object | null | undefined;

/** The module, compiled once per thread; null without WebAssembly. */
function frameModule(wasm: WasmApi | undefined): object | null {
  if (compiled === undefined) {
    try {
      compiled = wasm ? new wasm.Module(Buffer.from(FRAME_MATCH_WASM, 'base64')) : null;
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

const PAGE = 65536;
/** Layout of the memory (frame-match.wat). */
const RESULT = PIECE;
const CREATOR_MATCHED = RESULT + 8;
const NEW_TEXTS = RESULT + 12;
/** The frame texts of the new nodes of a walk. */
const TEXTS = 98336;
const CREATOR_ID = RESULT + 16;
const TAKEN = RESULT + 24;
/** Where the table of frame texts is and its mask, and the creator tried at nodes without one (frame-match.wat). */
const TEXT_TABLE = 2 * PAGE - 32;
const TEXT_MASK = TEXT_TABLE + 4;
const ANY_CREATOR = TEXT_TABLE + 8;
const TEXT_BUCKETS = 1 << 14;
const NODES = 2 * PAGE;
/** Frames one walk takes at most (its result area holds that many). */
export const MAX_WALK = 4096;
/** A node's fields, in bytes (a frame text's too); a creator's fields before its text. */
const NODE_HEADER = 32;
const CREATOR_HEADER = 16;
/** Head length of a node that never matches (text that is not ASCII: an ASCII piece never holds it). */
const NEVER = 0x3fffffff;
/** Input buffers a matcher gives at most (`inputBuffer`): a file read ahead keeps three. */
const INPUT_BUFFERS = 4;
/** Bytes after an input buffer that the walk may load past its end (an 8-byte word), never past the memory. */
const INPUT_SLACK = 16;

/** The frames one walk took: how many, the last one's node, and where each call line's `(` and newline are. */
export interface Walk {
  count: number;
  /** Offset after the last line taken. */
  end: number;
  /**
   * Creator lines followed, then a blank line: the goroutine is read to its end. They are the last
   * node's `creatorLines`, or the ones given to `anyCreator` (`creatorLines()` says which).
   */
  creator: boolean;
  /** The N of ` in goroutine N`, when `creator` and the lines have it. */
  creatorId: number;
  /**
   * The last `texts` frames taken are not in the trie, but their texts were read before elsewhere in
   * it (`text(i)`): the caller makes their nodes, each the kid of the one before, from `last()`.
   */
  texts: number;
  text(i: number): MatchText;
  /** The node of the last frame taken that is in the trie (when `count` > `texts`). */
  last(): MatchNode;
  /** The lines that matched, when `creator`. */
  creatorLines(): CreatorLines;
  /** The arguments of frame `i`, from `s` (the piece's text) or, without it, from the piece's bytes. */
  args(s: string | undefined, b: Bytes, i: number): string;
}

export class FrameMatcher implements Walk {
  private readonly memory: WasmMemory;
  private readonly walkFn: WalkFn;
  private bytes: Buffer;
  private ints: Int32Array;
  private top = NODES;
  private readonly nodes: MatchNode[] = [];
  private readonly textList: MatchText[] = [];
  private readonly creators: CreatorLines[] = [];
  private readonly addTextFn: (text: number) => void;
  /** `Bytes.serial` of the piece copied to offset 0. */
  private loaded = -1;
  /** Where the walked piece starts in memory: 0 (copied), or its place in an input buffer. */
  private base = 0;
  /** The memory's buffers that input buffers were made from (`inputBuffer`), and how many were made. */
  private readonly inputs = new Set<ArrayBufferLike>();
  private inputCount = 0;
  /** Input buffers given for the input being read, and those of inputs read to their end (`releaseInputs`). */
  private readonly lent: Buffer[] = [];
  private readonly spare: Buffer[] = [];
  /**
   * The buffer of the last piece walked, and where it lies in an input buffer (-1: it does not; a
   * SharedArrayBuffer's `buffer` getter is a runtime call). Read on every walk (not `byteOffset`
   * only when in place: optimized before any piece lies in one, a walk would be thrown away at the first).
   */
  private lastBuf: Buffer | undefined;
  private inPlaceAt = -1;
  private floats: Float64Array;
  count = 0;
  end = 0;
  creator = false;
  creatorId = 0;
  texts = 0;

  private constructor(exports: WasmExports) {
    this.memory = exports.memory;
    this.walkFn = exports.walk;
    this.addTextFn = exports.addText;
    this.bytes = Buffer.from(this.memory.buffer);
    this.ints = new Int32Array(this.memory.buffer);
    this.floats = new Float64Array(this.memory.buffer);
    const table = this.alloc(4 * TEXT_BUCKETS);
    this.ints.fill(0, table >> 2, (table >> 2) + TEXT_BUCKETS);
    this.ints[TEXT_TABLE >> 2] = table;
    this.ints[TEXT_MASK >> 2] = TEXT_BUCKETS - 1;
  }

  /** Creator lines tried at the end of a walk to a node that has none, or whose own did not match. */
  anyCreator(c: CreatorLines): void {
    const at = this.creatorAt(c);
    if (at !== 0) this.ints[ANY_CREATOR >> 2] = at;
  }

  /** A matcher, or undefined where WebAssembly is not available. */
  static create(): FrameMatcher | undefined {
    const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;
    const m = frameModule(wasm);
    if (!m || !wasm) return undefined;
    try {
      return new FrameMatcher(new wasm.Instance(m).exports);
    } catch {
      // Its shared memory reserves its 2 GiB of address space at once: where a limit refuses that
      // (ulimit -v), lines go the usual way.
      return undefined;
    }
  }

  /**
   * From `node` at `start` of `b`'s piece, the frames of its known descendants that follow, then at
   * most `budget` frames of texts read before (see frame-match.wat); the result in this object
   * (`Walk`) until the next walk.
   */
  walk(b: Bytes, start: number, node: MatchNode, budget: number): Walk {
    const buf = b.buf;
    if (buf !== this.lastBuf) {
      this.lastBuf = buf;
      this.inPlaceAt = this.inputs.has(buf.buffer) ? buf.byteOffset : -1;
    }
    // In place when the piece lies in an input buffer (offsets are the memory's), else copied to 0.
    const at = this.inPlaceAt;
    const base = at >= 0 ? at + b.start : 0;
    if (base === 0 && this.loaded !== b.serial) {
      this.bytes.set(buf.subarray(b.start, b.end), 0);
      this.loaded = b.serial;
    }
    this.base = base;
    this.hold(node);
    this.count = this.walkFn(base + start, base + b.end - b.start, node.at, MAX_WALK, budget);
    const ints = this.ints;
    this.end = ints[RESULT >> 2] - base;
    this.creator = ints[CREATOR_MATCHED >> 2] !== 0;
    if (this.creator) this.creatorId = this.floats[CREATOR_ID >> 3];
    this.texts = ints[NEW_TEXTS >> 2];
    return this;
  }

  text(i: number): MatchText {
    return this.textList[this.ints[(this.ints[(TEXTS >> 2) + i] >> 2) + 5]];
  }

  creatorLines(): CreatorLines {
    return this.creators[this.ints[CREATOR_MATCHED >> 2] - 1];
  }

  last(): MatchNode {
    const at = this.ints[(RESULT >> 2) + 1];
    return this.nodes[this.ints[(at >> 2) + 5]];
  }

  args(s: string | undefined, b: Bytes, i: number): string {
    const t = (TAKEN >> 2) + 2 * i;
    const from = this.ints[t] + 1 - this.base;
    const to = this.ints[t + 1] - 1 - this.base;
    return s !== undefined ? s.slice(from, to) : b.buf.toString('latin1', b.start + from, b.start + to);
  }

  /**
   * A buffer of `size` bytes in this matcher's memory, for input to be read into: a piece that lies
   * in it is walked in place (no copy into the memory). Its bytes are the caller's until it drops
   * the buffer; the memory is never given back, so a matcher gives a few at most (then undefined).
   * The memory is shared: growing it (new nodes) leaves the buffer valid, even while a file read
   * writes into it.
   */
  inputBuffer(size: number): Buffer | undefined {
    const i = this.spare.findIndex((s) => s.length === size);
    if (i >= 0) {
      const b = this.spare.splice(i, 1)[0];
      this.lent.push(b);
      return b;
    }
    if (this.inputCount >= INPUT_BUFFERS) return undefined;
    this.inputCount++;
    const at = this.alloc(size + INPUT_SLACK);
    const memory = this.memory.buffer;
    this.inputs.add(memory);
    const b = Buffer.from(memory, at, size);
    this.lent.push(b);
    return b;
  }

  /**
   * The input the buffers were given for was read to its end (no read of its file is in flight): they
   * take the reads of the next input this matcher walks. The buffers of an input that failed are
   * never given again (a read may still be writing into them).
   */
  releaseInputs(): void {
    this.spare.push(...this.lent);
    this.lent.length = 0;
  }

  /**
   * A new input begins (the matcher and its trie are kept from the inputs before, read-cache.ts): its
   * pieces are new, though their serials start again.
   */
  newInput(): void {
    this.loaded = -1;
    this.lastBuf = undefined;
    this.inPlaceAt = -1;
    this.lent.length = 0;
  }

  /** Bytes of memory in use: the known text and the input buffers. */
  get bytesUsed(): number {
    return this.top;
  }

  /** The node walked to last: its kids not held yet are held (the walk may go on from it). */
  holdKids(n: MatchNode): boolean {
    if (n.kid === undefined || n.held === kidCount(n)) return false;
    this.hold(n);
    return true;
  }

  /** `n` and its kids are in memory, linked in the order of `kid` then `kids`. */
  private hold(n: MatchNode): void {
    if (n.at === 0) this.add(n);
    const first = n.kid;
    if (first === undefined) return;
    if (n.held === 0) {
      if (first.at === 0) this.add(first);
      // First child: offset 12 of the parent.
      this.ints[(n.at + 12) >> 2] = first.at;
      n.held = 1;
    }
    const kids = n.kids;
    if (kids === undefined) return;
    for (let i = n.held - 1; i < kids.length; i++) {
      const k = kids[i];
      if (k.at === 0) this.add(k);
      // Next sibling (offset 16) of the kid before.
      this.ints[((i === 0 ? first : kids[i - 1]).at + 16) >> 2] = k.at;
    }
    n.held = kids.length + 1;
  }

  private add(n: MatchNode): void {
    const f = n.frame;
    const func = f === undefined ? '' : f.func;
    const line = n.line;
    const t = n.text;
    // The text is written for the first node of its frame text (NEVER also stands for text that is not ASCII).
    let text = t === undefined ? NEVER : t.at;
    if (text === 0) text = this.addText(t!);
    const at = this.alloc(NODE_HEADER);
    const i = at >> 2;
    const ints = this.ints;
    ints[i] = text === NEVER ? NEVER : func.length + 1;
    ints[i + 1] = line.length + 1;
    ints[i + 2] = f?.inlined ? 1 : 0;
    ints[i + 3] = 0;
    ints[i + 4] = 0;
    ints[i + 5] = this.nodes.length;
    ints[i + 6] = 0;
    ints[i + 7] = text === NEVER ? 0 : ints[(text >> 2) + 7];
    this.nodes.push(n);
    n.at = at;
    this.addCreator(n);
  }

  /**
   * The frame text as a node of its own (frame-match.wat), put in the table by its file line; its
   * offset, or NEVER, writing nothing, for text that is not ASCII. `func(` and the file line with its
   * newline are written in parts (no concatenated string to flatten).
   */
  private addText(t: MatchText): number {
    const func = t.frame.func;
    const line = t.line;
    if (!isAscii(func) || !isAscii(line)) return (t.at = NEVER);
    const headLength = func.length + 1;
    const lineLength = line.length + 1;
    const text = this.alloc(headLength + lineLength);
    const b = this.bytes;
    b.write(func, text, 'latin1');
    b[text + func.length] = 40; // (
    b.write(line, text + headLength, 'latin1');
    b[text + headLength + line.length] = 10;
    const at = this.alloc(NODE_HEADER);
    const i = at >> 2;
    const ints = this.ints;
    ints[i] = headLength;
    ints[i + 1] = lineLength;
    ints[i + 2] = t.frame.inlined ? 1 : 0;
    ints[i + 3] = 0;
    ints[i + 4] = 0;
    ints[i + 5] = this.textList.length;
    ints[i + 6] = 0;
    ints[i + 7] = text;
    this.textList.push(t);
    this.addTextFn(at);
    return (t.at = at);
  }

  /** The node's `creatorLines`, once known, for the walks that end there (a node held before has none yet). */
  addCreator(n: MatchNode): void {
    const c = n.creatorLines;
    if (n.at === 0 || c === undefined || this.ints[(n.at >> 2) + 6] !== 0) return;
    this.ints[(n.at >> 2) + 6] = this.creatorAt(c);
  }

  /** Where the matcher holds `c` (written the first time); 0 for lines that are not ASCII. */
  private creatorAt(c: CreatorLines): number {
    if (c.at !== 0) return c.at === NEVER ? 0 : c.at;
    if (!isAscii(c.head) || !isAscii(c.fileLine)) {
      c.at = NEVER;
      return 0;
    }
    const lineLength = c.fileLine.length + 1;
    const at = this.alloc(CREATOR_HEADER + c.head.length + lineLength);
    const i = at >> 2;
    this.ints[i] = c.head.length;
    this.ints[i + 1] = c.withId ? 1 : 0;
    this.ints[i + 2] = lineLength;
    this.ints[i + 3] = this.creators.length;
    this.creators.push(c);
    const b = this.bytes;
    const text = at + CREATOR_HEADER;
    b.write(c.head, text, 'latin1');
    b.write(c.fileLine, text + c.head.length, 'latin1');
    b[text + c.head.length + c.fileLine.length] = 10;
    return (c.at = at);
  }

  /** `size` bytes of memory for the known text, 4-aligned. */
  private alloc(size: number): number {
    size = (size + 3) & ~3;
    if (this.top + size > this.bytes.length) {
      // At least double: nodes are added one at a time.
      const pages = this.bytes.length / PAGE;
      this.memory.grow(Math.max(pages, Math.ceil((this.top + size) / PAGE) - pages));
      this.bytes = Buffer.from(this.memory.buffer);
      this.ints = new Int32Array(this.memory.buffer);
      this.floats = new Float64Array(this.memory.buffer);
    }
    const at = this.top;
    this.top += size;
    return at;
  }
}

/** `n`'s kids: its first and the others. */
function kidCount(n: MatchNode): number {
  return n.kid === undefined ? 0 : 1 + (n.kids === undefined ? 0 : n.kids.length);
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 127) return false;
  return true;
}
