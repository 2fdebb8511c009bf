/**
 * readDumps: several inputs read by worker threads give the same Dumps as readDump, in input order;
 * InputErrors cross the thread boundary as InputErrors with the same code and message. The workers
 * run this checkout's sources, transpiled (no type check) into a temporary folder inside the repo
 * (so `pprof-format` resolves from node_modules).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError, readDump } from '../../src/read/index.js';
import { readChunked } from '../../src/read/chunked.js';
import { partWorkers, readDumps, readDumpsSettled } from '../../src/read/parallel.js';

const repo = join(import.meta.dirname, '..', '..');
let out: string;
let script: URL;

function transpileTree(from: string, to: string): void {
  for (const name of readdirSync(from)) {
    const p = join(from, name);
    if (statSync(p).isDirectory()) {
      transpileTree(p, join(to, name));
    } else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) {
      const js = ts.transpileModule(readFileSync(p, 'utf8'), {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
        fileName: p,
      }).outputText;
      const dest = join(to, name.replace(/\.ts$/, '.js'));
      mkdirSync(dirname(dest), { recursive: true });
      writeFileSync(dest, js);
    }
  }
}

beforeAll(() => {
  const cache = join(repo, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  out = mkdtempSync(join(cache, 'leakscope-parallel-'));
  writeFileSync(join(out, 'package.json'), '{"type":"module"}\n');
  for (const dir of ['read', 'model']) transpileTree(join(repo, 'src', dir), join(out, dir));
  script = pathToFileURL(join(out, 'read', 'worker.js'));
});

afterAll(() => {
  if (out) rmSync(out, { recursive: true, force: true });
});

const samples = join(repo, 'samples');
const inputs = (): string[] =>
  readdirSync(samples)
    .filter((d) => statSync(join(samples, d)).isDirectory())
    .flatMap((d) => ['goroutine.debug2.txt', 'goroutine.debug1.txt', 'goroutine.debug0.pb.gz'].map((f) => join(samples, d, f)))
    .filter((p) => {
      try {
        return statSync(p).isFile();
      } catch {
        return false;
      }
    })
    .map((p) => relative(process.cwd(), p));

describe('readDumps', () => {
  it('gives the Dumps readDump gives, in input order, from a pool of workers', async () => {
    const files = inputs();
    expect(files.length).toBeGreaterThan(6);
    const expected = [];
    for (const f of files) expected.push(await readDump(f));
    const got = await readDumps(files, { maxWorkers: 3, workerScript: script, minWorkerBytes: 0 });
    expect(got.map((d) => d.source)).toEqual(files);
    expect(got).toEqual(expected);
    // Frames shared inside one Dump stay shared across the boundary (structured clone keeps the graph).
    const g = got[0].snapshots[0].groups;
    const e = expected[0].snapshots[0].groups;
    const shared = (gs: typeof g): number => new Set(gs.flatMap((x) => x.frames)).size;
    expect(shared(g)).toBe(shared(e));
  });

  it('an InputError from a worker is an InputError with the same code and message', async () => {
    const notDump = join(out, 'not-a-dump.txt');
    writeFileSync(notDump, 'hello\nworld\n');
    const missing = join(out, 'missing.txt');
    const files = [inputs()[0], notDump, missing];
    const settled = await readDumpsSettled(files, { maxWorkers: 2, workerScript: script, minWorkerBytes: 0 });
    expect(settled.map((r) => r.ok)).toEqual([true, false, false]);
    for (const [i, f] of [[1, notDump], [2, missing]] as const) {
      const local = await readDump(f).then(() => undefined, (e: unknown) => e);
      const remote = (settled[i] as { ok: false; error: unknown }).error;
      expect(local).toBeInstanceOf(InputError);
      expect(remote).toBeInstanceOf(InputError);
      expect((remote as InputError).code).toBe((local as InputError).code);
      expect((remote as InputError).message).toBe((local as InputError).message);
      expect((remote as InputError).source).toBe((local as InputError).source);
    }
    await expect(readDumps(files, { maxWorkers: 2, workerScript: script, minWorkerBytes: 0 })).rejects.toBeInstanceOf(InputError);
  });

  it('one input is read in this thread (no worker is started)', async () => {
    const f = inputs()[0];
    const bogus = pathToFileURL(join(out, 'no-such-worker.js'));
    const [d] = await readDumps([f], { workerScript: bogus, minWorkerBytes: 0 });
    expect(d).toEqual(await readDump(f));
  });

  it('small files are read in this thread (default minWorkerBytes), whatever the worker script', async () => {
    const files = inputs().slice(0, 3);
    const bogus = pathToFileURL(join(out, 'no-such-worker.js'));
    const got = await readDumps(files, { workerScript: bogus });
    expect(got).toEqual(await Promise.all(files.map((f) => readDump(f))));
  });

  it('one large file is read in parts on workers: the same Dump, merged (not read again whole)', async () => {
    const f = join(repo, 'samples', 'apiproxy-leak', 'goroutine.debug2.txt');
    const size = statSync(f).size;
    for (const threads of [2, 3, 4]) {
      const seen: number[] = [];
      const pool = partWorkers(f, script, {}, threads - 1);
      const d = await readChunked(f, { onProgress: (b) => seen.push(b) }, pool.runners, 0);
      await pool.close();
      expect(d, `${threads} threads`).toBeDefined();
      expect(d).toEqual(await readDump(f));
      expect(Math.max(...seen)).toBe(size);
    }
    // Through readDumps (the CLI's path for one large file), with a threshold of 0.
    expect(await readDumps([f], { workerScript: script, maxWorkers: 3, minChunkedBytes: 0 })).toEqual([await readDump(f)]);
    // A worker that cannot start: read whole in this thread.
    const bogus = pathToFileURL(join(out, 'no-such-worker.js'));
    const pool = partWorkers(f, bogus, {}, 1);
    expect(await readChunked(f, {}, pool.runners, 0)).toBeUndefined();
    await pool.close();
    expect(await readDumps([f], { workerScript: bogus, maxWorkers: 2, minChunkedBytes: 0 })).toEqual([await readDump(f)]);
  });

  it('a signal in the options does not stop files going to workers or read in parts (it cannot be sent to a thread)', async () => {
    const signal = new AbortController().signal;
    const files = inputs().slice(0, 3);
    expect(await readDumps(files, { maxWorkers: 2, workerScript: script, minWorkerBytes: 0, signal })).toEqual(await Promise.all(files.map((f) => readDump(f))));
    const f = join(repo, 'samples', 'apiproxy-leak', 'goroutine.debug2.txt');
    expect(await readDumps([f], { workerScript: script, maxWorkers: 3, minChunkedBytes: 0, signal })).toEqual([await readDump(f)]);
  });

  it('reports the bytes read over all inputs', async () => {
    // Progress comes per chunk after the first (1 MiB): inputs of a few MB.
    const big = join(out, 'big.debug2.txt');
    writeFileSync(big, readFileSync(inputs()[0], 'utf8').repeat(Math.ceil((3 << 20) / statSync(inputs()[0]).size)));
    const files = [big, big];
    const seen: number[] = [];
    await readDumps(files, { maxWorkers: 1, onProgress: (b) => seen.push(b) });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[seen.length - 1]).toBeGreaterThan(statSync(big).size);
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1]);
  });
});
