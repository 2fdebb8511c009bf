/**
 * The fleet headline counts what the rows say, in every format: on the bundle of fleet-bundle.ts (a
 * leaking, a suspect and a healthy pod of real snapshots) the table, Markdown and JSON say
 * "1 leaking, 1 suspect, 1 healthy" with the same status per row; JUnit fails the leaking pod's case and
 * passes the others saying what they are; SARIF has a `fleet/leaking` error and a `fleet/suspect`
 * warning, and the counts in the run's properties.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkXml, errorsText, sarifValidator } from '../report/validators.js';
import { packFleet } from './fleet-bundle.js';
import { ensureBuilt, run } from './run.js';

let tmp = '';
let out: Record<string, string> = {};
const HEADLINE = 'Fleet: 3 processes: 1 leaking, 1 suspect, 1 healthy';

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'leakscope-fleet-status-'));
  const bundle = packFleet(tmp);
  await ensureBuilt();
  const fmts = ['json', 'markdown', 'sarif', 'junit', 'github'];
  const r = await run(['trend', bundle, ...fmts.flatMap((f) => ['--format', `${f}=${join(tmp, f)}`]), '--format', 'table']);
  expect(r.status, r.stderr).toBe(0);
  out = { table: r.stdout, ...Object.fromEntries(fmts.map((f) => [f, readFileSync(join(tmp, f), 'utf8')])) };
}, 300_000);
afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('fleet status: leaking, suspect, healthy', () => {
  it('the headline counts the rows, in the table, Markdown and JSON', () => {
    expect(out.table).toMatch(new RegExp(`^${HEADLINE}$`, 'm'));
    expect(out.markdown).toContain(`### ${HEADLINE}`);
    const f = JSON.parse(out.json).fleet;
    expect(f.counts).toEqual({ leaking: 1, suspect: 1, healthy: 1 });
    const rows = out.table.split('\n').filter((l) => /^│ quotes-/.test(l));
    const status = Object.fromEntries(f.processes.map((p: { name: string; status: string; verdict: string }) => [p.name, [p.status, p.verdict]]));
    expect(status).toEqual({
      'quotes-7d9f8b6c4-leak1': ['leaking', 'growing'],
      'quotes-7d9f8b6c4-warm1': ['suspect', 'rising-inconclusive'],
      'quotes-7d9f8b6c4-flat1': ['healthy', 'stable'],
    });
    for (const row of rows) {
      const [name, st] = row.split('│').slice(1, 3).map((c) => c.trim());
      expect(st).toBe(status[name][0]);
      expect(row).toContain(status[name][1]);
    }
    expect(rows).toHaveLength(3);
  });

  it('JUnit: the leaking pod fails, the others pass and say what they are', () => {
    checkXml(out.junit);
    const cases = [...out.junit.matchAll(/<testcase classname="leakscope.processes" name="([^"]+)">([\s\S]*?)<\/testcase>/g)].map((m) => [m[1], m[2]] as const);
    const byName = Object.fromEntries(cases);
    expect(byName['quotes-7d9f8b6c4-leak1']).toMatch(/<failure message="quotes-7d9f8b6c4-leak1 leaking: trend growing/);
    expect(byName['quotes-7d9f8b6c4-warm1']).not.toContain('<failure');
    expect(byName['quotes-7d9f8b6c4-warm1']).toMatch(/<system-out>suspect: trend rising-inconclusive \(about \d+ snapshots would confirm it\)/);
    expect(byName['quotes-7d9f8b6c4-flat1']).toMatch(/<system-out>healthy: trend stable/);
  });

  it('SARIF: a fleet/leaking error and a fleet/suspect warning, the counts in the run properties', () => {
    const log = JSON.parse(out.sarif);
    const validate = sarifValidator();
    expect(validate(log), errorsText(validate.errors)).toBe(true);
    const fleet = (log.runs[0].results as { ruleId: string; level: string; properties: { process: string; trend: string } }[]).filter((r) => r.ruleId.startsWith('fleet/'));
    expect(fleet.map((r) => [r.ruleId, r.level, r.properties.process, r.properties.trend])).toEqual([
      ['fleet/leaking', 'error', 'quotes-7d9f8b6c4-leak1', 'growing'],
      ['fleet/suspect', 'warning', 'quotes-7d9f8b6c4-warm1', 'rising-inconclusive'],
    ]);
    expect(log.runs[0].properties.fleet).toEqual({ leaking: 1, suspect: 1, healthy: 1 });
  });
});
