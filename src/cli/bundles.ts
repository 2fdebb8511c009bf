/**
 * Archives among the inputs: told apart by their first bytes, read as a stream in the main
 * thread (src/read/bundle.ts), each goroutine dump in them becoming one loaded input named
 * `archive!entry`, placed in its process (src/cli/processes.ts). Plain files keep the reading they had.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import type { Dump } from '../model/dump.js';
import { relative } from 'node:path';
import { Readable } from 'node:stream';
import { analyze } from '../analyze/index.js';
import { isArchiveHead, peek, type SkippedMember } from '../read/archive.js';
import { describeEntries } from '../report/fleet.js';
import { addCounts, emptyCounts, readBundle, type BundleCounts, type BundleOptions } from '../read/bundle.js';
import { readFileChunks, regularFileSize } from '../read/source.js';
import type { InputFile } from './inputs.js';
import { note, warn } from './output.js';
import type { LoadedInput, Setup } from './types.js';
import { containerName, placeOf, type Placement } from './processes.js';

/** Bytes looked at to tell an archive (a gzipped tar shows its tar header within a few KiB). */
const HEAD_BYTES = 64 * 1024;

/** True when the file's first bytes say it is an archive (a missing file is not: the reader says so). */
export function isArchiveFile(path: string): boolean {
  // Only a regular file is looked into. Opening a named pipe (FIFO) takes its writer, closing it again
  // left the writer without a reader (killed by SIGPIPE), and the reading that followed waited for
  // another writer forever; a pipe cannot be read at an offset anyway (`readSync` at 0: ESPIPE).
  if (regularFileSize(path) < 0) return false;
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buf = Buffer.alloc(HEAD_BYTES);
    const n = readSync(fd, buf, 0, HEAD_BYTES, 0);
    return isArchiveHead(buf.subarray(0, n));
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Stdin read far enough to tell an archive; `rest` replays what was read, for the dump reader. */
export async function peekStdin(stdin: NodeJS.ReadableStream): Promise<{ archive: boolean; rest: NodeJS.ReadableStream }> {
  const { head, all } = await peek(stdin as AsyncIterable<Uint8Array>, HEAD_BYTES);
  return { archive: isArchiveHead(head), rest: Readable.from(all, { objectMode: false }) };
}

/** Every goroutine dump of an archive input, analyzed; the counts go to stderr as one line. */
export async function loadBundle(
  input: InputFile,
  s: Setup,
  opts: BundleOptions,
  stdin?: NodeJS.ReadableStream,
): Promise<{ loaded: LoadedInput[]; counts: BundleCounts; skipped: SkippedMember[] }> {
  const chunks = stdin ? (stdin as AsyncIterable<Uint8Array>) : readFileChunks(input.path);
  const read = await readBundle(input.path, chunks, opts, stdin ? undefined : input.path);
  for (const w of read.warnings.slice(0, 10)) warn(w);
  if (read.warnings.length > 10) warn(`${input.path}: ${read.warnings.length - 10} more unreadable entries`);
  const why = read.skipped.length ? ` (${read.skipped.slice(0, 5).map((x) => `${x.name}: ${x.why}`).join('; ')}${read.skipped.length > 5 ? `; … ${read.skipped.length - 5} more` : ''})` : '';
  note(`leakscope: ${input.path}: ${describeEntries(read.counts)}${why}`);
  // Entries with neither a pod name nor a folder belong to the archive, named like an unpacked folder.
  const fallback = containerName(input.path);
  const loaded = read.dumps.map((d): LoadedInput => {
    const place = leakProfilesApart(placeOf(d.path, fallback), d.dump);
    return {
      path: d.name,
      dump: d.dump,
      analyses: d.dump.snapshots.map((snap) => analyze(snap, s.analyzeOptions)),
      ...placed(place),
    };
  });
  return { loaded, counts: read.counts, skipped: read.skipped };
}

/**
 * A process's goroutineleak profiles (debug=0/1: leaked goroutines only) are a series of their own:
 * next to its goroutine profiles they would read as every other group vanishing and coming back.
 */
function leakProfilesApart(p: Placement, dump: Dump): Placement {
  const leak = dump.snapshots.length > 0 && dump.snapshots.every((s) => s.profile === 'goroutineleak');
  return leak ? { ...p, process: `${p.process} (goroutineleak)` } : p;
}

/** The process of a plain file found in a folder or glob; none for a file named on the command line. */
export function placeFile(input: InputFile): Placement | undefined {
  if (!input.listed) return undefined;
  if (input.root) return placeOf(relative(input.root, input.path), containerName(input.root));
  const parts = input.path.split('/');
  return placeOf(input.path, parts.length > 1 ? parts[parts.length - 2] : '.');
}

export function placed(p: Placement | undefined): Pick<LoadedInput, 'process' | 'entryTime'> {
  if (!p) return {};
  return { process: p.process, ...(p.time !== undefined ? { entryTime: p.time } : {}) };
}

/** All bundles' counts together, for a run over several archives. */
export function totalCounts(list: readonly BundleCounts[]): BundleCounts {
  const t = emptyCounts();
  for (const c of list) addCounts(t, c);
  return t;
}
