/**
 * The one way through the read stage: open the source (source.ts) → gunzip when the bytes say so
 * (decompress.ts) → sniff the format → the format's reader (pprof-input.ts or text-input.ts) → the
 * snapshot builders behind it → one `Dump`. Every input takes this path; reading one file in parts
 * (chunked.ts), several files on threads (parallel.ts, worker.ts) and the files of an archive
 * (bundle.ts) are strategies above it that call it, and index.ts, the stage's door, chooses among them.
 */
import type { Dump } from '../model/dump.js';
import { DEFAULT_MAX_DECOMPRESSED, looksLikeProtobuf, maybeGunzip } from './decompress.js';
import { InputError } from './errors.js';
import type { ReadOptions } from './options.js';
import { looksLikeListing, readListing } from './listing/index.js';
import { readProtobuf } from './pprof-input.js';
import type { ReadCache } from './read-cache.js';
import { openSource } from './source.js';
import { readText } from './text-input.js';

/**
 * Open a file path, `-` (stdin) or an http(s) URL, and read it whole in this thread. `cache`: what
 * the inputs read before on this thread taught the reader (read-cache.ts); the Dump is the same.
 */
export async function readInput(input: string, opts: ReadOptions = {}, cache?: ReadCache): Promise<Dump> {
  const src = await openSource(input, opts);
  return readDumpFrom(src.name, src.chunks, opts, cache, src.endedEarly);
}

/**
 * Read bytes from any chunk stream (or one buffer / string) under the given source name.
 * `sourceEndedEarly`: once the chunks have ended, why they ended before the source's end, if they did
 * (`OpenedSource.endedEarly`): what came is read, flagged as cut, with the reason as a warning.
 */
export async function readDumpFrom(
  source: string,
  input: AsyncIterable<Uint8Array> | Uint8Array | string,
  opts: ReadOptions = {},
  cache?: ReadCache,
  sourceEndedEarly?: () => string | undefined,
): Promise<Dump> {
  let gzipTruncated = false;
  const content = maybeGunzip(source, toChunks(input), opts.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED, () => {
    gzipTruncated = true;
  });
  const it = content[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) throw new InputError(source, 'empty', 'is empty');
  const rest: AsyncIterable<Uint8Array> = { [Symbol.asyncIterator]: () => it };
  const read = looksLikeProtobuf(first.value) ? readProtobuf : looksLikeListing(first.value) ? readListing : undefined;
  // Why the content ended before its end: the source's word first (a download broken off also cuts
  // the gzip stream it carried), else a gzip stream that ends early.
  const endedEarly = (): string | undefined => sourceEndedEarly?.() ?? (gzipTruncated ? 'the compressed input ends early' : undefined);
  try {
    if (read !== undefined) return withSourceCut(await read(source, first.value, rest, () => endedEarly() !== undefined, opts), sourceEndedEarly);
    // Taken out of the cache while read: a read that fails gives back nothing it may have half-made.
    const known = cache?.take();
    const dump = await readText(source, first.value, rest, endedEarly, opts, known);
    if (known !== undefined) cache!.keep(known);
    return withSourceCut(dump, sourceEndedEarly);
  } catch (e) {
    // A page served as text/plain or saved to a file: say what it is rather than "no dump found".
    if (e instanceof InputError && e.code === 'not-a-dump' && looksLikeHtml(first.value)) {
      throw new InputError(source, 'not-a-dump', 'is an HTML page, not a goroutine profile: a login page or a wrong path?');
    }
    throw e;
  }
}

/** `dump` with the reason its source ended early as a warning of its own, when it did. */
function withSourceCut(dump: Dump, sourceEndedEarly: (() => string | undefined) | undefined): Dump {
  const why = sourceEndedEarly?.();
  if (why === undefined) return dump;
  return { ...dump, warnings: [...dump.warnings, { severity: 'warning', code: 'input-cut', message: `${why}: what came is read, counts are lower bounds` }] };
}

function looksLikeHtml(head: Uint8Array): boolean {
  const t = Buffer.from(head.subarray(0, 512)).toString('utf8').replace(/^\uFEFF/, '').trimStart().toLowerCase();
  return /^<(?:!doctype html|html|head|body|meta|title|!--)/.test(t);
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
