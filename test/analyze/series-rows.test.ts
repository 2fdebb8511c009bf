/**
 * seriesRows and keyNumbers (trend's rows, diff's matching): keys matched by signature piece
 * sequences must be matched as a Map by key matches them: the rows a Map by key
 * makes (the same keys in the same order, counts and latest groups), on real series and on series of
 * unrelated dumps interleaved, and it must fall back to keys where a group no longer reads its key
 * from its table (a copy, or a key assigned).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze/index.js';
import { signatureTexts } from '../../src/analyze/group-key.js';
import { keyNumbers, seriesRows, type SeriesRow } from '../../src/analyze/series-rows.js';
import type { Analysis } from '../../src/analyze/types.js';
import { SAMPLES, sampleAndCorpusDumps } from '../helpers/paths.js';
import { snapshotsOf } from '../helpers/snapshots.js';

/** The rows as a Map by key gives them: the reference. */
function byKey(analyses: readonly Analysis[]): { key: string; counts: number[]; group: unknown }[] {
  const rows = new Map<string, { key: string; counts: number[]; group: unknown }>();
  analyses.forEach((a, i) => {
    for (const g of a.groups) {
      const row = rows.get(g.key) ?? { key: g.key, counts: new Array<number>(analyses.length).fill(0), group: g };
      rows.set(g.key, row);
      row.counts[i] += g.count;
      row.group = g;
    }
  });
  return [...rows.values()];
}

function shown(rows: readonly SeriesRow[]): { key: string; counts: number[]; group: unknown }[] {
  return rows.map((r) => ({ key: r.group.key, counts: r.counts, group: r.group }));
}

async function analysesOf(files: readonly string[]): Promise<Analysis[]> {
  const out: Analysis[] = [];
  for await (const { snapshot } of snapshotsOf(files)) out.push(analyze(snapshot));
  return out;
}

function seriesFiles(sample: string): string[] {
  const dir = join(SAMPLES, sample, 'series');
  return readdirSync(dir).sort().map((f) => join(dir, f));
}

describe('seriesRows', () => {
  let leak: Analysis[] = [];
  let mixed: Analysis[] = [];
  beforeAll(async () => {
    leak = await analysesOf(seriesFiles('soak-leak'));
    const others = await analysesOf(sampleAndCorpusDumps().slice(0, 40));
    // Unrelated dumps between the series' snapshots, one of them twice.
    mixed = leak.flatMap((a, i) => [a, ...others.slice(i * 3, i * 3 + 3)]).concat(others[0] ?? []);
  }, 120_000);

  it('gives the rows of a Map by key on a real series, matched by signature', () => {
    expect(leak.length).toBeGreaterThan(5);
    expect(leak.every((a) => a.groups.every((g) => signatureTexts(g) !== undefined))).toBe(true);
    expect(shown(seriesRows(leak))).toEqual(byKey(leak));
  });

  it('gives the rows of a Map by key on unrelated dumps interleaved with the series', () => {
    expect(mixed.length).toBeGreaterThan(30);
    const rows = seriesRows(mixed);
    expect(shown(rows)).toEqual(byKey(mixed));
    for (const r of rows) expect(rows.filter((o) => o.group.key === r.group.key)).toHaveLength(1);
  });

  it('numbers keys one to one, the first asked first, whichever of the analyses holds them', () => {
    const numberOf = keyNumbers(mixed);
    const keyOf = new Map<number, string>();
    const numberOfKey = new Map<string, number>();
    for (const a of [...mixed].reverse()) {
      for (const g of a.groups) {
        const n = numberOf(g);
        expect(n).toBeLessThanOrEqual(keyOf.size);
        expect(keyOf.get(n) ?? g.key).toBe(g.key);
        expect(numberOfKey.get(g.key) ?? n).toBe(n);
        keyOf.set(n, g.key);
        numberOfKey.set(g.key, n);
      }
    }
    expect(keyOf.size).toBe(new Set(mixed.flatMap((a) => a.groups.map((g) => g.key))).size);
  });

  it('matches by key where a group was copied or given another key', () => {
    const copied = leak.map((a, i) => (i === 2 ? { ...a, groups: a.groups.map((g) => ({ ...g })) } : a));
    expect(shown(seriesRows(copied))).toEqual(byKey(copied));
    const renamed = analyze(leak[3].snapshot);
    const g = renamed.groups[0];
    (g as { key: string }).key = `${g.key} (renamed)`;
    expect(signatureTexts(g)).toBeUndefined();
    const withRenamed = leak.map((a, i) => (i === 3 ? renamed : a));
    const rows = seriesRows(withRenamed);
    expect(shown(rows)).toEqual(byKey(withRenamed));
    expect(rows.some((r) => r.group.key.endsWith(' (renamed)'))).toBe(true);
  });
});
