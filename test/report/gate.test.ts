/** The `check` gate: each limit, the findings threshold, and trend leaks as findings. */
import { describe, expect, it } from 'vitest';
import { diff } from '../../src/analyze/compare.js';
import { trend } from '../../src/analyze/trend.js';
import { evaluateGate, trendFindings } from '../../src/report/gate.js';
import { hostileAnalysis, hostileFinding } from './fixtures.js';

const series = (ns: number[]) => ns.map((n, i) => ({ analysis: hostileAnalysis(n), time: i * 30_000 }));

describe('evaluateGate', () => {
  it('passes when no limit is exceeded and no finding reaches fail-on', () => {
    const a = hostileAnalysis(10);
    const g = evaluateGate({ analyses: [a], findings: [] }, { maxTotal: 1000, maxGroup: 500 });
    expect(g.passed).toBe(true);
    expect(g.limits.map((l) => [l.name, l.passed, l.actual])).toEqual([
      ['max-total', true, 390],
      ['max-group', true, 380],
      ['findings', true, 0],
    ]);
  });

  it('fails each limit with the group that decided it', () => {
    const before = hostileAnalysis(100);
    const after = hostileAnalysis(400);
    const g = evaluateGate({ analyses: [after], findings: [], diff: diff(before, after) }, { maxTotal: 500, maxGroup: 399, maxGrowth: 0.5 });
    expect(g.passed).toBe(false);
    const byName = Object.fromEntries(g.limits.map((l) => [l.name, l]));
    expect(byName['max-total'].passed).toBe(false);
    expect(byName['max-total'].message).toBe('780 goroutines in dir with space/dump|1.txt > 500');
    expect(byName['max-group'].subject?.line).toBe(50);
    expect(byName['max-growth'].actual).toBeCloseTo(300 / 480);
    expect(byName['max-growth'].subject?.line).toBe(50);
  });

  it('fails on findings at or above fail-on', () => {
    const a = hostileAnalysis();
    const f = hostileFinding(a);
    expect(evaluateGate({ analyses: [a], findings: [f] }, {}).passed).toBe(false);
    const warning = { ...f, severity: 'warning' as const };
    expect(evaluateGate({ analyses: [a], findings: [warning] }, {}).passed).toBe(true);
    expect(evaluateGate({ analyses: [a], findings: [warning] }, { failOn: 'warning' }).passed).toBe(false);
  });

  it('turns a steady rise into a failing limit and an error finding at the blocking line', () => {
    const t = trend(series([10, 14, 19, 25, 30, 36]));
    expect(t.verdict).toBe('growing');
    const findings = trendFindings(t);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ ruleId: 'trend/steady-growth', severity: 'error', location: { line: 50 } });
    expect(findings[0].title).toMatch(/^Steady growth: 10 → 36 goroutines chan send at proxy\.returnErr \(proxy\/proxy_store\.go:50\), \+[\d.]+\/min$/);
    const g = evaluateGate({ analyses: series([36]).map((s) => s.analysis), findings, trend: t }, {});
    expect(g.limits.find((l) => l.name === 'steady-growth')?.passed).toBe(false);
    expect(g.passed).toBe(false);
  });

  it('stays quiet on a flat series', () => {
    const t = trend(series([30, 30, 30, 30, 30, 30]));
    expect(trendFindings(t)).toEqual([]);
    expect(evaluateGate({ analyses: [], findings: [], trend: t }, {}).passed).toBe(true);
  });
});
