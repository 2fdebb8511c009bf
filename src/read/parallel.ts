/**
 * Reading with threads, a strategy above the one path (pipeline.ts): several inputs read at once by a
 * small pool of worker threads (min(inputs, threads); threads by default only with three cores or more), each reading whole inputs through the path
 * (`readInput`, in worker.ts) and posting the `Dump` back; or one large debug=2 file read in parts by
 * this thread and workers (chunked.ts, `partWorkers`). Dumps are plain data (interned frames are
 * shared objects, which structured clone keeps shared), so they cross the thread boundary as they
 * are; an `InputError` is rebuilt on this side with the same code and message (worker-messages.ts).
 * One input, one thread, stdin (`-`), small files (see `minWorkerBytes`) or no compiled worker script:
 * read in this thread, through the same path.
 */
import { availableParallelism } from 'node:os';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Dump } from '../model/dump.js';
import { MAX_THREADS, MIN_CHUNKED_BYTES, readChunked, type PartRunner } from './chunked.js';
import type { ParallelOptions, ReadOptions } from './options.js';
import { readInput } from './pipeline.js';
import { ReadCache } from './read-cache.js';
import { regularFileSize } from './source.js';
import type { TextPart } from './text.js';
import { WORKER_DATA, revive, type WorkerReply, type WorkerRequest } from './worker-messages.js';

export type { ParallelOptions };

/** One input's outcome, in input order (`readDumpsSettled`). */
export type ReadOutcome = { ok: true; dump: Dump } | { ok: false; error: unknown };

/** Read every input; Dumps in input order. Rejects with the first failing input's error (in input order). */
export async function readDumps(inputs: readonly string[], opts: ParallelOptions = {}): Promise<Dump[]> {
  const out = await readDumpsSettled(inputs, opts);
  return out.map((r) => {
    if (!r.ok) throw r.error;
    return r.dump;
  });
}

/** Read every input; each one's Dump or error, in input order (a bad input does not stop the others). */
export async function readDumpsSettled(inputs: readonly string[], opts: ParallelOptions = {}): Promise<ReadOutcome[]> {
  const results: ReadOutcome[] = new Array(inputs.length);
  const done = new Array<number>(inputs.length).fill(0);
  const report = opts.onProgress;
  const progress = (i: number, bytes: number): void => {
    if (!report) return;
    done[i] = bytes;
    let sum = 0;
    for (const b of done) sum += b;
    report(sum);
  };
  const cores = Math.max(1, opts.maxWorkers ?? availableParallelism());
  const script = opts.workerScript ?? workerScript();
  // Threads by default only with three cores or more. On two, a reader in a worker starts cold and
  // competes with the file reads and the collector for the same cores, and its Dump is copied across:
  // one large file in parts (chunked.ts) took as long as one thread on the 250k-goroutine debug=2
  // bench dump (1.38-1.76 s against 1.34-1.60 s) for ~0.7 s more CPU and ~25 MB more memory; `trend`
  // over four files read by two workers took 0.72 s against 0.53 s in this thread (copies of the 25k
  // bench dump), and 2.4 s against 1.4 s (copies of the 20,000-distinct-stacks dump).
  const threads = opts.maxWorkers !== undefined || cores > 2 ? cores : 1;
  const minChunked = opts.minChunkedBytes ?? MIN_CHUNKED_BYTES;
  if (inputs.length === 1 && threads > 1 && script && inputs[0] !== '-' && regularFileSize(inputs[0]) >= minChunked) {
    const pool = partWorkers(inputs[0], script, cloneableOptions(opts), Math.min(threads, MAX_THREADS) - 1);
    const dump = await readChunked(inputs[0], opts, pool.runners, minChunked).catch(() => undefined);
    await pool.close();
    if (dump) return [{ ok: true, dump }];
  }
  const remote: number[] = [];
  const local: number[] = [];
  const minBytes = opts.minWorkerBytes ?? 4 << 20;
  inputs.forEach((input, i) => (input !== '-' && regularFileSize(input) >= minBytes ? remote : local).push(i));
  const poolSize = Math.min(remote.length, threads);
  if (poolSize <= 1 || !script) {
    local.push(...remote);
    remote.length = 0;
    local.sort((a, b) => a - b);
  }
  // The inputs this thread reads, one after another, share what their reader learns (read-cache.ts).
  const cache = new ReadCache();
  const readLocal = async (): Promise<void> => {
    for (const i of local) {
      try {
        results[i] = { ok: true, dump: await readInput(inputs[i], { ...opts, onProgress: (b) => progress(i, b) }, cache) };
      } catch (error) {
        results[i] = { ok: false, error };
      }
    }
  };
  if (remote.length === 0) {
    await readLocal();
    return results;
  }
  const cloneable = cloneableOptions(opts);
  let next = 0;
  const runWorker = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const w = new Worker(script!, { workerData: WORKER_DATA });
      let current = -1;
      const feed = (): void => {
        if (next >= remote.length) {
          current = -1;
          void w.terminate().then(() => resolve(), reject);
          return;
        }
        current = remote[next++];
        w.postMessage({ input: inputs[current], opts: cloneable, progress: report !== undefined });
      };
      w.on('message', (m: WorkerReply) => {
        if (m.kind === 'progress') {
          progress(current, m.bytes);
          return;
        }
        results[current] = m.kind === 'dump' ? { ok: true, dump: m.dump } : { ok: false, error: m.kind === 'error' ? revive(m.error) : new Error('unexpected reply') };
        feed();
      });
      w.on('error', () => {
        // The worker could not start or died: its input and those it did not take are read here.
        current = -1;
        resolve();
      });
      w.on('exit', () => resolve());
      feed();
    });
  const pool: Promise<void>[] = [];
  for (let k = 0; k < poolSize; k++) pool.push(runWorker());
  await Promise.all([...pool, readLocal()]);
  // Inputs a dead worker never took: read here.
  for (const i of remote) {
    if (results[i] === undefined) {
      try {
        results[i] = { ok: true, dump: await readInput(inputs[i], opts, cache) };
      } catch (error) {
        results[i] = { ok: false, error };
      }
    }
  }
  return results;
}

/**
 * `n` worker threads that read parts of `input`, each a `PartRunner` (one part at a time); `close`
 * ends them. A worker that fails or exits rejects its part and every later one.
 */
export function partWorkers(input: string, script: URL, opts: ReadOptions, n: number): { runners: PartRunner[]; close: () => Promise<void> } {
  const workers: Worker[] = [];
  const runners = Array.from({ length: n }, (): PartRunner => {
    // A part's garbage is lines and their pieces, dead within a scavenge: a small young generation
    // keeps each worker's share of peak memory small (measured: 4 MB, -25 MB per worker, no slower).
    const w = new Worker(script, { workerData: WORKER_DATA, resourceLimits: { maxYoungGenerationSizeMb: 4 } });
    workers.push(w);
    let dead: Error | undefined;
    let pending: { resolve: (p: TextPart) => void; reject: (e: unknown) => void; onBytes: (b: number) => void } | undefined;
    const fail = (e: Error): void => {
      dead ??= e;
      const p = pending;
      pending = undefined;
      p?.reject(e);
    };
    w.on('message', (m: WorkerReply) => {
      const p = pending;
      if (!p) return;
      if (m.kind === 'progress') {
        p.onBytes(m.bytes);
        return;
      }
      pending = undefined;
      if (m.kind === 'part') p.resolve(m.part);
      else p.reject(m.kind === 'error' ? revive(m.error) : new Error('unexpected reply'));
    });
    w.on('error', fail);
    w.on('exit', () => fail(new Error('worker exited')));
    return (start, end, onBytes) =>
      new Promise<TextPart>((resolve, reject) => {
        if (dead) {
          reject(dead);
          return;
        }
        pending = { resolve, reject, onBytes };
        w.postMessage({ input, opts, progress: true, part: { start, end } } satisfies WorkerRequest);
      });
  });
  return { runners, close: async () => void (await Promise.all(workers.map((w) => w.terminate()))) };
}

/**
 * Options without functions, streams and the signal (they cannot be cloned; the worker never reads
 * stdin, and reads only files, which a signal does not stop).
 */
function cloneableOptions(opts: ParallelOptions): ReadOptions {
  const o: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(opts)) {
    if (typeof v === 'function' || k === 'stdin' || k === 'signal' || k === 'maxWorkers' || k === 'workerScript' || k === 'minWorkerBytes' || k === 'minChunkedBytes' || v === undefined) continue;
    o[k] = v;
  }
  return o as ReadOptions;
}

/**
 * The compiled script a worker runs: worker.js beside this file, when this file is JavaScript (in the
 * CLI bundle, `import.meta.url` still names dist/read/parallel.js: scripts/bundle-cli.mjs). Run from
 * TypeScript sources (tests), the built copy in dist/ if there is one; else none (read in this thread).
 */
function workerScript(): URL | undefined {
  const self = new URL(import.meta.url);
  if (self.pathname.endsWith('.js')) return new URL('./worker.js', self);
  const built = new URL('../../dist/read/worker.js', self);
  return existsSync(fileURLToPath(built)) ? built : undefined;
}
