/**
 * Shared by the robustness tests: the fast-check seed and run count (printed, replayable), a bounded
 * runner (time and memory per case), the real inputs (samples + ../shared/corpus) and an independent
 * count of the goroutines a text says it holds.
 *
 * Replay a failure: `FC_SEED=<seed printed> FC_RUNS=<n> npx vitest run test/robustness`.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { constants as zlibConstants, gunzipSync } from 'node:zlib';
import { expect } from 'vitest';
import type { Dump } from '../../src/model/dump.js';
import { InputError } from '../../src/read/errors.js';
import { readDumpFrom, type ReadOptions } from '../../src/read/index.js';
import { CORPUS, SAMPLES, corpusFiles, sampleCases } from '../helpers/paths.js';
import { readdirSync } from 'node:fs';

/** Fixed by default so CI is reproducible; `FC_SEED=random` picks one (and prints it). */
export const SEED: number = (() => {
  const env = process.env.FC_SEED;
  if (env === 'random') return Math.floor(Math.random() * 0x7fffffff);
  if (env && /^-?\d+$/.test(env)) return Number(env);
  return 20240808;
})();
/** Cases per property (default 25: the robustness suite stays well under 60 s on 2 cores). */
export const RUNS: number = Math.max(1, Number(process.env.FC_RUNS ?? 25) || 25);
/** Wall-clock budget of one case: anything slower is a hang (generous; not a speed assertion). */
export const CASE_TIMEOUT_MS: number = Number(process.env.FC_CASE_TIMEOUT_MS ?? 10_000);

let printed = false;
export function printSeed(suite: string): void {
  if (!printed) {
    console.log(`[robustness] fast-check seed=${SEED} runs=${RUNS} (replay: FC_SEED=${SEED} FC_RUNS=${RUNS}) — ${suite}`);
    printed = true;
  }
}

export const fcParams = { seed: SEED, numRuns: RUNS, endOnFailure: true, timeout: CASE_TIMEOUT_MS } as const;

/** Memory a case may use: this multiple of its input, plus a fixed allowance. Generous by design. */
export const MEMORY_FACTOR = 64;
export const MEMORY_BASE = 64 * 1024 * 1024;

export type Outcome = { dump: Dump; error?: undefined } | { dump?: undefined; error: InputError };

/** Feeds `bytes` in chunks (awaiting between them, as a file would), so async readers see real streaming. */
export async function* chunked(bytes: Uint8Array, size = 64 * 1024): AsyncIterable<Uint8Array> {
  for (let i = 0; i < bytes.byteLength; i += size) {
    yield bytes.subarray(i, Math.min(bytes.byteLength, i + size));
    await new Promise((r) => setImmediate(r));
  }
}

function memNow(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/**
 * readDumpFrom under the robustness contract: a Dump or an InputError, never anything else; within
 * CASE_TIMEOUT_MS; memory growth (heap + array buffers, sampled while reading and after) within
 * MEMORY_FACTOR × input + MEMORY_BASE. Throws (failing the property) otherwise.
 */
export async function readBounded(name: string, bytes: Uint8Array, opts: ReadOptions = {}): Promise<Outcome> {
  const before = memNow();
  let peak = before;
  const t0 = performance.now();
  // For gzip the measure is the content the readers see (itself capped by --max-decompressed).
  const budget = MEMORY_FACTOR * Math.max(bytes.byteLength, gunzippedSize(bytes)) + MEMORY_BASE;
  const sample = (): void => {
    const m = memNow();
    if (m > peak) peak = m;
  };
  async function* watched(): AsyncIterable<Uint8Array> {
    for await (const c of chunked(bytes)) {
      sample();
      yield c;
    }
  }
  let out: Outcome;
  try {
    const dump = await readDumpFrom(name, watched(), { ...opts, onProgress: sample });
    out = { dump };
  } catch (e) {
    if (!(e instanceof InputError)) {
      throw new Error(`${name}: reader threw ${describe(e)} instead of an InputError`, { cause: e });
    }
    if (/\n/.test(e.message)) throw new Error(`${name}: InputError message is not one line: ${JSON.stringify(e.message)}`);
    out = { error: e };
  }
  sample();
  const ms = performance.now() - t0;
  if (ms > CASE_TIMEOUT_MS) throw new Error(`${name}: took ${Math.round(ms)} ms for ${bytes.byteLength} bytes (budget ${CASE_TIMEOUT_MS} ms): a hang`);
  const grew = peak - before;
  if (grew > budget) {
    throw new Error(`${name}: memory grew by ${(grew / 1048576).toFixed(1)} MiB for ${bytes.byteLength} input bytes (budget ${(budget / 1048576).toFixed(1)} MiB)`);
  }
  if (out.dump) checkDumpShape(name, out.dump);
  return out;
}

/** Bytes a (possibly cut or corrupt) gzip stream decompresses to, up to 256 MiB; 0 if not gzip. */
function gunzippedSize(b: Uint8Array): number {
  if (!(b[0] === 0x1f && b[1] === 0x8b)) return 0;
  try {
    return gunzipSync(b, { finishFlush: zlibConstants.Z_SYNC_FLUSH, maxOutputLength: 256 << 20 }).byteLength;
  } catch {
    return 0;
  }
}

function describe(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message.slice(0, 300)}`;
  return String(e).slice(0, 300);
}

/** Invariants of any Dump a reader returns. */
export function checkDumpShape(name: string, d: Dump): void {
  const ctx = (m: string): string => `${name}: ${m}`;
  expect(Array.isArray(d.snapshots), ctx('snapshots')).toBe(true);
  // Never an empty result in silence: a snapshot, a race report, or a warning saying what was dropped.
  const said = d.warnings.some((w) => w.severity === 'warning');
  expect(d.snapshots.length + d.races.length > 0 || said, ctx(`an empty Dump without a warning: ${JSON.stringify(d.warnings)}`)).toBe(true);
  d.snapshots.forEach((s, i) => {
    expect(s.index, ctx('index')).toBe(i);
    let sum = 0;
    for (const g of s.groups) {
      expect(Number.isSafeInteger(g.count) && g.count > 0, ctx(`group count ${g.count}`)).toBe(true);
      sum += g.count;
    }
    expect(s.total, ctx('total = sum of group counts')).toBe(sum);
    expect(typeof s.truncated, ctx('truncated')).toBe('boolean');
  });
}

// ---------------------------------------------------------------------------------------------------
// Real inputs

export interface RealFile {
  /** `samples/<case>/<file>` or `corpus/<dir>/<file>`. */
  readonly name: string;
  readonly path: string;
  readonly size: number;
}

/** Every sample dump and corpus file (not sources, READMEs or expected.json). */
export function realFiles(): RealFile[] {
  const out: RealFile[] = [];
  for (const c of sampleCases()) {
    for (const f of readdirSync(join(SAMPLES, c))) {
      if (!/\.(txt|jsonl|pb\.gz)$/.test(f)) continue;
      const path = join(SAMPLES, c, f);
      out.push({ name: `samples/${c}/${f}`, path, size: statSync(path).size });
    }
  }
  for (const f of corpusFiles()) {
    const path = join(CORPUS, f);
    out.push({ name: `corpus/${f}`, path, size: statSync(path).size });
  }
  return out;
}

export function load(f: RealFile): Buffer {
  return readFileSync(f.path);
}

/** The content a reader sees (gunzipped when gzip). */
export function plain(b: Buffer): Buffer {
  return b[0] === 0x1f && b[1] === 0x8b ? gunzipSync(b) : b;
}

/**
 * How many goroutines a text holds by a simple scan independent of the readers: each traceback
 * header (`goroutine N [`, also markdown-escaped `\[`) is one; each debug=1 record (`N @ 0x…`)
 * is N. Works through log prefixes and JSON string escapes since it matches anywhere in a line.
 */
export function scanGoroutines(text: string): number {
  let n = 0;
  for (const m of text.matchAll(/goroutine \d+ \\?\[/g)) n += m ? 1 : 0;
  // A leak checker's record (`[Goroutine 19 in state chan send, with F on top of the stack:`) shows a
  // goroutine too; older goleak and tchannel print the runtime's header for it on the next line.
  for (const m of text.matchAll(/Goroutine (\d+) in state [^\n]*(?:\n\s*(goroutine (\d+) \[)?)?/g)) n += m[3] === m[1] ? 0 : 1;
  for (const m of text.matchAll(/(?:^|[\s#>|\]"])(\d+) @(?: 0x[0-9a-f]+)+/gm)) n += Number(m[1]);
  return n;
}
