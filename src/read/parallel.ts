/**
 * Several inputs read at once: a small pool of worker threads (min(inputs, cores)), each reading whole
 * inputs with `readDump` and posting the `Dump` back. Dumps are plain data (interned frames are shared
 * objects, which structured clone keeps shared), so they cross the thread boundary as they are; an
 * `InputError` is rebuilt on this side with the same code and message. One input, one core, stdin
 * (`-`), small files (see `minWorkerBytes`) or no compiled worker script: read in this thread, as
 * `readDump` would — except one large debug=2 file, which this thread and workers read in parts
 * (chunked.ts, `partWorkers`).
 *
 * This file is also the worker's entry point (see the bottom): the worker imports it with
 * `workerData.leakscopeReadWorker` set.
 */
import { availableParallelism } from 'node:os';
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { Dump } from '../model/dump.js';
import { MAX_THREADS, MIN_CHUNKED_BYTES, readChunked, readPart, type PartRunner } from './chunked.js';
import { InputError, type InputErrorCode } from './errors.js';
import type { TextPart } from './text.js';
import { readDump, type ReadOptions } from './index.js';

export interface ParallelOptions extends ReadOptions {
  /** Worker threads at most (default: the number of cores). 1 reads in this thread. */
  maxWorkers?: number;
  /** Called with the bytes consumed so far over all inputs. */
  onProgress?: (bytes: number) => void;
  /**
   * Only files of at least this many bytes go to workers (default 4 MiB), and only when two or more
   * do: for small inputs, starting workers and copying Dumps back costs more than reading them here.
   */
  minWorkerBytes?: number;
  /** One file of at least this many bytes is read in parts on several threads (default MIN_CHUNKED_BYTES, chunked.ts). */
  minChunkedBytes?: number;
  /** The compiled script workers run (this module as JavaScript); default: this file, or dist/ when run from sources. */
  workerScript?: URL;
}

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
  // One large file: its parts on several threads (chunked.ts), if the file allows it.
  const minChunked = opts.minChunkedBytes ?? MIN_CHUNKED_BYTES;
  if (inputs.length === 1 && cores > 1 && script && inputs[0] !== '-' && fileSize(inputs[0]) >= minChunked) {
    const pool = partWorkers(inputs[0], script, cloneableOptions(opts), Math.min(cores, MAX_THREADS) - 1);
    const dump = await readChunked(inputs[0], opts, pool.runners, minChunked).catch(() => undefined);
    await pool.close();
    if (dump) return [{ ok: true, dump }];
  }
  const remote: number[] = [];
  const local: number[] = [];
  const minBytes = opts.minWorkerBytes ?? 4 << 20;
  inputs.forEach((input, i) => (input !== '-' && fileSize(input) >= minBytes ? remote : local).push(i));
  const poolSize = Math.min(remote.length, cores);
  if (poolSize <= 1 || !script) {
    local.push(...remote);
    remote.length = 0;
    local.sort((a, b) => a - b);
  }
  const readLocal = async (): Promise<void> => {
    for (const i of local) {
      try {
        results[i] = { ok: true, dump: await readDump(inputs[i], { ...opts, onProgress: (b) => progress(i, b) }) };
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
      const w = new Worker(script!, { workerData: { leakscopeReadWorker: true } });
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
        results[i] = { ok: true, dump: await readDump(inputs[i], opts) };
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
    const w = new Worker(script, { workerData: { leakscopeReadWorker: true }, resourceLimits: { maxYoungGenerationSizeMb: 4 } });
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

function partBuffers(part: TextPart): ArrayBuffer[] {
  return part.parts.flatMap((p) => [p.ids, p.builder.ids, p.builder.idGroups, p.builder.linkChildren, p.builder.linkCreators].map((a) => a.buffer as ArrayBuffer));
}

type WorkerRequest = { input: string; opts: ReadOptions; progress: boolean; part?: { start: number; end: number } };

type SerializedError = { input: true; source: string; code: InputErrorCode; message: string } | { input: false; message: string; stack?: string };
type WorkerReply =
  | { kind: 'progress'; bytes: number }
  | { kind: 'dump'; dump: Dump }
  | { kind: 'part'; part: TextPart }
  | { kind: 'error'; error: SerializedError };

function serialize(e: unknown): SerializedError {
  if (e instanceof InputError) return { input: true, source: e.source, code: e.code, message: e.message };
  if (e instanceof Error) return { input: false, message: e.message, ...(e.stack ? { stack: e.stack } : {}) };
  return { input: false, message: String(e) };
}

function revive(s: SerializedError): Error {
  if (s.input) {
    const prefix = `${s.source}: `;
    const e = new InputError(s.source, s.code, s.message.startsWith(prefix) ? s.message.slice(prefix.length) : s.message);
    if (e.message !== s.message) Object.defineProperty(e, 'message', { value: s.message });
    return e;
  }
  const e = new Error(s.message);
  if (s.stack) e.stack = s.stack;
  return e;
}

/** Options without functions and streams (they cannot be cloned; the worker never reads stdin). */
function cloneableOptions(opts: ParallelOptions): ReadOptions {
  const o: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(opts)) {
    if (typeof v === 'function' || k === 'stdin' || k === 'maxWorkers' || k === 'workerScript' || k === 'minWorkerBytes' || k === 'minChunkedBytes' || v === undefined) continue;
    o[k] = v;
  }
  return o as ReadOptions;
}

/** Size of a file input; -1 for URLs and what cannot be stat'ed (read in this thread). */
function fileSize(input: string): number {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(input)) return -1;
  try {
    const st = statSync(input);
    return st.isFile() ? st.size : -1;
  } catch {
    return -1;
  }
}

/**
 * The compiled script a worker runs: this file, when it is JavaScript. Run from TypeScript sources
 * (tests), the built copy in dist/ if there is one; else none (read in this thread).
 */
function workerScript(): URL | undefined {
  const self = new URL(import.meta.url);
  if (self.pathname.endsWith('.js')) return self;
  const built = new URL('../../dist/read/parallel.js', self);
  return existsSync(fileURLToPath(built)) ? built : undefined;
}

// The worker side: read each input it is sent, post back its Dump or its error.
if (!isMainThread && parentPort && (workerData as { leakscopeReadWorker?: boolean } | null)?.leakscopeReadWorker) {
  const port = parentPort;
  port.on('message', (m: WorkerRequest) => {
    let last = 0;
    const onProgress = m.progress
      ? (bytes: number): void => {
          // Every 4 MB: a message per chunk would cost more than it tells.
          if (bytes - last >= 4 << 20) {
            last = bytes;
            port.postMessage({ kind: 'progress', bytes } satisfies WorkerReply);
          }
        }
      : undefined;
    if (m.part) {
      readPart(m.input, m.part.start, m.part.end, m.opts, onProgress).then(
        // The id arrays (a few MB for a large part) move to the other thread instead of being copied.
        (part) => port.postMessage({ kind: 'part', part } satisfies WorkerReply, partBuffers(part)),
        (e: unknown) => port.postMessage({ kind: 'error', error: serialize(e) } satisfies WorkerReply),
      );
      return;
    }
    readDump(m.input, { ...m.opts, ...(onProgress ? { onProgress } : {}) }).then(
      (dump) => port.postMessage({ kind: 'dump', dump } satisfies WorkerReply),
      (e: unknown) => port.postMessage({ kind: 'error', error: serialize(e) } satisfies WorkerReply),
    );
  });
}
