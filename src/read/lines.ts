/**
 * Push-based line splitting: bytes in, one callback per line out, synchronously. Push (not an async
 * iterator per line) because a 600 MB dump has ~10M lines and per-line promise overhead would dominate.
 * CR before LF is dropped; a lone trailing line without LF is delivered by `end()`.
 *
 * Hot path: a chunk of pure ASCII (nearly every chunk of a dump) is turned into a string by a plain
 * byte copy (latin1), several times faster than UTF-8 decoding; other chunks are decoded as UTF-8 up
 * to their last complete character, the rest carried into the next chunk.
 */
import { isAscii } from 'node:buffer';

/**
 * Where lines go: an object with a `line` method (the reader itself), not a function. With one
 * closure per reader, the per-line call site saw a new target for each reader of a file read in parts
 * (chunked.ts); a method of one class is one target (~2% fewer instructions, callgrind).
 */
export interface LineSink {
  line(line: string, lineNo: number): void;
  /**
   * Set by the sink after a line when it may take the lines that follow whole (`block`): a goroutine
   * header, whose stack the traceback reader can match against the stacks it knows without a call per
   * line. (Blocks are offered after the first lines of a piece too.)
   */
  readonly wantsBlock?: boolean;
  /**
   * Whole lines of the piece `bytes` from offset `start`, the start of line `lineNo + 1`: the sink
   * reads as many as it can and returns the offset just past the last one it took (`start`: none),
   * their count in `blockLines`. `s`: the piece decoded, byte for character (ASCII), when the splitter
   * decoded it (PieceMode 'text'); undefined when it did not.
   */
  block?(s: string | undefined, start: number, lineNo: number, bytes: Bytes): number;
  readonly blockLines?: number;
}

/**
 * The bytes a piece of ASCII text was decoded from: character `i` of the piece is `buf[start + i]`.
 * `serial` tells pieces apart (a new one each time the splitter decodes one).
 */
export interface Bytes {
  buf: Buffer;
  start: number;
  end: number;
  serial: number;
}

/** Bytes of ASCII turned into one string at a time (never more: `Bytes` of a piece fit in this). */
export const PIECE = 64 * 1024;

/**
 * How an ASCII piece reaches the sink. 'text': decoded whole, lines sliced from that string (cheap per
 * line). 'bytes': only the lines the sink does not take in blocks are decoded, one string each (no
 * decoding of what blocks take, but a call per line). 'auto': 'bytes' after a piece whose blocks took
 * most of its bytes (a dump of stacks already read), else 'text'. Every mode gives the sink the same
 * lines; the choice is only speed.
 */
export type PieceMode = 'auto' | 'text' | 'bytes';

export class LineSplitter {
  /** Bytes of a UTF-8 character cut by the end of the previous chunk. */
  private pending: Buffer | undefined;
  private carry = '';
  /** Full length of the unfinished line, including what was dropped past maxLineLength. */
  private carryLength = 0;
  private lineNo = 0;
  /** Where the string `text` is reading came from, when it is ASCII (else `serial` is -1). */
  private readonly bytes: Bytes = { buf: Buffer.alloc(0), start: 0, end: 0, serial: -1 };
  private pieces = 0;
  /** Bytes the sink took in blocks from the current piece. */
  private blockBytes = 0;
  /** The next piece is read as bytes (PieceMode). */
  private byBytes: boolean;
  /** Lines longer than this are cut (the rest of the line is dropped) and reported through `onLong`. */
  constructor(
    private readonly sink: LineSink,
    private readonly maxLineLength = 1 << 20,
    private readonly onLong?: (lineNo: number, length: number) => void,
    private readonly mode: PieceMode = 'auto',
  ) {
    this.byBytes = mode === 'bytes' && sink.block !== undefined;
  }

  push(chunk: Uint8Array): void {
    let c = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (this.pending) {
      c = Buffer.concat([this.pending, c]);
      this.pending = undefined;
    }
    if (c.length === 0) return;
    if (isAscii(c)) {
      // In pieces of about PIECE bytes cut after a newline: strings that small are allocated in
      // V8's young generation and die there, where a megabyte string goes to the large-object space
      // and stays until a full collection (peak memory).
      const n = c.length;
      let start = 0;
      while (n - start > PIECE) {
        let end = c.lastIndexOf(10, start + PIECE - 1) + 1;
        if (end <= start) end = start + PIECE;
        this.piece(c, start, end);
        start = end;
      }
      this.piece(c, start, n);
      this.bytes.serial = -1;
      return;
    }
    const cut = completeUtf8(c);
    if (cut < c.length) this.pending = Buffer.from(c.subarray(cut));
    this.text(c.toString('utf8', 0, cut));
  }

  /** `c[start, end)`, ASCII, as one string (with its bytes for `LineSink.block`). */
  private piece(c: Buffer, start: number, end: number): void {
    const b = this.bytes;
    b.buf = c;
    b.start = start;
    b.end = end;
    b.serial = this.pieces++;
    this.blockBytes = 0;
    if (this.byBytes) this.lineByLine(c, start, end);
    else this.text(c.toString('latin1', start, end));
    // Three quarters taken in blocks: the lines left cost less one by one than decoding the piece.
    if (this.mode === 'auto') this.byBytes = this.sink.block !== undefined && this.blockBytes * 4 >= (end - start) * 3;
  }

  /**
   * What `text(c.toString('latin1', from, to))` does, line for line, with a string made only for each
   * line the sink does not take in a block.
   */
  private lineByLine(c: Buffer, from: number, to: number): void {
    if (to <= from) return;
    let start = from;
    let nl = c.indexOf(10, start);
    if (nl < 0 || nl >= to) {
      this.append(c.toString('latin1', start, to));
      return;
    }
    const sink = this.sink;
    let resume = 2;
    if (this.carryLength > 0) {
      this.append(c.toString('latin1', start, nl));
      this.emit(this.carry, this.carryLength);
      this.carry = '';
      this.carryLength = 0;
      start = nl + 1;
      if (resume-- > 0 && start < to) start = from + this.offer(undefined, start - from);
      nl = start < to ? c.indexOf(10, start) : -1;
    }
    const max = this.maxLineLength;
    while (nl >= 0 && nl < to) {
      let end = nl;
      if (end - start > max) {
        this.emit(c.toString('latin1', start, nl));
      } else {
        if (end > start && c[end - 1] === 13) end--;
        sink.line(c.toString('latin1', start, end), ++this.lineNo);
      }
      start = nl + 1;
      if ((sink.wantsBlock === true || resume-- > 0) && start < to) start = from + this.offer(undefined, start - from);
      nl = start < to ? c.indexOf(10, start) : -1;
    }
    if (start < to) this.append(c.toString('latin1', start, to));
  }

  end(): void {
    if (this.pending) {
      this.text(this.pending.toString('utf8'));
      this.pending = undefined;
    }
    if (this.carryLength > 0) this.emit(this.carry, this.carryLength);
    this.carry = '';
    this.carryLength = 0;
  }

  get lines(): number {
    return this.lineNo;
  }

  private text(s: string): void {
    if (s.length === 0) return;
    let start = 0;
    let nl = s.indexOf('\n');
    if (nl < 0) {
      this.append(s);
      return;
    }
    const sink = this.sink;
    const blocks = this.bytes.serial >= 0 && sink.block !== undefined;
    // Blocks are also offered after the first two lines of a piece, which may continue a goroutine
    // begun in the piece before (its call line and file line), whatever the sink wants.
    let resume = 2;
    if (this.carryLength > 0) {
      this.append(s.slice(0, nl));
      this.emit(this.carry, this.carryLength);
      this.carry = '';
      this.carryLength = 0;
      start = nl + 1;
      if (blocks && resume-- > 0 && start < s.length) start = this.offer(s, start);
      nl = s.indexOf('\n', start);
    }
    const max = this.maxLineLength;
    while (nl >= 0) {
      let end = nl;
      if (end - start > max) {
        this.emit(s.slice(start, nl));
      } else {
        if (end > start && s.charCodeAt(end - 1) === 13) end--;
        sink.line(s.slice(start, end), ++this.lineNo);
      }
      start = nl + 1;
      if (blocks && (sink.wantsBlock === true || resume-- > 0) && start < s.length) start = this.offer(s, start);
      nl = s.indexOf('\n', start);
    }
    if (start < s.length) this.append(s.slice(start));
  }

  /** The sink takes what it can of the piece from `start` (LineSink.block); where the lines go on. */
  private offer(s: string | undefined, start: number): number {
    const taken = this.sink.block!(s, start, this.lineNo, this.bytes);
    if (taken <= start) return start;
    this.lineNo += this.sink.blockLines!;
    this.blockBytes += taken - start;
    return taken;
  }

  /** Keep at most maxLineLength (+1 to notice overflow) of an unfinished line. */
  private append(s: string): void {
    this.carryLength += s.length;
    if (this.carry.length > this.maxLineLength) return;
    this.carry += s.length > this.maxLineLength + 1 ? s.slice(0, this.maxLineLength + 1) : s;
  }

  private emit(line: string, fullLength = line.length): void {
    this.lineNo++;
    if (fullLength > this.maxLineLength) {
      this.onLong?.(this.lineNo, fullLength);
      line = line.slice(0, this.maxLineLength);
    }
    if (line.length > 0 && line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);
    this.sink.line(line, this.lineNo);
  }
}

/** Length of the prefix of `b` that ends on a complete UTF-8 character (an incomplete last one is left out). */
function completeUtf8(b: Buffer): number {
  const n = b.length;
  let i = n - 1;
  // Back over at most 3 continuation bytes to the lead byte of the last character.
  while (i >= 0 && i > n - 4 && (b[i] & 0xc0) === 0x80) i--;
  if (i < 0) return n;
  const lead = b[i];
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return need > n - i && lead >= 0xc0 && lead < 0xf8 ? i : n;
}
