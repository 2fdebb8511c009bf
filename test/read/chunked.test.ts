/**
 * A large file read in parts (src/read/chunked.ts) gives exactly the Dump that readDump gives, or
 * is refused (undefined) and then read whole. Checked by cutting every sample and corpus text file
 * at the goroutine headers the planner may choose (a blank line, then `goroutine N [`), singly and in
 * pairs, and on inputs made to defeat the merge: two dumps appended (the cut repeats ids), a crash with
 * per-thread dumps, log prefixes, a file cut off in its last part. Parts run in this thread here;
 * parallel.test.ts runs them on workers.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { planCuts, readInParts, readPart, type PartRunner } from '../../src/read/chunked.js';
import { readDump } from '../../src/read/index.js';
import type { Dump } from '../../src/model/dump.js';
import { CORPUS, SAMPLES, corpusFiles, sampleCases } from '../helpers/paths.js';

const tmp = mkdtempSync(join(tmpdir(), 'leakscope-chunked-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Offsets the planner may cut at: the `g` of `goroutine <digit>` after a blank line. */
function headerCuts(bytes: Buffer): number[] {
  const out: number[] = [];
  const pat = Buffer.from('\n\ngoroutine ', 'latin1');
  for (let i = bytes.indexOf(pat); i >= 0; i = bytes.indexOf(pat, i + 1)) {
    const d = bytes[i + pat.length];
    if (d >= 48 && d <= 57) out.push(i + 2);
  }
  return out;
}

/** At most n of xs, evenly spread, first and last included. */
function spread<T>(xs: readonly T[], n: number): T[] {
  if (xs.length <= n) return [...xs];
  return Array.from({ length: n }, (_, i) => xs[Math.round((i * (xs.length - 1)) / (n - 1))]);
}

async function inParts(path: string, cuts: readonly number[]): Promise<Dump | undefined> {
  const size = readFileSync(path).length;
  // Runners here run in this thread; one, or none (this thread takes every part), by the cut count.
  const runner: PartRunner = (start, end, onBytes) => readPart(path, start, end, {}, onBytes);
  return readInParts(path, size, cuts, {}, cuts.length % 2 === 0 ? [] : [runner]);
}

/** Every cut of `path` either merges into readDump's Dump or is refused; returns how many merged. */
async function checkCuts(path: string, cutSets: readonly (readonly number[])[]): Promise<number> {
  const whole = await readDump(path).catch(() => undefined);
  let merged = 0;
  if (!whole) {
    // Not a dump: the parts are refused too (or throw the same kind of error).
    for (const cuts of cutSets) expect(await inParts(path, cuts).catch(() => undefined)).toBeUndefined();
    return 0;
  }
  for (const cuts of cutSets) {
    const d = await inParts(path, cuts);
    if (d === undefined) continue;
    merged++;
    expect({ cuts, dump: d }).toEqual({ cuts, dump: whole });
  }
  return merged;
}

function textFiles(): string[] {
  const samples = sampleCases().flatMap((c) => readdirSync(join(SAMPLES, c)).filter((f) => /\.(txt|jsonl)$/.test(f)).map((f) => join(SAMPLES, c, f)));
  const corpus = corpusFiles().filter((f) => !f.startsWith('binary/')).map((f) => join(CORPUS, f));
  return [...samples, ...corpus].filter((p) => {
    try {
      return readFileSync(p).length > 0;
    } catch {
      return false;
    }
  });
}

describe('reading in parts gives readDump’s Dump or is refused', () => {
  it.each(textFiles().map((p) => [p.replace(/^.*\/(samples|corpus)\//, '$1/'), p]))('%s', async (_name, path) => {
    const cuts = headerCuts(readFileSync(path));
    const singles = spread(cuts, 24).map((c) => [c]);
    const pairs = spread(cuts, 9).flatMap((a, i, all) => all.slice(i + 1).map((b) => [a, b]));
    await checkCuts(path, [...singles, ...spread(pairs, 12)]);
  });

  it('merges the plain debug=2 dumps of the samples at every cut (the check can fail)', async () => {
    for (const c of ['apiproxy-leak', 'waitgroup-leak', 'healthy-server']) {
      const path = join(SAMPLES, c, 'goroutine.debug2.txt');
      const cuts = headerCuts(readFileSync(path));
      expect(cuts.length).toBeGreaterThan(2);
      const sets = spread(cuts, 30).map((x) => [x]);
      expect(await checkCuts(path, sets), c).toBe(sets.length);
      const three = [cuts[1], cuts[cuts.length - 2]];
      expect(await checkCuts(path, [three])).toBe(1);
    }
  });

  it('merges at a second dump appended to the first, and refuses a cut where its ids repeat', async () => {
    const one = readFileSync(join(SAMPLES, 'apiproxy-leak', 'goroutine.debug2.txt'));
    const path = join(tmp, 'two-dumps.txt');
    writeFileSync(path, Buffer.concat([one, Buffer.from('\n'), one]));
    const whole = await readDump(path);
    expect(whole.snapshots).toHaveLength(2);
    // The second dump starts with the goroutine that wrote it, whose id repeats the first dump's
    // writer: the part cannot tell, and is refused.
    const second = one.length + 1;
    expect(headerCuts(readFileSync(path))).toContain(second);
    expect(await inParts(path, [second])).toBeUndefined();
    // Anywhere else: merged or refused, never different. Cuts in the second dump merge; cuts in the
    // first are refused for the same reason (the part holds the second writer's repeated id).
    const cuts = headerCuts(readFileSync(path));
    const inSecond = cuts.filter((c) => c > second);
    expect(await checkCuts(path, spread(inSecond, 10).map((c) => [c]))).toBe(10);
    await checkCuts(path, spread(cuts, 20).map((c) => [c]));

    // Without its writer, the second dump is told apart only by its repeated ids: a part that
    // starts there cannot know them and is refused.
    const firstBlock = one.indexOf('\n\n') + 2;
    const bare = join(tmp, 'repeated-ids.txt');
    writeFileSync(bare, Buffer.concat([one, Buffer.from('\n'), one.subarray(firstBlock)]));
    expect((await readDump(bare)).snapshots).toHaveLength(2);
    expect(await inParts(bare, [one.length + 1])).toBeUndefined();
    const bareCuts = headerCuts(readFileSync(bare));
    expect(await checkCuts(bare, spread(bareCuts, 20).map((c) => [c]))).toBeGreaterThan(0);
  });

  it('refuses parts that carry a log prefix, and a last part cut off mid-stack', async () => {
    const dump = readFileSync(join(SAMPLES, 'apiproxy-leak', 'goroutine.debug2.txt'), 'latin1');
    const prefixed = join(tmp, 'prefixed.txt');
    writeFileSync(prefixed, dump.split('\n').map((l) => `2024-05-01T10:00:00.000000000Z ${l}`).join('\n'));
    const mid = Math.floor(readFileSync(prefixed).length / 2);
    expect(planCuts(prefixed, readFileSync(prefixed).length, 2)).toEqual([]);
    const lineStart = readFileSync(prefixed).indexOf('2024', mid);
    expect(await inParts(prefixed, [lineStart])).toBeUndefined();

    const cut = join(tmp, 'cut.txt');
    const bytes = readFileSync(join(SAMPLES, 'apiproxy-leak', 'goroutine.debug2.txt'));
    writeFileSync(cut, bytes.subarray(0, bytes.length - 40));
    const whole = await readDump(cut);
    expect(whole.snapshots[0].truncated).toBe(true);
    const cuts = headerCuts(readFileSync(cut));
    expect(await inParts(cut, [cuts[Math.floor(cuts.length / 2)]])).toBeUndefined();
  });

  it('plans cuts only at goroutine headers after a blank line, about size/parts apart', () => {
    const path = join(SAMPLES, 'apiproxy-leak', 'goroutine.debug2.txt');
    const bytes = readFileSync(path);
    const all = new Set(headerCuts(bytes));
    for (const parts of [2, 3, 4]) {
      const cuts = planCuts(path, bytes.length, parts);
      expect(cuts).toHaveLength(parts - 1);
      for (const c of cuts) expect(all.has(c)).toBe(true);
      expect([...cuts].sort((a, b) => a - b)).toEqual(cuts);
    }
    expect(planCuts(join(SAMPLES, 'apiproxy-leak', 'goroutine.debug0.pb.gz'), 4000, 2)).toEqual([]);
  });
});
