/**
 * What the text reader learns of one input's stacks, kept for the next input a thread reads
 * (src/read/read-cache.ts, traceback.ts `KnownStacks`), changes nothing but speed: every sample and
 * corpus input read after others with one cache gives the Dump (or the error) it gives read alone,
 * deep-equal and JSON-identical; in input order, reversed, the series of the samples each read twice
 * with unrelated dumps and cut inputs between them, and through readDumpsSettled (this thread and
 * workers). The cache is used (later inputs take more lines from bytes) and bounded (past its caps it
 * starts again).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { Dump } from '../../src/model/dump.js';
import { readBundle } from '../../src/read/bundle.js';
import { readDumpsSettled } from '../../src/read/parallel.js';
import { readDumpFrom, readInput } from '../../src/read/pipeline.js';
import { ReadCache } from '../../src/read/read-cache.js';
import { readFileChunks } from '../../src/read/source.js';
import { KnownStacks, TRIE_NODES, TracebackReader } from '../../src/read/traceback.js';
import { CORPUS, SAMPLES, corpusFiles, filesUnder } from '../helpers/paths.js';

/** Every input file of the samples and the corpus (dumps, and files that are none: their errors must agree too). */
function inputs(): string[] {
  const files = filesUnder(SAMPLES, /\.(txt|gz|jsonl)$/);
  files.push(...corpusFiles().map((f) => join(CORPUS, f)));
  return files;
}

/** An input: a file, or bytes under a name (a cut copy of a file). */
type Input = string | { name: string; bytes: Buffer };

/** What reading gave: the Dump as JSON, or the error's message. */
type Outcome = { dump: Dump; json: string } | { error: string };

async function readOne(input: Input, cache?: ReadCache): Promise<Outcome> {
  try {
    const dump = typeof input === 'string' ? await readInput(input, {}, cache) : await readDumpFrom(input.name, input.bytes, {}, cache);
    return { dump, json: JSON.stringify(dump) };
  } catch (e) {
    return { error: String((e as Error)?.message ?? e) };
  }
}

const alone = new Map<string, Outcome>();

function keyOf(input: Input): string {
  return typeof input === 'string' ? input : input.name;
}

/** Reads `series` with one cache; each outcome must be the one of reading it alone. */
async function sameAsAlone(series: readonly Input[]): Promise<void> {
  const cache = new ReadCache();
  for (const input of series) {
    const key = keyOf(input);
    if (!alone.has(key)) alone.set(key, await readOne(input));
    const want = alone.get(key)!;
    const got = await readOne(input, cache);
    if ('error' in want) {
      expect('error' in got ? got.error : 'a dump', key).toBe(want.error);
      continue;
    }
    expect('json' in got, key).toBe(true);
    const g = got as { dump: Dump; json: string };
    expect(g.json === want.json, key).toBe(true);
    expect(g.dump).toEqual(want.dump);
  }
}

/** `path`'s bytes cut in the middle of a line past its middle: a dump that ends inside a goroutine. */
function cut(path: string): { name: string; bytes: Buffer } {
  const bytes = readFileSync(path);
  const at = bytes.indexOf(10, bytes.length >> 1) + 5;
  return { name: `${path} (cut at ${at})`, bytes: bytes.subarray(0, at) };
}

/** The snapshot files of a series folder, in name order. */
function series(dir: string): string[] {
  return filesUnder(dir, /\.(txt|gz)$/).sort();
}

describe('what one input teaches the reader of the next (ReadCache)', () => {
  const all = inputs();

  it('every sample and corpus input, read in order after the others, gives what it gives alone', async () => {
    expect(all.length).toBeGreaterThan(500);
    await sameAsAlone(all);
  }, 300_000);

  it('every sample and corpus input, read in reverse order, gives what it gives alone', async () => {
    await sameAsAlone([...all].reverse());
  }, 300_000);

  it('series read twice, with unrelated dumps and cut inputs between their snapshots', async () => {
    const leak = series(join(SAMPLES, 'soak-leak', 'series'));
    const healthy = series(join(SAMPLES, 'soak-healthy', 'series'));
    const caddy = filesUnder(join(SAMPLES, 'servers'), /\.gz$/).sort();
    const big = join(SAMPLES, 'second-leak', 'goroutine.debug2.txt');
    const corpus = corpusFiles().filter((f) => f.startsWith('debug2/') || f.startsWith('crash/')).map((f) => join(CORPUS, f));
    expect(leak.length).toBeGreaterThan(5);
    const order: Input[] = [];
    for (let i = 0; i < Math.max(leak.length, healthy.length); i++) {
      if (leak[i]) order.push(leak[i], leak[i]);
      if (healthy[i]) order.push(healthy[i]);
      if (corpus.length > 0) order.push(corpus[i % corpus.length]);
      if (i % 3 === 0 && leak[i]?.endsWith('.txt')) order.push(cut(leak[i]));
      if (i % 4 === 1) order.push(big, cut(big), big);
      if (caddy[i]) order.push(caddy[i]);
    }
    await sameAsAlone(order);
    await sameAsAlone([...order].reverse());
  }, 300_000);

  it('is used: a debug=2 dump read again takes more of its bytes by the byte path', async () => {
    const dump = join(SAMPLES, 'second-leak', 'goroutine.debug2.txt');
    // Bytes `takeKnownFrames` took over the reads of `read`.
    const takenBy = async (read: () => Promise<unknown>): Promise<number> => {
      const spy = vi.spyOn(TracebackReader.prototype, 'takeKnownFrames');
      try {
        await read();
        return spy.mock.calls.reduce((sum, call, i) => sum + (spy.mock.results[i].value as number) - call[1], 0);
      } finally {
        spy.mockRestore();
      }
    };
    const fresh = await takenBy(() => readInput(dump));
    const cache = new ReadCache();
    await readInput(dump, {}, cache);
    const again = await takenBy(() => readInput(dump, {}, cache));
    expect(fresh).toBeGreaterThan(0);
    expect(again).toBeGreaterThan(fresh);
  });

  it('readDumpsSettled on this thread and on workers gives the Dumps of each input read alone', async () => {
    const order = [...series(join(SAMPLES, 'soak-leak', 'series')), join(SAMPLES, 'second-leak', 'goroutine.debug2.txt'), ...series(join(SAMPLES, 'soak-healthy', 'series'))];
    for (const opts of [{ maxWorkers: 1 }, { maxWorkers: 2, minWorkerBytes: 0 }]) {
      const got = await readDumpsSettled(order, opts);
      for (let i = 0; i < order.length; i++) {
        const want = await readOne(order[i]);
        const g = got[i];
        expect(g.ok && 'json' in want && JSON.stringify(g.dump) === want.json, `${order[i]} ${JSON.stringify(opts)}`).toBe(true);
      }
    }
  }, 120_000);

  it("an archive's dumps, read one after another, give what each gives alone", async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'read-cache-'));
    try {
      const files = [
        ...series(join(SAMPLES, 'soak-leak', 'series')).filter((f) => f.endsWith('.txt')).slice(0, 3),
        join(SAMPLES, 'second-leak', 'goroutine.debug2.txt'),
        ...corpusFiles().filter((f) => f.startsWith('debug2/')).slice(0, 4).map((f) => join(CORPUS, f)),
      ];
      const names: string[] = [];
      files.forEach((f, i) => {
        const name = `dump${i}-${basename(f)}`;
        copyFileSync(f, join(tmp, name));
        names.push(name);
      });
      // The big dump again, and cut, between the others.
      writeFileSync(join(tmp, 'dump9-cut.txt'), cut(join(SAMPLES, 'second-leak', 'goroutine.debug2.txt')).bytes);
      copyFileSync(join(SAMPLES, 'second-leak', 'goroutine.debug2.txt'), join(tmp, 'dump10-again.txt'));
      names.push('dump9-cut.txt', 'dump10-again.txt');
      execFileSync('tar', ['czf', 'bundle.tgz', ...names], { cwd: tmp });
      const archive = join(tmp, 'bundle.tgz');
      const read = await readBundle(archive, readFileChunks(archive), {}, archive);
      expect(read.dumps.length).toBe(names.length);
      for (const d of read.dumps) {
        const want = await readDumpFrom(d.name, readFileSync(join(tmp, basename(d.path))));
        expect(JSON.stringify(d.dump) === JSON.stringify(want), d.name).toBe(true);
      }
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('is bounded: knowledge past its caps is dropped, and a read that fails keeps none', async () => {
    const cache = new ReadCache();
    const k = cache.take();
    expect(cache.take()).not.toBe(k);
    cache.keep(k);
    expect(cache.take()).toBe(k);
    k.nodes = TRIE_NODES / 2 + 1;
    cache.keep(k);
    expect(cache.take()).not.toBe(k);
    // An input that taught more than half as many nodes again as were known: unrelated, dropped.
    const related = cache.take();
    related.nodes = 1000;
    cache.keep(related);
    expect(cache.take()).toBe(related);
    related.nodes = 1400;
    cache.keep(related);
    expect(cache.take()).toBe(related);
    related.nodes = 2200;
    cache.keep(related);
    expect(cache.take()).not.toBe(related);
    const full = new KnownStacks();
    for (let i = 0; i <= 1 << 18; i++) full.frames.frame(`f${i}`, '', 'x.go', i, false);
    cache.keep(full);
    expect(cache.take()).not.toBe(full);
    // A read that fails: its knowledge is not given back.
    const leak = series(join(SAMPLES, 'soak-leak', 'series'))[0];
    await readInput(leak, {}, cache);
    const kept = cache.take();
    cache.keep(kept);
    await expect(readDumpFrom('not-a-dump.txt', 'hello\n', {}, cache)).rejects.toThrow(/no goroutine dump/);
    expect(cache.take()).not.toBe(kept);
  });
});
