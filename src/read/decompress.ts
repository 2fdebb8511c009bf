/**
 * Undo gzip when the bytes say so (magic 1f 8b), whatever the file is called: real dumps arrive as
 * gzip named `.txt` and text named `.pprof`. Output is capped so a gzip bomb ends in a clear error.
 */
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { InputError } from './errors.js';

export const DEFAULT_MAX_DECOMPRESSED = 4 * 1024 * 1024 * 1024;

/** Peeks the first chunk, then yields the content, gunzipped when it starts with the gzip magic. */
export async function* maybeGunzip(
  source: string,
  chunks: AsyncIterable<Uint8Array>,
  maxBytes = DEFAULT_MAX_DECOMPRESSED,
  onTruncated?: () => void,
): AsyncIterable<Uint8Array> {
  const it = chunks[Symbol.asyncIterator]();
  let first = await it.next();
  while (!first.done && first.value.byteLength === 0) first = await it.next();
  if (first.done) return;
  const head = first.value;
  const rest: AsyncIterable<Uint8Array> = { [Symbol.asyncIterator]: () => it };
  if (!(head[0] === 0x1f && (head.byteLength < 2 || head[1] === 0x8b))) {
    yield head;
    yield* rest;
    return;
  }
  yield* gunzip(source, head, rest, maxBytes, onTruncated);
}

async function* gunzip(
  source: string,
  head: Uint8Array,
  rest: AsyncIterable<Uint8Array>,
  maxBytes: number,
  onTruncated?: () => void,
): AsyncIterable<Uint8Array> {
  async function* all(): AsyncIterable<Uint8Array> {
    yield head;
    yield* rest;
  }
  const src = Readable.from(all(), { objectMode: false });
  const z = createGunzip();
  let readError: unknown;
  src.on('error', (e) => {
    readError = e;
    z.destroy(e);
  });
  src.pipe(z);
  let produced = 0;
  try {
    for await (const b of z as AsyncIterable<Buffer>) {
      produced += b.byteLength;
      if (produced > maxBytes) {
        throw new InputError(source, 'too-large', `decompresses to more than ${maxBytes} bytes (a gzip bomb? raise with --max-decompressed)`);
      }
      yield b;
    }
  } catch (e) {
    if (e instanceof InputError) throw e;
    if (readError instanceof InputError) throw readError;
    const code = (e as NodeJS.ErrnoException).code;
    // A gzip cut short still yields what it held: the caller reports the input as truncated.
    if (code === 'Z_BUF_ERROR' && onTruncated && produced > 0) {
      onTruncated();
      return;
    }
    if (code === 'Z_BUF_ERROR') throw new InputError(source, 'bad-gzip', 'gzip data ends early (truncated file?)');
    throw new InputError(source, 'bad-gzip', `corrupt gzip data (${code ?? (e as Error).message})`);
  } finally {
    src.destroy();
    z.destroy();
  }
}

/** True when the decompressed head looks like a protobuf pprof Profile rather than text. */
export function looksLikeProtobuf(head: Uint8Array): boolean {
  // A Profile starts with field 1 (sample_type, length-delimited): tag byte 0x0a. Text can start
  // with '\n' too, so also require the control bytes a protobuf varint stream is full of.
  if (head.byteLength < 2 || head[0] !== 0x0a) return false;
  const n = Math.min(head.byteLength, 512);
  for (let i = 0; i < n; i++) {
    const b = head[i];
    if (b < 0x09 || (b > 0x0d && b < 0x20)) return true;
  }
  return false;
}
