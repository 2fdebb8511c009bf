/**
 * The text branch of the path (pipeline.ts): bytes → lines (lines.ts) → the text reader (text.ts) →
 * one `Dump`, with what only the byte stream knows: a last line cut without its newline, lines cut
 * for length, and input that holds no dump in its first 64 MiB (a device, a binary stream), which is
 * refused there instead of being read to its end. Reading one file in parts (chunked.ts) uses the
 * same reader and splitter (`textReader`).
 */
import type { Diagnostic, Dump, Snapshot } from '../model/dump.js';
import { InputError } from './errors.js';
import { LineSplitter } from './lines.js';
import type { ReadOptions } from './options.js';
import { readInto, releaseChunk } from './source.js';
import { TextDumpReader } from './text.js';
import type { KnownStacks } from './traceback.js';

/**
 * Text read at most before a dump must have started (ReadOptions.maxBytesBeforeDump): the size at
 * which Go's own debug=2 writer stops, so any dump Go writes whole starts well inside it.
 */
export const DEFAULT_DUMP_SEARCH_BYTES = 64 * 1024 * 1024;

/**
 * The later reads of the file `c` came from (its first chunk, not yet given back) go into buffers of
 * the reader's frame matcher, which walks them where they lie instead of copying each piece into its
 * memory (about 40 ms of 700 MB). Reads already in flight are copied (the first 3 MiB). A file that
 * small asks for no buffer: no matcher memory is spent on it. Input that is not a file: nothing.
 */
export function readInPlace(reader: TextDumpReader, c: Uint8Array): void {
  readInto(c, (size) => reader.inputBuffer(size));
}

/** A text reader fed by a line splitter; lines longer than the limit are cut and listed in `longLines`. */
export function textReader(source: string, opts: ReadOptions, continues = false, known?: KnownStacks): { reader: TextDumpReader; splitter: LineSplitter; longLines: Diagnostic[] } {
  const reader = new TextDumpReader(source, opts, continues, known);
  const longLines: Diagnostic[] = [];
  const max = opts.maxLineLength ?? 1 << 20;
  const splitter = new LineSplitter(
    reader,
    max,
    (no, length) => {
      if (longLines.length < 20) {
        longLines.push({ severity: 'warning', code: 'line-too-long', line: no, message: `line ${no} is ${length} characters long; cut to ${max}` });
      }
    },
  );
  return { reader, splitter, longLines };
}

/**
 * Read text content (already gunzipped): `first` is its first chunk, `rest` the others; `endedEarly`
 * says, once the content is read, why it ended before its end, if it did (a gzip stream around it cut
 * short, a download broken off). `known`: what the readers of inputs before this one learned of their
 * stacks (read-cache.ts); by default nothing.
 */
export async function readText(
  source: string,
  first: Uint8Array,
  rest: AsyncIterable<Uint8Array>,
  endedEarly: () => string | undefined,
  opts: ReadOptions,
  known?: KnownStacks,
): Promise<Dump> {
  const { reader, splitter, longLines } = textReader(source, opts, false, known);
  const searchBytes = opts.maxBytesBeforeDump ?? DEFAULT_DUMP_SEARCH_BYTES;
  let searching = true;
  let bytes = 0;
  const lastLine = new TailLine();
  const take = (c: Uint8Array): void => {
    splitter.push(c);
    lastLine.push(c);
    bytes += c.byteLength;
    if (searching && bytes >= searchBytes) {
      if (!reader.foundDump()) throw noDumpWithin(source, searchBytes, splitter.lines);
      searching = false;
    }
  };
  readInPlace(reader, first);
  take(first);
  // Leaving the loop by throwing ends the source (the file stream is closed, stdin left unread).
  for await (const c of rest) {
    take(c);
    // Nothing keeps a view of it (the splitter and the tail copy what they keep): its file may reuse it.
    releaseChunk(c);
    opts.onProgress?.(bytes);
  }
  const tail = lastLine.text();
  splitter.end();
  const inputCut = endedEarly();
  const dump = reader.end({ inputCut });
  const cut = tail !== undefined && inputCut === undefined ? markCutLine(dump, tail, splitter.lines, lastLine.previous()) : dump;
  return longLines.length ? { ...cut, warnings: [...longLines, ...cut.warnings] } : cut;
}

/** The one-line refusal of input with no dump in its first `searchBytes` bytes. */
function noDumpWithin(source: string, searchBytes: number, lines: number): InputError {
  const within = searchBytes % (1 << 20) === 0 ? `${searchBytes / (1 << 20)} MiB` : `${searchBytes} bytes`;
  if (lines === 0) return new InputError(source, 'not-a-dump', `no line break in the first ${within}: not a goroutine dump (a device or a binary stream?); stopped reading there`);
  return new InputError(source, 'not-a-dump', `no goroutine dump in the first ${within} (${lines} lines of other text); stopped reading there. A dump that starts further into a log: cut the log before it (e.g. tail -c)`);
}

/**
 * The last line of the input when it does not end with a newline (its last 256 bytes), else undefined.
 * Go ends every dump with a newline: a last line without one was cut mid-way, unless it looks complete.
 */
class TailLine {
  private tail: Uint8Array = new Uint8Array(0);
  push(c: Uint8Array): void {
    if (c.byteLength === 0) return;
    const keep = 256;
    // A copy (a Buffer's slice is a view): the chunk is not kept, and may be reused (releaseChunk).
    if (c.byteLength >= keep) this.tail = Uint8Array.prototype.slice.call(c, c.byteLength - keep);
    else {
      const t = new Uint8Array(Math.min(keep, this.tail.byteLength + c.byteLength));
      const fromOld = t.byteLength - c.byteLength;
      t.set(this.tail.subarray(this.tail.byteLength - fromOld), 0);
      t.set(c, fromOld);
      this.tail = t;
    }
  }
  text(): string | undefined {
    const t = this.tail;
    if (t.byteLength === 0 || t[t.byteLength - 1] === 10) return undefined;
    const nl = t.lastIndexOf(10);
    return Buffer.from(t.subarray(nl + 1)).toString('utf8');
  }

  /** The line before the last, as far as the tail holds it ('' when it does not). */
  previous(): string {
    const t = this.tail;
    const nl = t.lastIndexOf(10);
    if (nl <= 0) return '';
    return Buffer.from(t.subarray(t.lastIndexOf(10, nl - 1) + 1, nl)).toString('utf8');
  }
}
/**
 * How a complete last line of a dump ends: a frame's `file:line` or `+0xPC`, a call's `)`, a header's
 * `]:`/`:`, an elision marker, a debug=1 `# labels: {…}`. Anything else ending the input was cut.
 */
const COMPLETE_LINE = /(?:\)|:|\]|\}|:\d+|\+0x[0-9a-f]+|fp=0x[0-9a-f]+ sp=0x[0-9a-f]+ pc=0x[0-9a-f]+|\.\.\.|…|={10,})\s*$/;

/**
 * A leak report whose input ends on a `--- FAIL: TestX` line without its newline: the leak checker
 * prints that test's goroutines after the line, so they are missing (said, not marked truncated: the
 * test may also have failed for another reason).
 */
function failCut(dump: Dump, line: string, lineNo: number): Dump {
  const snaps = dump.snapshots;
  const last = snaps[snaps.length - 1];
  if (last?.context?.kind !== 'leak-report') return dump;
  const note: Diagnostic = { severity: 'warning', code: 'input-cut', line: lineNo, message: `the input ends on line ${lineNo} ('${line}') without a final newline: it was cut there, and the goroutines reported for that test are missing` };
  return { ...dump, snapshots: [...snaps.slice(0, -1), { ...last, warnings: [...last.warnings, note] }] };
}

/**
 * `\t/go/src/testing/testing.go:149` last: a file line prints its `+0x` offset unless its call was
 * inlined (`F(...)`), so without one after a call that was not inlined, the line number itself was cut.
 */
function cutFileLine(t: string, previous: string): boolean {
  return /^\s+\S.*\.\w+:\d+$/.test(t) && previous !== '' && !previous.trimEnd().endsWith('(...)');
}

/**
 * The input ends in the middle of line `lineNo` (no final newline, the line does not look complete):
 * the snapshot that line belongs to (or directly follows) was cut there.
 */
function markCutLine(dump: Dump, tail: string, lineNo: number, previous: string): Dump {
  const t = tail.replace(/\r$/, '');
  // debug=1 `#\t0xPC\tfunc+0xOFF\tfile:LINE`: complete only with its file:line (or as a bare PC).
  const hash = /#\t0x[0-9a-f]+(\t.*)?$/.exec(t);
  const complete = hash ? hash[1] === undefined || /:\d+\s*$/.test(t) : COMPLETE_LINE.test(t) && !cutFileLine(t, previous);
  if (complete && /--- FAIL: /.test(t)) return failCut(dump, t.trim(), lineNo);
  if (t.trim().length === 0 || complete) return dump;
  const shown = t.length > 60 ? `…${t.slice(-60)}` : t;
  const message = `the input ends in the middle of line ${lineNo} ('${shown.trim()}'), without a final newline: it was cut there`;
  const snaps = dump.snapshots;
  const last = snaps[snaps.length - 1];
  // No goroutine dump at all (a race log): the race reader says itself when a report is cut short.
  if (!last) return dump;
  if (last.lines && lineNo > last.lines.last + 2) {
    return { ...dump, warnings: [...dump.warnings, { severity: 'warning', code: 'input-cut', line: lineNo, message }] };
  }
  if (last.truncated && last.warnings.some((w) => w.code === 'truncated')) return dump;
  if (last.declaredTotal !== undefined && last.total >= last.declaredTotal) {
    // Every goroutine the header announces was read: the counts stand, only the last stack may be short.
    const note: Diagnostic = { severity: 'warning', code: 'input-cut', line: lineNo, message: `${message}: the last record's stack may be incomplete (the ${last.declaredTotal} goroutines the header states were all read)` };
    return { ...dump, snapshots: [...snaps.slice(0, -1), { ...last, warnings: [...last.warnings, note] }] };
  }
  const marked: Snapshot = {
    ...last,
    truncated: true,
    warnings: [...last.warnings, { severity: 'warning', code: 'truncated', line: lineNo, message: `${message}: the last goroutine may be partial or missing, counts are lower bounds` }],
  };
  return { ...dump, snapshots: [...snaps.slice(0, -1), marked] };
}
