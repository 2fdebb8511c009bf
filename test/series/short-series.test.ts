/**
 * Short series on real snapshots (samples/soak-leak and samples/soak-healthy, ~800 ms apart): 3, 4, 5
 * and 8 snapshots of a leaking and of a healthy quote service. Each run writes every format at once
 * (`--format NAME=FILE`), and the same state word is checked in each: the table, JSON, Markdown, SARIF,
 * JUnit, GitHub annotations and HTML.
 *
 * Three snapshots of the leak are a clear rise that the test cannot confirm (the exact one-sided p of a
 * perfect rise over 3 points is 1/6): `rising-inconclusive`, saying that 4 would do for the total (one
 * test, not corrected with the groups). From 4 on, the total's perfect rise (p = 1/24) is `growing`.
 * The healthy service is `stable` on windows where its load is flat, and `rising-inconclusive`, never
 * `growing`, over its warm-up (31 → 41 goroutines in its first 4 snapshots).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, run } from '../cli/run.js';
import { SAMPLES } from '../helpers/paths.js';
import { checkXml } from '../report/validators.js';

const files = (c: string) => readdirSync(join(SAMPLES, c, 'series')).sort().map((f) => `samples/${c}/series/${f}`);
const LEAK = files('soak-leak');
const HEALTHY = files('soak-healthy');

type State = 'growing' | 'rising-inconclusive' | 'stable';
interface Case { name: string; inputs: string[]; state: State; needed?: number }

const CASES: Case[] = [
  { name: 'leak, 3 snapshots', inputs: LEAK.slice(0, 3), state: 'rising-inconclusive', needed: 4 },
  { name: 'leak, 4 snapshots', inputs: LEAK.slice(0, 4), state: 'growing' },
  { name: 'leak, 5 snapshots', inputs: LEAK.slice(0, 5), state: 'growing' },
  { name: 'leak, 8 snapshots', inputs: LEAK.slice(0, 8), state: 'growing' },
  { name: 'healthy, 3 snapshots', inputs: HEALTHY.slice(4, 7), state: 'stable' },
  { name: 'healthy, 4 snapshots', inputs: HEALTHY.slice(5, 9), state: 'stable' },
  { name: 'healthy, 5 snapshots', inputs: HEALTHY.slice(4, 9), state: 'stable' },
  { name: 'healthy, 8 snapshots', inputs: HEALTHY.slice(4, 12), state: 'stable' },
  { name: 'healthy warm-up, 4 snapshots', inputs: HEALTHY.slice(0, 4), state: 'rising-inconclusive' },
];

let tmp = '';
beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'leakscope-short-'));
  await ensureBuilt();
}, 300_000);
afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

interface Series { counts: number[]; verdict: string; perSnapshot: number; max: number; mannKendall: { tau: number }; needed?: number | null }

describe.each(CASES)('$name', (c) => {
  let out: Record<string, string> = {};
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmp, 'run-'));
    const fmts = ['json', 'markdown', 'sarif', 'junit', 'github', 'html'];
    const r = await run(['trend', ...c.inputs, ...fmts.flatMap((f) => ['--format', `${f}=${join(dir, f)}`]), '--format', 'table']);
    expect(r.status, r.stderr).toBe(0);
    out = { table: r.stdout, ...Object.fromEntries(fmts.map((f) => [f, readFileSync(join(dir, f), 'utf8')])) };
  }, 60_000);

  it('table and JSON: the process state, and the snapshots needed when inconclusive', () => {
    expect(out.table).toMatch(new RegExp(`^Verdict: ${c.state}:`, 'm'));
    const t = JSON.parse(out.json).trend;
    expect(t.verdict).toBe(c.state);
    if (c.state === 'rising-inconclusive') {
      expect(typeof t.needed).toBe('number');
      expect(t.needed).toBeGreaterThan(c.inputs.length);
      if (c.needed) expect(t.needed).toBe(c.needed);
      expect(out.table).toMatch(new RegExp(`about ${t.needed} snapshots would confirm it`));
    } else {
      expect(t.needed).toBeUndefined();
    }
    // The total is one test: its p is its own, never multiplied by the groups' correction.
    expect(t.total.pAdjusted).toBe(t.total.mannKendall.pIncreasing);
    // "stable" never labels a clear rise: a positive Sen's slope, consistent pairs and a material fitted rise.
    for (const s of [t.total, ...t.groups] as Series[]) {
      if (s.verdict !== 'stable') continue;
      const fitted = s.perSnapshot * (s.counts.length - 1);
      expect(s.perSnapshot <= 0 || s.mannKendall.tau < 0.5 || fitted < Math.max(5, 0.05 * s.max), JSON.stringify(s)).toBe(true);
    }
    if (c.state !== 'growing') expect(t.groups.every((g: Series) => g.verdict !== 'growing')).toBe(true);
  });

  it('Markdown, GitHub and HTML say the same word', () => {
    expect(out.markdown).toContain(`**Verdict: ${c.state}:`);
    expect(out.github).toMatch(new RegExp(`::notice title=leakscope trend::.*trend: ${c.state}`));
    expect(out.html).toContain(`<p class="trend-verdict" data-state="${c.state}">`);
    expect(out.html).toContain(`<span class="state state-${c.state}"`);
  });

  it('SARIF and JUnit say the same word, with a result or case for the rise', () => {
    const log = JSON.parse(out.sarif);
    expect(log.runs[0].properties.trend.verdict).toBe(c.state);
    const ids = (log.runs[0].results as { ruleId: string; level: string; message: { text: string } }[]).map((r) => r.ruleId);
    if (c.state === 'growing') expect(ids.some((id) => id === 'trend/steady-growth' || id === 'trend/total-growth')).toBe(true);
    if (c.state === 'rising-inconclusive') {
      const r = log.runs[0].results.find((x: { ruleId: string }) => x.ruleId === 'trend/rising-inconclusive');
      expect(r.level).toBe('warning');
      expect(r.message.text).toMatch(/Trend rising-inconclusive: .*snapshots would confirm it/);
    }
    if (c.state === 'stable') expect(ids.filter((id) => id.startsWith('trend/'))).toEqual([]);
    checkXml(out.junit);
    expect(out.junit).toContain(`<testcase classname="leakscope.trend" name="trend: ${c.state}">`);
    expect(out.junit).toMatch(new RegExp(`<system-out>${c.state}: `));
  });
});
