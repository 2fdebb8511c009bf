/**
 * Trend, diff and check on REAL series. samples/soak-leak and samples/soak-healthy are Go programs that
 * run a quote service on 127.0.0.1 under load from their own clients for ~10 s and write 12 goroutine
 * snapshots while the load runs (debug=1 text, three of them debug=0 protobuf; the capture time is in
 * every file name). In soak-leak a handler abandons its lookup goroutine on a timeout, which then
 * blocks forever on `result <- q`; the program counted those goroutines at every capture (expected.json
 * series.snapshots[].leaked, verified against its own parse of each capture). soak-healthy is the fixed
 * service (a buffered result channel) under the same load.
 *
 * Through the library (readDump → analyze → trend, diff) and through the built CLI (trend, diff, check
 * with --baseline, thresholds, --format sarif validated against the official SARIF 2.1.0 schema, and
 * --format junit): the leak is flagged at its blocking line with the growth the program counted, and
 * the healthy service passes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { diff } from '../../src/analyze/compare.js';
import { analyze } from '../../src/analyze/index.js';
import { trend, type TrendResult, type TrendSample } from '../../src/analyze/trend.js';
import type { Analysis } from '../../src/analyze/types.js';
import { readDump } from '../../src/read/index.js';
import { ensureBuilt, run } from '../cli/run.js';
import { SAMPLES, sampleBuildRoot } from '../helpers/paths.js';
import { checkXml, errorsText, sarifValidator } from '../report/validators.js';

interface SeriesGroup { id: string; function: string; file: string; line: number }
interface SeriesSnapshot {
  file: string;
  format: 'debug0' | 'debug1';
  capturedAt: string;
  unixMs: number;
  total: number;
  leaked: number;
  counts: Record<string, number>;
}
interface SoakExpected {
  schema: string;
  case: string;
  verdict: 'leak' | 'no-leak';
  files: string[];
  leak?: { root: { group: string; function: string; file: string; line: number; state: string; count: number } };
  series: { folder: string; intervalMs: number; groups: SeriesGroup[]; snapshots: SeriesSnapshot[] };
}

function expectedOf(name: string): SoakExpected {
  return JSON.parse(readFileSync(join(SAMPLES, name, 'expected.json'), 'utf8')) as SoakExpected;
}

const LEAK = expectedOf('soak-leak');
const HEALTHY = expectedOf('soak-healthy');
const ROOT = LEAK.leak!.root;
/** Relative to the repo (the CLI runs there). */
const dirOf = (e: SoakExpected) => `samples/${e.case}/${e.series.folder}`;
const pathOf = (e: SoakExpected, s: SeriesSnapshot) => `${dirOf(e)}/${s.file}`;
const firstOf = (e: SoakExpected) => e.series.snapshots[0];
const lastOf = (e: SoakExpected) => e.series.snapshots[e.series.snapshots.length - 1];
/** The latest debug=0 snapshot: the one format whose goroutines carry wait states. */
const lastPb = (e: SoakExpected) => [...e.series.snapshots].reverse().find((s) => s.format === 'debug0')!;

/** The leak site's frame is in the group's stack (function, line, file suffix). */
const atLeakSite = (frames: readonly { func: string; file: string; line: number }[]) =>
  frames.some((f) => f.func === ROOT.function && f.line === ROOT.line && f.file.replace(/\\/g, '/').endsWith(`/${ROOT.file}`));

async function series(e: SoakExpected): Promise<TrendSample[]> {
  const out: TrendSample[] = [];
  for (const s of e.series.snapshots) {
    const dump = await readDump(join(SAMPLES, e.case, e.series.folder, s.file));
    expect(dump.snapshots, s.file).toHaveLength(1);
    out.push({ analysis: analyze(dump.snapshots[0]), time: s.unixMs });
  }
  return out;
}

/** Least-squares slope of the program's own counts, per minute: the growth the test expects. */
function knownRatePerMinute(e: SoakExpected): number {
  const xs = e.series.snapshots.map((s) => s.unixMs / 60_000);
  const ys = e.series.snapshots.map((s) => s.leaked);
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  xs.forEach((x, i) => {
    num += (x - mx) * (ys[i] - my);
    den += (x - mx) ** 2;
  });
  return num / den;
}

describe('the sample series (fixture sanity)', () => {
  it.each([LEAK, HEALTHY])('$case: 12 snapshots, 3 of them debug=0, ~800 ms apart, every one read in full', async (e) => {
    expect(e.schema).toBe('leakscope-sample/v1');
    expect(e.files).toEqual([]);
    const snaps = e.series.snapshots;
    expect(snaps).toHaveLength(12);
    expect(snaps.filter((s) => s.format === 'debug0')).toHaveLength(3);
    expect(snaps[0].format).toBe('debug1');
    expect(snaps[snaps.length - 1].format).toBe('debug1');
    for (let i = 1; i < snaps.length; i++) {
      expect(snaps[i].unixMs - snaps[i - 1].unixMs).toBeGreaterThan(600);
      expect(snaps[i].unixMs - snaps[i - 1].unixMs).toBeLessThan(1000);
    }
    for (const s of snaps) {
      const dump = await readDump(join(SAMPLES, e.case, e.series.folder, s.file));
      const snap = dump.snapshots[0];
      expect(snap.format, s.file).toBe(s.format === 'debug0' ? 'pprof' : 'debug1');
      expect(snap.total, s.file).toBe(s.total);
      expect(snap.truncated).toBe(false);
      // The goroutines at the leak site, by the read model, are what the program counted.
      const atSite = snap.groups.filter((g) => atLeakSite(g.frames)).reduce((n, g) => n + g.count, 0);
      expect(atSite, s.file).toBe(s.leaked);
      expect(atSite, s.file).toBe(s.counts.lookupSend);
    }
  });

  it('the leak grows with every snapshot; the healthy service never has a goroutine at the send', () => {
    const leaked = LEAK.series.snapshots.map((s) => s.leaked);
    for (let i = 1; i < leaked.length; i++) expect(leaked[i]).toBeGreaterThan(leaked[i - 1]);
    expect(ROOT.count).toBe(leaked[leaked.length - 1]);
    expect(HEALTHY.series.snapshots.every((s) => s.leaked === 0)).toBe(true);
    // The healthy totals move with the load but stay within a band.
    const totals = HEALTHY.series.snapshots.map((s) => s.total);
    expect(Math.max(...totals)).toBeGreaterThan(Math.min(...totals));
    expect(Math.max(...totals)).toBeLessThan(2 * Math.min(...totals));
  });
});

describe('library: trend() and diff() over readDump + analyze', () => {
  let leak: TrendSample[];
  let healthy: TrendSample[];
  let tl: TrendResult;
  let th: TrendResult;
  beforeAll(async () => {
    leak = await series(LEAK);
    healthy = await series(HEALTHY);
    tl = trend(leak);
    th = trend(healthy);
  });

  it('leak series: verdict growing on the group at the leak site, with the counts the program knew', () => {
    expect(tl.verdict).toBe('growing');
    const leaks = tl.groups.filter((g) => g.verdict === 'growing');
    expect(leaks).toHaveLength(1);
    const g = leaks[0];
    expect(tl.groups[0]).toBe(g);
    expect(atLeakSite(g.group.frames)).toBe(true);
    expect(g.blockingSite).toMatchObject({ func: ROOT.function, line: ROOT.line });
    expect(g.blockingSite!.file.endsWith(`/${ROOT.file}`)).toBe(true);
    // Matched across debug=0 and debug=1 snapshots: one group, every snapshot's count.
    expect(g.counts).toEqual(LEAK.series.snapshots.map((s) => s.leaked));
    expect(g.mannKendall.s).toBe(66); // 12 strictly increasing values: every pair rises
    expect(g.pAdjusted).toBeLessThan(0.001);
  });

  it('leak series: growth rate (Sen\'s slope) within 10% of the rate the program counted', () => {
    const g = tl.groups.find((x) => x.verdict === 'growing')!;
    const known = knownRatePerMinute(LEAK);
    expect(known).toBeGreaterThan(600);
    expect(g.perMinute).not.toBeNull();
    expect(Math.abs(g.perMinute! - known) / known).toBeLessThan(0.1);
    const perSnapshot = (lastOf(LEAK).leaked - firstOf(LEAK).leaked) / (LEAK.series.snapshots.length - 1);
    expect(Math.abs(g.perSnapshot - perSnapshot) / perSnapshot).toBeLessThan(0.1);
    // No other group grows: the rest fluctuates with the load.
    expect(tl.groups.filter((x) => x !== g).every((x) => x.verdict !== 'growing')).toBe(true);
  });

  it('healthy series: no leak verdict on the total or on any group', () => {
    expect(th.verdict).toBe('stable');
    expect(th.leaks).toBe(0);
    expect(th.total.verdict).toBe('stable');
    expect(th.rising).toBe(0);
    expect(th.groups.filter((g) => g.verdict === 'growing')).toEqual([]);
    expect(th.groups.some((g) => atLeakSite(g.group.frames))).toBe(false);
    // It does move: the load shows in the counts.
    expect(th.total.max).toBeGreaterThan(th.total.min);
  });

  it('diff(first, last): the leak group is on top, by growth', () => {
    const first: Analysis = leak[0].analysis;
    const last: Analysis = leak[leak.length - 1].analysis;
    const d = diff(first, last);
    expect(atLeakSite(d.groups[0].group.frames)).toBe(true);
    expect(d.groups[0]).toMatchObject({ before: firstOf(LEAK).leaked, after: lastOf(LEAK).leaked, change: 'grown' });
    expect(d.groups[0].delta).toBe(lastOf(LEAK).leaked - firstOf(LEAK).leaked);
    expect(d.totalDelta).toBe(lastOf(LEAK).total - firstOf(LEAK).total);
    for (const g of d.groups.slice(1)) expect(g.delta).toBeLessThan(d.groups[0].delta);
  });
});

describe('CLI (built binary)', () => {
  beforeAll(async () => {
    await ensureBuilt();
  });

  const sarifResultsAtLeakLine = (stdout: string) => {
    const log = JSON.parse(stdout);
    const validate = sarifValidator();
    expect(validate(log), errorsText(validate.errors)).toBe(true);
    const results = log.runs[0].results as Array<{ ruleId: string; level: string; locations?: Array<{ physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }> }>;
    return results.filter((r) => {
      const p = r.locations?.[0]?.physicalLocation;
      return p !== undefined && p.artifactLocation.uri.endsWith(ROOT.file) && p.region.startLine === ROOT.line;
    });
  };

  describe('trend', () => {
    it('leak series: LEAK, the leak site on top', async () => {
      const r = await run(['trend', dirOf(LEAK)]);
      expect(r.status).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toContain('Trend: 12 snapshots over 9s\nVerdict: growing: 1 group grows steadily\n');
      expect(r.stdout).toMatch(new RegExp(`│ growing +│ +${firstOf(LEAK).leaked} │ +${lastOf(LEAK).leaked} │ +${lastOf(LEAK).leaked} │ +\\+[\\d.]+ │ +<0\\.001 │ [▁▂▃▄▅▆▇█]{12} │ \\S+ +│ quote/service\\.go:47 +│ quote\\.\\(\\*Service\\)\\.lookup`));
    });

    it('leak series, json: the group at the leak site, its counts and rate', async () => {
      const r = await run(['trend', dirOf(LEAK), '--format', 'json']);
      expect(r.status).toBe(0);
      const t = JSON.parse(r.stdout).trend;
      expect(t.verdict).toBe('growing');
      expect(t.points.map((p: { source: string }) => p.source.split('/').pop())).toEqual(LEAK.series.snapshots.map((s) => s.file));
      const g = t.groups[0];
      expect(g.verdict).toBe('growing');
      expect(g.blockingSite).toMatchObject({ func: ROOT.function, line: ROOT.line });
      expect(g.counts).toEqual(LEAK.series.snapshots.map((s) => s.leaked));
      const known = knownRatePerMinute(LEAK);
      expect(Math.abs(g.perMinute - known) / known).toBeLessThan(0.1);
    });

    it('healthy series: no steady growth', async () => {
      const r = await run(['trend', dirOf(HEALTHY), '--format', 'json']);
      expect(r.status).toBe(0);
      expect(r.stderr).toBe('');
      const t = JSON.parse(r.stdout).trend;
      expect(t.verdict).toBe('stable');
      expect(t.leaks).toBe(0);
      expect(t.points).toHaveLength(12);
      const table = await run(['trend', dirOf(HEALTHY)]);
      expect(table.stdout).toContain('Verdict: stable: no material rise\n');
    });
  });

  describe('diff first last', () => {
    it('leak: the leak group first, grown by what the program counted', async () => {
      const r = await run(['diff', pathOf(LEAK, firstOf(LEAK)), pathOf(LEAK, lastOf(LEAK)), '--format', 'json']);
      expect(r.status).toBe(0);
      const d = JSON.parse(r.stdout).diff;
      expect(d.groups[0]).toMatchObject({ change: 'grown', before: firstOf(LEAK).leaked, after: lastOf(LEAK).leaked });
      expect(d.groups[0].blockingSite).toMatchObject({ func: ROOT.function, line: ROOT.line });
      const table = await run(['diff', pathOf(LEAK, firstOf(LEAK)), pathOf(LEAK, lastOf(LEAK))]);
      const rows = table.stdout.split('\n').filter((l) => /^│ (grown|shrunk|new|vanished|unchanged) /.test(l));
      expect(rows[0]).toMatch(new RegExp(`│ grown +│ +${firstOf(LEAK).leaked} │ +${lastOf(LEAK).leaked} │ +\\+${lastOf(LEAK).leaked - firstOf(LEAK).leaked} │ .*quote/service\\.go:47`));
    });
  });

  describe('check: the leak fails the gate', () => {
    it('the whole series: exit 1 on steady growth at the leak site', async () => {
      const r = await run(['check', dirOf(LEAK), '--format', 'json']);
      expect(r.status).toBe(1);
      const out = JSON.parse(r.stdout);
      const limit = out.gate.limits.find((l: { name: string }) => l.name === 'steady-growth');
      expect(limit.passed).toBe(false);
      expect(out.findings.find((f: { ruleId: string }) => f.ruleId === 'trend/steady-growth').location).toMatchObject({ func: ROOT.function, line: ROOT.line });
    });

    it('latest --baseline first (the series), exit 1', async () => {
      const rest = LEAK.series.snapshots.slice(1).map((s) => pathOf(LEAK, s));
      const r = await run(['check', ...rest, '--baseline', pathOf(LEAK, firstOf(LEAK))]);
      expect(r.status).toBe(1);
      expect(r.stdout).toMatch(/^  FAIL  steady-growth /m);
    });

    it('last --baseline first: exit 1', async () => {
      const r = await run(['check', pathOf(LEAK, lastOf(LEAK)), '--baseline', pathOf(LEAK, firstOf(LEAK))]);
      expect(r.status, r.stdout).toBe(1);
    });

    it('last --baseline first with --max-growth 100%: exit 1 on growth', async () => {
      const r = await run(['check', pathOf(LEAK, lastOf(LEAK)), '--baseline', pathOf(LEAK, firstOf(LEAK)), '--max-growth', '100%', '--format', 'json']);
      expect(r.status).toBe(1);
      const limit = JSON.parse(r.stdout).gate.limits.find((l: { name: string }) => l.name === 'max-growth');
      expect(limit.passed).toBe(false);
    });

    it('the latest debug=0 snapshot --baseline first: exit 1 on the blocked send (the rules see the wait state)', async () => {
      const pb = lastPb(LEAK);
      const r = await run(['check', pathOf(LEAK, pb), '--baseline', pathOf(LEAK, firstOf(LEAK)), '--format', 'json']);
      expect(r.status).toBe(1);
      const f = JSON.parse(r.stdout).findings.find((x: { severity: string }) => x.severity === 'error');
      expect(f.location).toMatchObject({ func: ROOT.function, line: ROOT.line });
      expect(f.evidence.goroutines).toBe(pb.leaked);
    });

    it('--max-total and --max-group: exit 1 on the last snapshot', async () => {
      const last = pathOf(LEAK, lastOf(LEAK));
      const r = await run(['check', last, '--no-rules', '--max-total', '100', '--max-group', '50', '--format', 'json']);
      expect(r.status).toBe(1);
      const limits = JSON.parse(r.stdout).gate.limits as Array<{ name: string; passed: boolean }>;
      expect(limits.filter((l) => !l.passed).map((l) => l.name).sort()).toEqual(['max-group', 'max-total']);
    });

    it('--format sarif: valid SARIF 2.1.0, a result on the blocking line (service.go:47)', async () => {
      const r = await run(['check', dirOf(LEAK), '--format', 'sarif']);
      expect(r.status).toBe(1);
      const at = sarifResultsAtLeakLine(r.stdout);
      expect(at.map((x) => x.ruleId)).toContain('trend/steady-growth');
      // The steady growth is an error; a debug=1 snapshot may add a rule's warning on the same line.
      expect(at.filter((x) => x.ruleId === 'trend/steady-growth').every((x) => x.level === 'error')).toBe(true);
    });

    it('--format sarif with --baseline and --path-prefix: the blocking line, as a repository path', async () => {
      const r = await run([
        'check', pathOf(LEAK, lastOf(LEAK)), '--baseline', pathOf(LEAK, firstOf(LEAK)), '--max-growth', '100%',
        '--format', 'sarif', '--path-prefix', `${sampleBuildRoot()}/samples/soak-leak/=`,
      ]);
      expect(r.status).toBe(1);
      const log = JSON.parse(r.stdout);
      const validate = sarifValidator();
      expect(validate(log), errorsText(validate.errors)).toBe(true);
      const results = log.runs[0].results as Array<{ ruleId: string; locations?: Array<{ physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }> }>;
      expect(results.length).toBeGreaterThan(0);
      const located = results.filter((x) => x.locations?.length);
      expect(located.map((x) => x.locations![0].physicalLocation)).toContainEqual({ artifactLocation: { uri: ROOT.file }, region: { startLine: ROOT.line } });
    });

    it('--format junit: a failure', async () => {
      const r = await run(['check', dirOf(LEAK), '--format', 'junit']);
      expect(r.status).toBe(1);
      checkXml(r.stdout);
      expect(r.stdout).toMatch(/<testsuites [^>]*failures="[1-9]\d*"/);
      expect(r.stdout).toMatch(/<testcase [^>]*name="trend\/steady-growth"[^>]*>\s*<failure /);
      const b = await run(['check', pathOf(LEAK, lastOf(LEAK)), '--baseline', pathOf(LEAK, firstOf(LEAK)), '--max-growth', '100%', '--format', 'junit']);
      expect(b.status).toBe(1);
      checkXml(b.stdout);
      expect(b.stdout).toMatch(/<testcase [^>]*name="max-growth"[^>]*>\s*<failure /);
    });
  });

  describe('check: the healthy service passes the same gates', () => {
    it('the whole series: exit 0', async () => {
      const r = await run(['check', dirOf(HEALTHY), '--format', 'json']);
      expect(r.status, r.stdout).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out.gate.passed).toBe(true);
      expect(out.trend.verdict).toBe('stable');
      expect(out.findings.filter((f: { severity: string }) => f.severity === 'error')).toEqual([]);
    });

    it('latest --baseline first, with and without --max-growth 100%: exit 0', async () => {
      const last = pathOf(HEALTHY, lastOf(HEALTHY));
      const first = pathOf(HEALTHY, firstOf(HEALTHY));
      expect((await run(['check', last, '--baseline', first])).status).toBe(0);
      expect((await run(['check', last, '--baseline', first, '--max-growth', '100%'])).status).toBe(0);
      const rest = HEALTHY.series.snapshots.slice(1).map((s) => pathOf(HEALTHY, s));
      expect((await run(['check', ...rest, '--baseline', first])).status).toBe(0);
      expect((await run(['check', pathOf(HEALTHY, lastPb(HEALTHY)), '--baseline', first])).status).toBe(0);
    });

    it('--format sarif: valid, no error result', async () => {
      const r = await run(['check', dirOf(HEALTHY), '--format', 'sarif']);
      expect(r.status).toBe(0);
      const log = JSON.parse(r.stdout);
      const validate = sarifValidator();
      expect(validate(log), errorsText(validate.errors)).toBe(true);
      expect(log.runs[0].results.filter((x: { level: string }) => x.level === 'error')).toEqual([]);
      expect(sarifResultsAtLeakLine(r.stdout)).toEqual([]);
    });

    it('--format junit: no failure', async () => {
      const r = await run(['check', dirOf(HEALTHY), '--max-growth', '100%', '--format', 'junit']);
      expect(r.status).toBe(0);
      checkXml(r.stdout);
      expect(r.stdout).toMatch(/<testsuites [^>]*failures="0"/);
      expect(r.stdout).not.toContain('<failure');
    });
  });
});
