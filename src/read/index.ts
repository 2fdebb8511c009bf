/**
 * The read stage's one door. `readDump(input)` chooses how to read: one large plain file with more
 * than one thread is read in parts (chunked.ts, on worker threads: parallel.ts); every other input
 * takes the one path (pipeline.ts: open → gunzip → sniff → the format's reader → one `Dump`).
 * `readDumps` reads several inputs at once. No file of src/read/ imports this one: the strategies sit
 * above the path and call it, they never come back through here.
 */
import type { Dump } from '../model/dump.js';
import { MIN_CHUNKED_BYTES } from './chunked.js';
import type { ParallelOptions } from './options.js';
import { readInput } from './pipeline.js';
import type { ReadOutcome } from './parallel.js';
import { regularFileSize } from './source.js';

/**
 * Read a file path, `-` (stdin) or an http(s) URL. A file of at least `minChunkedBytes` (96 MiB) is
 * read in parts on up to `maxWorkers` threads when it allows (the result is the same).
 */
export async function readDump(input: string, opts: ParallelOptions = {}): Promise<Dump> {
  if ((opts.maxWorkers ?? 2) > 1 && regularFileSize(input) >= (opts.minChunkedBytes ?? MIN_CHUNKED_BYTES)) {
    // Worker threads load only for a large file: a start of the CLI on a small dump does not pay for them.
    const { readDumps } = await import('./parallel.js');
    return (await readDumps([input], opts))[0];
  }
  return readInput(input, opts);
}

/** Read several inputs at once (parallel.ts); each one's Dump or error, in input order. */
export async function readDumpsSettled(inputs: readonly string[], opts: ParallelOptions = {}): Promise<ReadOutcome[]> {
  const parallel = await import('./parallel.js');
  return parallel.readDumpsSettled(inputs, opts);
}

export { readDumpFrom } from './pipeline.js';
export type { ReadOutcome } from './parallel.js';
export { InputError, isInputError } from './errors.js';
export type { InputErrorCode } from './errors.js';
export type { ParallelOptions, ReadOptions } from './options.js';
