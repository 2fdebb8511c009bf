/**
 * One large debug=2 file read by several threads. The file is cut at goroutine headers (a blank line,
 * then `goroutine N [`) into about equal parts; this thread reads the first part, workers read the
 * others as parts that continue a snapshot (`TextDumpReader` with `continues`), and
 * `TextDumpReader.absorb` merges them. The merge is exact or refused: it checks that nothing in a
 * later part depends on what came before its cut (a repeated goroutine id, a crash's thread dumps, a
 * log prefix, a cut-off stack, a warning…). Refused, the file is read whole in this thread, so the
 * result is always the one the path (pipeline.ts) gives: a strategy above the path, built from the
 * same text reader (text-input.ts), never a second way in.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { Dump } from '../model/dump.js';
import { readFileChunks, releaseChunk } from './source.js';
import type { ReadOptions } from './options.js';
import type { TextPart } from './text.js';
import { readInPlace, textReader } from './text-input.js';

/** Files smaller than this are read in one piece: starting workers costs more than it saves. */
export const MIN_CHUNKED_BYTES = 96 << 20;
/** Threads that read one file, this one included, at most: each holds its own heap (peak memory). */
export const MAX_THREADS = 4;
/** Bytes searched after each planned cut for a goroutine header. */
const WINDOW = 1 << 20;
const HEADER = Buffer.from('\n\ngoroutine ', 'latin1');

/**
 * Where to cut `path` (a regular file of `size` bytes) into at most `parts` parts: the offsets of the
 * `g` of a `goroutine N [` header that follows a blank line, about size/parts apart. Empty when the
 * file is not plain debug=2 text (gzip, protobuf, no such header near a cut).
 */
export function planCuts(path: string, size: number, parts: number): number[] {
  if (parts < 2) return [];
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(2);
    readSync(fd, head, 0, 2, 0);
    if (head[0] === 0x1f && head[1] === 0x8b) return [];
    const cuts: number[] = [];
    const window = Buffer.alloc(Math.min(WINDOW, Math.ceil(size / parts)));
    for (let k = 1; k < parts; k++) {
      const from = Math.floor((size * k) / parts);
      if (cuts.length > 0 && from <= cuts[cuts.length - 1]) continue;
      const n = readSync(fd, window, 0, window.length, from);
      const cut = headerAt(window.subarray(0, n));
      if (cut >= 0 && from + cut < size) cuts.push(from + cut);
    }
    return cuts;
  } finally {
    closeSync(fd);
  }
}

/** Offset of the first `goroutine <digit>…[` line after a blank line in `b`, or -1. */
function headerAt(b: Buffer): number {
  for (let i = b.indexOf(HEADER); i >= 0; i = b.indexOf(HEADER, i + 1)) {
    const start = i + 2;
    const d = b[start + HEADER.length - 2];
    const nl = b.indexOf(10, start);
    if (d >= 48 && d <= 57 && nl > 0 && b.toString('latin1', start, nl).includes(' [')) return start;
  }
  return -1;
}

/** Read bytes [start, end) of `path` as a later part (`continues`) of the file. */
export async function readPart(path: string, start: number, end: number, opts: ReadOptions, onBytes?: (bytes: number) => void): Promise<TextPart> {
  const { reader, splitter, longLines } = textReader(path, opts, true);
  let bytes = 0;
  for await (const c of readFileChunks(path, start, end, true)) {
    if (bytes === 0) readInPlace(reader, c);
    splitter.push(c);
    releaseChunk(c);
    bytes += c.byteLength;
    onBytes?.(bytes);
  }
  splitter.end();
  const part = reader.endPart();
  return longLines.length > 0 ? { ...part, mergeable: false } : part;
}

/** Reads bytes [start, end) of the file as a later part, one part at a time (a worker thread). */
export type PartRunner = (start: number, end: number, onBytes: (bytes: number) => void) => Promise<TextPart>;

/** A part is at least this large: a smaller file gets fewer parts (two at least). */
const MIN_PART_BYTES = 16 << 20;

/**
 * `path` read in parts (see the top of this file) by this thread and `runners` (one per other
 * thread), or undefined when it is not worth it or the parts cannot be merged exactly: then the
 * caller reads it whole.
 */
export async function readChunked(
  path: string,
  opts: ReadOptions,
  runners: readonly PartRunner[],
  minBytes = MIN_CHUNKED_BYTES,
): Promise<Dump | undefined> {
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) return undefined;
    size = st.size;
  } catch {
    return undefined;
  }
  if (size < minBytes || runners.length === 0) return undefined;
  // As many parts as threads. More, smaller parts would let a thread slowed by other load do less of
  // the work, but each reader costs a warm-up (~55M instructions: its trie, caches and the JIT's view
  // of a new instance); on the 250k debug=2 dump with two threads, 2 parts beat 4 and 8 in time
  // (2.5-3.2 s against 2.7-3.6 s) and in peak memory (137-147 MB against 157-173 MB).
  const threads = runners.length + 1;
  const parts = Math.max(2, Math.min(threads, Math.floor(size / MIN_PART_BYTES)));
  const cuts = planCuts(path, size, parts);
  return cuts.length === 0 ? undefined : readInParts(path, size, cuts, opts, runners);
}

/**
 * `path` (`size` bytes) cut at `cuts` (ascending offsets of goroutine headers), then merged; undefined
 * when the merge would not be exact. This thread reads the first part, then, like each runner, takes
 * the next part not yet taken until none is left.
 */
export async function readInParts(
  path: string,
  size: number,
  cuts: readonly number[],
  opts: ReadOptions,
  runners: readonly PartRunner[],
): Promise<Dump | undefined> {
  const ends = [...cuts, size];
  const done = new Array<number>(ends.length).fill(0);
  const progress = (i: number, b: number): void => {
    if (!opts.onProgress) return;
    done[i] = b;
    opts.onProgress(done.reduce((x, y) => x + y, 0));
  };
  const pieces: TextPart[] = new Array(cuts.length);
  let next = 0;
  let failed = false;
  const drain = async (run: PartRunner): Promise<void> => {
    while (!failed && next < cuts.length) {
      const i = next++;
      try {
        pieces[i] = await run(cuts[i], ends[i + 1], (b) => progress(i + 1, b));
        progress(i + 1, ends[i + 1] - cuts[i]);
      } catch {
        failed = true;
      }
    }
  };
  const remote = runners.map(drain);
  const { reader, splitter, longLines } = textReader(path, opts);
  let bytes = 0;
  for await (const c of readFileChunks(path, 0, cuts[0], true)) {
    if (bytes === 0) readInPlace(reader, c);
    splitter.push(c);
    releaseChunk(c);
    bytes += c.byteLength;
    progress(0, bytes);
  }
  splitter.end();
  await drain((start, end, onBytes) => readPart(path, start, end, opts, onBytes));
  await Promise.all(remote);
  if (failed || !reader.absorb(pieces)) return undefined;
  const dump = reader.end({});
  return longLines.length ? { ...dump, warnings: [...longLines, ...dump.warnings] } : dump;
}
