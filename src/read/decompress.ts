/**
 * Undo gzip when the bytes say so (magic 1f 8b), whatever the file is called: real dumps arrive as
 * gzip named `.txt` and text named `.pprof`. Output is capped so a gzip bomb ends in a clear error.
 */
import { Readable } from 'node:stream';
import { InputError } from './errors.js';
import { chunksUntilError } from './stream-chunks.js';
import { SMALL_GZIP_OUTPUT, gunzipWhole, inflateSmallWhole } from './small-gzip.js';

let zlibModule: Promise<typeof import('node:zlib')> | undefined;

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
  // zlib loads only for gzip input: a start of the CLI on a text dump does not pay for it. Once: the
  // bundled command line copies the module's exports at each `import()` (a series of gzip inputs).
  const { createGunzip, gunzipSync } = await (zlibModule ??= import('node:zlib'));
  // Whole when small (small-gzip.ts): what `maxBytes` allows, at most.
  const whole = (input: Uint8Array) => gunzipWhole(gunzipSync, input, Math.min(maxBytes, SMALL_GZIP_OUTPUT));
  yield* inflateSmallWhole(all(), whole, (input) => gunzipStream(createGunzip, source, input, maxBytes, onTruncated));
}

/** `input` gunzipped as a stream, at most `maxBytes` of it; a cut gzip yields what it held (`onTruncated`). */
async function* gunzipStream(
  createGunzip: typeof import('node:zlib').createGunzip,
  source: string,
  input: AsyncIterable<Uint8Array>,
  maxBytes: number,
  onTruncated?: () => void,
): AsyncIterable<Uint8Array> {
  const src = Readable.from(input, { objectMode: false });
  const z = createGunzip();
  let readError: unknown;
  src.on('error', (e) => {
    readError = e;
    z.destroy(e);
  });
  src.pipe(z);
  let produced = 0;
  try {
    for await (const b of chunksUntilError(z)) {
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
  // Go writes period_type (field 11, tag 0x5a) and period first, not sample_type (0x0a), so the first
  // byte alone says little: walk the head as protobuf fields (Profile fields are 1..15, wire type
  // varint or length-delimited), and also require the control bytes a varint stream is full of, which
  // text almost never has.
  const n = Math.min(head.byteLength, 512);
  if (n < 2) return false;
  let control = false;
  for (let i = 0; i < n; i++) {
    const b = head[i];
    if (b < 0x09 || (b > 0x0d && b < 0x20)) {
      control = true;
      break;
    }
  }
  if (!control) return false;
  let p = 0;
  let fields = 0;
  while (p < n && fields < 64) {
    const tag = head[p++];
    const field = tag >> 3;
    const wire = tag & 7;
    if (field < 1 || field > 15 || (wire !== 0 && wire !== 2)) return false;
    let v = 0;
    let shift = 0;
    let b: number;
    do {
      if (p >= n) return fields > 0;
      b = head[p++];
      if (shift < 35) v += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (shift > 70) return false;
    } while (b & 0x80);
    if (wire === 2) p += v;
    fields++;
  }
  return fields > 0;
}
