/**
 * Push-based line splitting: bytes in, one callback per line out, synchronously. Push (not an async
 * iterator per line) because a 600 MB dump has ~10M lines and per-line promise overhead would dominate.
 * CR before LF is dropped; a lone trailing line without LF is delivered by `end()`.
 */
import { StringDecoder } from 'node:string_decoder';

export type LineSink = (line: string, lineNo: number) => void;

export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private carry = '';
  /** Full length of the unfinished line, including what was dropped past maxLineLength. */
  private carryLength = 0;
  private lineNo = 0;
  /** Lines longer than this are cut (the rest of the line is dropped) and reported through `onLong`. */
  constructor(
    private readonly sink: LineSink,
    private readonly maxLineLength = 1 << 20,
    private readonly onLong?: (lineNo: number, length: number) => void,
  ) {}

  push(chunk: Uint8Array): void {
    this.text(this.decoder.write(chunk as Buffer));
  }

  end(): void {
    this.text(this.decoder.end());
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
    if (this.carryLength > 0) {
      this.append(s.slice(0, nl));
      this.emit(this.carry, this.carryLength);
      this.carry = '';
      this.carryLength = 0;
      start = nl + 1;
      nl = s.indexOf('\n', start);
    }
    while (nl >= 0) {
      this.emit(s.slice(start, nl));
      start = nl + 1;
      nl = s.indexOf('\n', start);
    }
    if (start < s.length) this.append(s.slice(start));
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
    this.sink(line, this.lineNo);
  }
}
