/**
 * Issue 13: a series whose capture times are not credible keeps the order the user gave. Files
 * copied together have mtimes within a second of each other, in any order: `trend` must not sort by
 * them, must say so once, and must not print a rate per minute from such a span.
 */
import { mkdtempSync, renameSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { offsetFromName } from '../../src/cli/series.js';
import { timeFromName } from '../../src/cli/inputs.js';
import { ensureBuilt, run } from './run.js';
import { leakSeries } from './series.js';

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
