/**
 * A series whose capture times are not credible keeps the order the user gave. Files copied together
 * have mtimes within a second of each other, in any order: `trend` must not sort by them, must say so
 * once, and must not print a rate per minute from such a span.
 */
import { copyFileSync, mkdtempSync, readdirSync, renameSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { offsetFromName } from '../../src/cli/series.js';
import { timeFromName } from '../../src/cli/inputs.js';
import { ensureBuilt, run } from './run.js';
import { leakSeries } from './series.js';
import { SAMPLES } from '../helpers/paths.js';

let files: string[];

beforeAll(async () => {
  await ensureBuilt();
  const dir = join(mkdtempSync(join(tmpdir(), 'leakscope-order-')), 'leak');
  const named = leakSeries(dir);
  // Names without times; mtimes within one second, latest snapshot oldest.
  const base = Date.now() / 1000 - 3600;
  files = named.map((f, i) => {
    const to = join(dir, `snap-${'abcdefgh'[i]}.txt`);
    renameSync(f, to);
    utimesSync(to, base + (named.length - i) * 0.1, base + (named.length - i) * 0.1);
    return to;
  });
});

describe('trend with mtimes within a second', () => {
  it('keeps the argument order, says so once, prints no rate per minute', async () => {
    const r = await run(['trend', ...files, '--format', 'json']);
    expect(r.status).toBe(0);
    expect(r.stderr.match(/warning/g)).toHaveLength(1);
    expect(r.stderr).toMatch(/not credible.*kept in the order given/);
    const t = JSON.parse(r.stdout).trend;
    expect(t.points.map((p: { source: string }) => p.source)).toEqual(files);
    expect(t.verdict).toBe('growing');
    expect(t.total.perMinute).toBeNull();
    for (const g of t.groups) expect(g.perMinute).toBeNull();
  });

  it('the text report shows no per-minute figure', async () => {
    const r = await run(['trend', ...files]);
    expect(r.stdout).not.toMatch(/[+-]\d[\d.,]*\/min/);
  });
});

describe('times in file names', () => {
  it('reads underscores in an ISO time and offsets from the start', () => {
    expect(timeFromName('goroutines-2026-11-30T14_05_33.txt')).toBe(Date.UTC(2026, 10, 30, 14, 5, 33));
    expect(offsetFromName('dump-t+30s.txt')).toEqual({ ms: 30_000, resolutionMs: 1000 });
    expect(offsetFromName('dump-1-0.9s.txt')).toEqual({ ms: 900, resolutionMs: 100 });
    expect(offsetFromName('dump-t+2m')).toEqual({ ms: 120_000, resolutionMs: 60_000 });
    expect(offsetFromName('goroutine.debug1.txt')).toBeUndefined();
  });
});

describe('only some inputs carry a time', () => {
  // Five snapshots of the leaking soak service named with an offset (`…-1.6s`), and its latest one
  // without a time in its name, whose file time is months older: file times are another clock.
  let mixed: string[];
  beforeAll(() => {
    const dir = mkdtempSync(join(tmpdir(), 'leakscope-mixed-'));
    const snaps = readdirSync(join(SAMPLES, 'soak-leak', 'series')).filter((f) => f.endsWith('.txt')).sort().slice(0, 6);
    mixed = snaps.map((f, i) => {
      const to = join(dir, i < 5 ? `quotes-1-${(0.9 + i * 0.8).toFixed(1)}s.txt` : 'quotes-latest.txt');
      copyFileSync(join(SAMPLES, 'soak-leak', 'series', f), to);
      return to;
    });
    const monthsAgo = Date.now() / 1000 - 90 * 86_400;
    utimesSync(mixed[5], monthsAgo, monthsAgo);
  });

  it('keeps the order given, says so once, prints no rate', async () => {
    const r = await run(['trend', ...mixed, '--format', 'json']);
    expect(r.status).toBe(0);
    expect(r.stderr.match(/warning/g)).toHaveLength(1);
    expect(r.stderr).toMatch(/only 5 of 6 snapshots carry a capture time .*not mixed with file times; kept in the order given, no rate per minute/);
    const t = JSON.parse(r.stdout).trend;
    expect(t.points.map((p: { source: string }) => p.source)).toEqual(mixed);
    expect(t.total.counts).toEqual([...t.total.counts].sort((a: number, b: number) => a - b));
    expect(t.verdict).toBe('growing');
    expect(t.total.perMinute).toBeNull();
    const table = await run(['trend', ...mixed]);
    expect(table.stdout).not.toMatch(/[+-]\d[\d.,]*\/min/);
    expect(table.stdout).toMatch(/^Verdict: growing: /m);
  });
});
