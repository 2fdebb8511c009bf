/**
 * readDump(input): open → gunzip when the bytes say so → protobuf or text by content → one `Dump`.
 * The only place that knows every format; each format has its own reader file.
 */
import type { Dump, Diagnostic } from '../model/dump.js';
import { DEFAULT_MAX_DECOMPRESSED, looksLikeProtobuf, maybeGunzip } from './decompress.js';
import { InputError } from './errors.js';
import { LineSplitter } from './lines.js';
import { readPprof } from './pprof.js';
import { openSource, type SourceOptions } from './source.js';
import { TextDumpReader, type TextReadOptions } from './text.js';

export interface ReadOptions extends SourceOptions, TextReadOptions {
  /** Decompressed bytes at most (gzip bombs); default 4 GiB. */
  maxDecompressedBytes?: number;
  /** Longest line kept; longer lines are cut and reported. Default 1 MiB. */
  maxLineLength?: number;
  /** Protobuf profiles larger than this are refused (they are held whole to decode); default 512 MiB. */
  maxProtobufBytes?: number;
  /** Called with the bytes consumed so far (before decompression is not known: after). */
  onProgress?: (bytes: number) => void;
}

/** Read a file path, `-` (stdin) or an http(s) URL. */
export async function readDump(input: string, opts: ReadOptions = {}): Promise<Dump> {
  const src = await openSource(input, opts);
  return readDumpFrom(src.name, src.chunks, opts);
}

/** Read bytes from any chunk stream (or one buffer / string) under the given source name. */
export async function readDumpFrom(
  source: string,
  input: AsyncIterable<Uint8Array> | Uint8Array | string,
  opts: ReadOptions = {},
): Promise<Dump> {
  const chunks = toChunks(input);
  let gzipTruncated = false;
  const content = maybeGunzip(source, chunks, opts.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED, () => {
    gzipTruncated = true;
  });
  const it = content[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) throw new InputError(source, 'empty', 'is empty');
  const rest: AsyncIterable<Uint8Array> = { [Symbol.asyncIterator]: () => it };

  if (looksLikeProtobuf(first.value)) {
    const max = opts.maxProtobufBytes ?? 512 * 1024 * 1024;
    const parts: Uint8Array[] = [first.value];
    let size = first.value.byteLength;
    for await (const c of rest) {
      size += c.byteLength;
      if (size > max) throw new InputError(source, 'too-large', `protobuf profile larger than ${max} bytes`);
      parts.push(c);
    }
    const snapshot = readPprof(source, Buffer.concat(parts), { truncated: gzipTruncated });
    return { source, snapshots: [snapshot], races: [], warnings: [] };
  }

  const reader = new TextDumpReader(source, opts);
  const longLines: Diagnostic[] = [];
  const splitter = new LineSplitter(
    (line, no) => reader.line(line, no),
    opts.maxLineLength ?? 1 << 20,
    (no, length) => {
      if (longLines.length < 20) {
        longLines.push({ severity: 'warning', code: 'line-too-long', line: no, message: `line ${no} is ${length} characters long; cut to ${opts.maxLineLength ?? 1 << 20}` });
      }
    },
  );
  let bytes = 0;
  splitter.push(first.value);
  bytes += first.value.byteLength;
  for await (const c of rest) {
    splitter.push(c);
    bytes += c.byteLength;
    opts.onProgress?.(bytes);
  }
  splitter.end();
  const dump = reader.end({ inputTruncated: gzipTruncated });
  return longLines.length ? { ...dump, warnings: [...longLines, ...dump.warnings] } : dump;
}

async function* toChunks(input: AsyncIterable<Uint8Array> | Uint8Array | string): AsyncIterable<Uint8Array> {
  if (typeof input === 'string') {
    yield Buffer.from(input, 'utf8');
  } else if (input instanceof Uint8Array) {
    yield input;
  } else {
    yield* input;
  }
}

export { InputError, isInputError } from './errors.js';
export type { InputErrorCode } from './errors.js';
