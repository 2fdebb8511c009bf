/**
 * Gzip of a small input inflated in one synchronous call. A support bundle holds hundreds of
 * profiles of a few KB each, and a zlib stream for each waited on zlib's thread pool and on its own
 * plumbing: the reading thread sat idle for a quarter of a bundle's `check`. Anything else goes the
 * stream way the caller gives, over the same bytes: a larger input, output past the cap, and every
 * error (corrupt data, a cut gzip that still yields what it held, a failed read), so that those read
 * exactly as they did.
 */

/** Inputs of at most this many bytes are offered whole. */
export const SMALL_GZIP_INPUT = 1 << 20;
/** Most bytes a whole inflation may give (past it, the stream way: bounded memory). */
export const SMALL_GZIP_OUTPUT = 16 << 20;

/**
 * What `stream(chunks)` yields, but for an input of at most SMALL_GZIP_INPUT bytes, which is first
 * given whole to `whole`: what it returns (undefined: it could not) is yielded instead, when not
 * empty. `stream` is given every chunk of `chunks` in order, and a read error where it happened.
 */
export async function* inflateSmallWhole(
  chunks: AsyncIterable<Uint8Array>,
  whole: (input: Uint8Array) => Uint8Array | undefined,
  stream: (input: AsyncIterable<Uint8Array>) => AsyncIterable<Uint8Array>,
): AsyncIterable<Uint8Array> {
  const taken: Uint8Array[] = [];
  let size = 0;
  const it = chunks[Symbol.asyncIterator]();
  let ended = false;
  let failed: { error: unknown } | undefined;
  try {
    while (size <= SMALL_GZIP_INPUT) {
      const r = await it.next();
      if (r.done) {
        ended = true;
        break;
      }
      taken.push(r.value);
      size += r.value.byteLength;
    }
  } catch (error) {
    failed = { error };
  }
  if (ended) {
    const out = whole(taken.length === 1 ? taken[0] : Buffer.concat(taken, size));
    if (out !== undefined) {
      if (out.byteLength > 0) yield out;
      return;
    }
  }
  async function* again(): AsyncIterable<Uint8Array> {
    let through = false;
    try {
      yield* taken;
      if (failed !== undefined) throw failed.error;
      if (!ended) yield* { [Symbol.asyncIterator]: () => it };
      through = true;
    } finally {
      // Given up early (the reader stopped), maybe still among the chunks read ahead: the source is
      // ended too (a file closed), as it is when the stream stops while reading it.
      if (!through && !ended && failed === undefined) await it.return?.();
    }
  }
  yield* stream(again());
}

/** `gunzipSync` of `input` with at most `maxOutput` bytes out, or undefined on any error (or past it). */
export function gunzipWhole(gunzipSync: typeof import('node:zlib').gunzipSync, input: Uint8Array, maxOutput: number): Buffer | undefined {
  try {
    return gunzipSync(input, { maxOutputLength: maxOutput });
  } catch {
    return undefined;
  }
}
