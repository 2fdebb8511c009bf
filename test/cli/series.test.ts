/**
 * trend and check on series of real dumps (see series.ts): a leak that grows from a few goroutines is
 * flagged (LEAK, exit 1, a SARIF result on the blocking line, a JUnit failure); a healthy server whose
 * counts wobble under load passes.
 */
import { mkdtempSync, renameSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkXml, errorsText, reportValidator, sarifValidator } from '../report/validators.js';
import { ensureBuilt, run } from './run.js';
import { healthySeries, leakSeries } from './series.js';

let leakDir: string;
let healthyDir: string;
let leakFiles: string[];

beforeAll(async () => {
  await ensureBuilt();
  const tmp = mkdtempSync(join(tmpdir(), 'leakscope-series-'));
  leakDir = join(tmp, 'leak');
  healthyDir = join(tmp, 'healthy');
  leakFiles = leakSeries(leakDir);
  healthySeries(healthyDir);
});

describe('trend', () => {
  it('flags the steadily growing senders of the leak series', async () => {
    const r = await run(['trend', leakDir]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Trend: 8 snapshots over 7m\nVerdict: growing: 1 group grows steadily\n');
    expect(r.stdout).toMatch(/│ growing +│ +4 │ +24 │ +24 │ +\+[\d.]+ │ +[<\d.]+ │ [▁▂▃▄▅▆▇█]{8} │ \S+ +│ proxy\/proxy_store\.go:50 +│ proxy\.returnErr/);
  });

  it('passes the healthy series', async () => {
    const r = await run(['trend', healthyDir, '--format', 'json']);
    expect(r.status).toBe(0);
    const t = JSON.parse(r.stdout).trend;
    expect(t.verdict).toBe('stable');
    expect(t.points).toHaveLength(8);
  });

  it('JSON holds the series per group and only the latest snapshot, and validates', async () => {
    const r = await run(['trend', leakDir, '--format', 'json']);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    const validate = reportValidator();
    expect(validate(doc), errorsText(validate.errors)).toBe(true);
    const t = doc.trend;
    expect(t.points).toHaveLength(8);
    expect(doc.snapshots).toHaveLength(1);
    expect(doc.snapshots[0].source).toBe(t.points[7].source);
    expect(doc.snapshots[0].total).toBe(t.points[7].total);
    for (const g of t.groups) expect(g.counts).toHaveLength(8);
    // The latest snapshot's groups carry the latest counts of the series.
    const latest = new Map(doc.snapshots[0].groups.map((g: { key: string; count: number }) => [g.key, g.count]));
    for (const g of t.groups) expect(latest.get(g.key) ?? 0).toBe(g.last);
  });

  it('orders by the time in the file names, not by the order given', async () => {
    const r = await run(['trend', ...[...leakFiles].reverse(), '-f', 'json']);
    expect(JSON.parse(r.stdout).trend.total.counts).toEqual(JSON.parse((await run(['trend', ...leakFiles, '-f', 'json'])).stdout).trend.total.counts);
  });

  it('falls back to mtime, with a warning, or takes --interval', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'leakscope-mtime-'));
    const files = leakSeries(join(tmp, 'x'), 6).map((f, i) => {
      const renamed = join(tmp, `dump-${String.fromCharCode(102 - i)}.txt`); // names sort backwards
      renameSync(f, renamed);
      utimesSync(renamed, 1_700_000_000 + i * 60, 1_700_000_000 + i * 60);
      return renamed;
    });
    const r = await run(['trend', ...files, '-f', 'json']);
    expect(r.stderr).toMatch(/^leakscope: warning: no capture times in the dumps or their names; ordered by file mtime/);
    expect(JSON.parse(r.stdout).trend.verdict).toBe('growing');
    const i = await run(['trend', ...files, '--interval', '30', '-f', 'json']);
    expect(i.stderr).toBe('');
    expect(JSON.parse(i.stdout).trend.durationMs).toBe(150_000);
  });

  it('needs two snapshots', async () => {
    const r = await run(['trend', leakFiles[0]]);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`leakscope: trend needs at least 2 snapshots; ${leakFiles[0]} holds 1\n`);
  });
});

describe('check on a series', () => {
  it('fails the leak series with a SARIF result on the blocking line and a JUnit failure', async () => {
    const sarif = await run(['check', '--no-rules', leakDir, '-f', 'sarif']);
    expect(sarif.status).toBe(1);
    const log = JSON.parse(sarif.stdout);
    const validate = sarifValidator();
    expect(validate(log), errorsText(validate.errors)).toBe(true);
    const growth = log.runs[0].results.find((x: { ruleId: string }) => x.ruleId === 'trend/steady-growth');
    expect(growth.locations[0].physicalLocation.region.startLine).toBe(50);
    expect(growth.locations[0].physicalLocation.artifactLocation.uri).toMatch(/proxy_store\.go$/);
    const junit = await run(['check', '--no-rules', leakDir, '-f', 'junit']);
    expect(junit.status).toBe(1);
    checkXml(junit.stdout);
    expect(junit.stdout).toMatch(/<testcase classname="leakscope.gate" name="steady-growth"[^>]*>\n\s*<failure /);
  });

  it('--baseline with --max-growth fails on growth', async () => {
    const r = await run(['check', '--no-rules', '--baseline', leakFiles[0], leakFiles[7], '--max-growth', '1%']);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^  FAIL  max-growth +\(allowed 0\.01\)  total 765 → 785 \(\+2\.6%\)/m);
  });

  it('passes the healthy series', async () => {
    const r = await run(['check', healthyDir, '--max-growth', '50%']);
    expect(r.stdout.split('\n')[0]).toBe('Gate: PASSED');
    expect(r.status).toBe(0);
  });
});
