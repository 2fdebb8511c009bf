/**
 * A support bundle: an archive of many files of which only the goroutine dumps are wanted.
 * Each file is read by content: a pprof protobuf is a goroutine profile or another profile (heap, CPU,
 * mutex, block, threadcreate: told apart by its sample types, src/read/pprof.ts), a text file is a
 * dump when the text reader finds one in it (a `…-previous.log` with a crash dump counts). Everything
 * else is skipped quietly and counted.
 */
import type { Dump } from '../model/dump.js';
import { gunzipSync } from 'node:zlib';
import { DEFAULT_MAX_DECOMPRESSED } from './decompress.js';
import { walkArchive, type ArchiveLimits, type SkippedMember, type WalkResult } from './archive.js';
import { InputError, isInputError } from './errors.js';
import type { ReadOptions } from './options.js';
import { readDumpFrom } from './pipeline.js';
import { ReadCache } from './read-cache.js';

export interface BundleOptions extends ReadOptions {
  /** Entries at most (default 100,000). */
  maxEntries?: number;
  /** Archives inside archives at most (default 4). */
  maxDepth?: number;
}

/** A goroutine dump found in a bundle. */
export interface BundleDump {
  /** `bundle.tar!dir/pod-goroutine-2026-11-30T14_05_33`: the dump's source name. */
  readonly name: string;
  /** The entry's path inside its own archive: process names and times are read from it. */
  readonly path: string;
  /** Order in the bundle. */
  readonly index: number;
  readonly dump: Dump;
}

/** How the files of a bundle were used: the line a person reads after the run. */
export interface BundleCounts {
  /** Every entry, folders and nested archives included. */
  entries: number;
  /** Files with a goroutine dump. */
  dumps: number;
  otherProfiles: number;
  logsWithoutDump: number;
  otherFiles: number;
  /** Files that could not be read (corrupt data of a compressed dump, an unreadable profile). */
  unreadable: number;
  /** Members skipped whole: corrupt xz/gzip/zip data, a bad inner tar header. */
  corrupt: number;
  /** Inner archives read part-way: corrupt after some of their entries. */
  cut: number;
  /** Inputs whose own (outer) stream broke: nothing after the break was read. */
  stopped: number;
}

export interface BundleRead {
  readonly dumps: BundleDump[];
  readonly counts: BundleCounts;
  /** One line each: a truncated archive, an unreadable entry. */
  readonly warnings: string[];
  /** What was not (fully) read and why, in archive order: skipped members, cut archives, unreadable files. */
  readonly skipped: SkippedMember[];
}

export function emptyCounts(): BundleCounts {
  return { entries: 0, dumps: 0, otherProfiles: 0, logsWithoutDump: 0, otherFiles: 0, unreadable: 0, corrupt: 0, cut: 0, stopped: 0 };
}

/** Read every goroutine dump in an archive; `file` when it is a file on disk (zip read in place). */
export async function readBundle(input: string, chunks: AsyncIterable<Uint8Array>, opts: BundleOptions = {}, file?: string): Promise<BundleRead> {
  const dumps: BundleDump[] = [];
  const counts = emptyCounts();
  const warnings: string[] = [];
  const unreadable: SkippedMember[] = [];
  const limits: Partial<ArchiveLimits> = {
    ...(opts.maxDecompressedBytes !== undefined ? { maxBytes: opts.maxDecompressedBytes } : {}),
    ...(opts.maxEntries !== undefined ? { maxEntries: opts.maxEntries } : {}),
    ...(opts.maxDepth !== undefined ? { maxDepth: opts.maxDepth } : {}),
  };
  const readOpts: ReadOptions = { ...opts };
  delete readOpts.onProgress;
  // The archive's files, read one after another, share what their reader learns (read-cache.ts).
  const cache = new ReadCache();
  const walked: WalkResult = await walkArchive(
    input,
    chunks,
    async (e) => {
      try {
        const dump = await readDumpFrom(e.name, await smallEntry(e.name, e.chunks, readOpts.maxDecompressedBytes), readOpts, cache);
        if (dump.snapshots.length === 0 && dump.races.length === 0) {
          counts.otherFiles++;
          return;
        }
        counts.dumps++;
        dumps.push({ name: e.name, path: e.path, index: e.index, dump });
      } catch (err) {
        const kind = skipKind(e.path, err);
        if (kind === 'fatal') throw err;
        counts[kind]++;
        if (kind === 'unreadable') unreadable.push({ name: e.name, why: whyOf(e.name, err) });
        if (kind === 'unreadable' && warnings.length < 20) warnings.push(`${isInputError(err) ? err.message : `${e.name}: ${(err as Error)?.message ?? String(err)}`}; skipped`);
      }
    },
    limits,
    file,
  );
  counts.entries = walked.entries;
  counts.corrupt = walked.skipped.length;
  counts.cut = walked.cut.length;
  counts.stopped = walked.stopped ? 1 : 0;
  const skipped = [...walked.skipped, ...walked.cut.map((c) => ({ name: c.name, why: `read part-way: ${c.why}` })), ...unreadable];
  if (walked.stopped) skipped.push({ name: input, why: walked.stopped });
  return { dumps, counts, warnings: [...walked.warnings, ...warnings], skipped };
}

/** Entries up to this size are read whole and gunzipped at once (most of a bundle's files are small). */
const SMALL_ENTRY = 8 * 1024 * 1024;

/**
 * A small entry as one buffer, gunzipped in this thread when it is gzip: a bundle holds hundreds of
 * small gzipped profiles, and a trip through zlib's thread pool for each left the main thread idle
 * more than it worked. A larger entry is streamed as it comes.
 */
async function smallEntry(name: string, chunks: AsyncIterable<Uint8Array>, maxBytes = DEFAULT_MAX_DECOMPRESSED): Promise<AsyncIterable<Uint8Array> | Uint8Array> {
  const it = chunks[Symbol.asyncIterator]();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const r = await it.next();
    if (r.done) break;
    parts.push(r.value);
    size += r.value.byteLength;
    if (size > SMALL_ENTRY) {
      // Too large to hold: what was read, then the rest, as a stream.
      return (async function* () {
        yield* parts;
        for (let n = await it.next(); !n.done; n = await it.next()) yield n.value;
      })();
    }
  }
  const whole = parts.length === 1 ? parts[0] : Buffer.concat(parts);
  if (whole[0] !== 0x1f || whole[1] !== 0x8b) return whole;
  try {
    return gunzipSync(whole, { maxOutputLength: Math.min(maxBytes, 2 ** 31 - 1) });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new InputError(name, 'too-large', `decompresses to more than ${maxBytes} bytes (a gzip bomb? raise with --max-decompressed)`);
    }
    // Corrupt or cut short: the streaming reader says which, and keeps what a cut gzip held.
    return whole;
  }
}

type SkipKind = 'otherProfiles' | 'logsWithoutDump' | 'otherFiles' | 'unreadable' | 'fatal';

/** Why a file of a bundle gave no dump; `fatal` for the limits, which end the whole read. */
function skipKind(path: string, err: unknown): SkipKind {
  if (!isInputError(err)) return 'unreadable';
  if (err.code === 'too-large' || err.code === 'too-many-snapshots') return 'fatal';
  if (err.code === 'wrong-profile') return 'otherProfiles';
  if (err.code === 'not-a-dump' || err.code === 'empty') return /\.log(?:\.\d+)?$|[-_.]log$/i.test(path) ? 'logsWithoutDump' : 'otherFiles';
  return 'unreadable';
}

function whyOf(name: string, err: unknown): string {
  const m = isInputError(err) ? err.message : (err as Error)?.message ?? String(err);
  return m.startsWith(`${name}: `) ? m.slice(name.length + 2) : m;
}

export function addCounts(into: BundleCounts, c: BundleCounts): void {
  for (const k of Object.keys(into) as (keyof BundleCounts)[]) into[k] += c[k];
}

export { InputError };
