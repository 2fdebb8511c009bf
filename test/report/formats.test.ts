/**
 * Every renderer on real pipeline output (samples and corpus) and on the hostile input: SARIF against
 * the official 2.1.0 schema, JSON against leakscope's schema, JUnit well-formed, and byte-identical
 * output for the same input.
 */
import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { diff } from '../../src/analyze/compare.js';
import { trend } from '../../src/analyze/trend.js';
import { evaluateGate, trendFindings } from '../../src/report/gate.js';
import { FORMATS, render, renderJson, renderJunit, renderSarif } from '../../src/report/index.js';
import type { ReportInput } from '../../src/report/types.js';
import { corpusAvailable } from '../helpers/paths.js';
import { CORPUS_PICKS, HEALTHY_DEBUG2, hostileAnalysis, hostileFinding, hostileInput, inspectInput, LEAK_DEBUG1, LEAK_DEBUG2, MAP_CRASH } from './fixtures.js';
import { checkXml, errorsText, reportValidator, sarifValidator } from './validators.js';

const inputs: Record<string, ReportInput> = {};

beforeAll(async () => {
  inputs.leak = await inspectInput([LEAK_DEBUG2]);
  inputs.healthy = await inspectInput([HEALTHY_DEBUG2]);
  inputs.crash = await inspectInput([MAP_CRASH]);
  inputs.hostile = hostileInput();
  if (corpusAvailable()) inputs.corpus = await inspectInput(CORPUS_PICKS.filter((p) => existsSync(p)));
  const [b] = (await inspectInput([LEAK_DEBUG1])).analyses;
  const [a] = inputs.leak.analyses;
  inputs.diff = { command: 'diff', analyses: [b, a], findings: [], diff: diff(b, a) };
  const series = [100, 140, 180, 220, 260, 300].map((n, i) => ({ analysis: hostileAnalysis(n), time: i * 60_000 }));
  const t = trend(series);
  const last = series[series.length - 1].analysis;
  const findings = [hostileFinding(last), ...trendFindings(t)];
  const gate = evaluateGate({ analyses: series.map((s) => s.analysis), findings, trend: t, diff: diff(series[0].analysis, last) }, { maxTotal: 500, maxGroup: 1000, maxGrowth: 0.5 });
  inputs.check = { command: 'check', analyses: series.map((s) => s.analysis), findings, trend: t, gate, diff: diff(series[0].analysis, last) };
});

const names = () => Object.keys(inputs);

describe('every format', () => {
  it('renders every input byte-identically twice', async () => {
    for (const name of names()) {
      for (const f of FORMATS.filter((f) => f !== 'html')) {
        const a = await render(f, inputs[name], { toolVersion: '1.2.3' });
        const b = await render(f, inputs[name], { toolVersion: '1.2.3' });
        expect(a, `${f} of ${name}`).toBe(b);
        expect(a.endsWith('\n'), `${f} of ${name} ends with a newline`).toBe(true);
      }
    }
  });
});

describe('json', () => {
  it('validates against the report schema (schemaVersion 1) for every input', () => {
    const validate = reportValidator();
    for (const name of names()) {
      const doc = JSON.parse(renderJson(inputs[name], { toolVersion: '1.2.3' }));
      expect(validate(doc), `${name}:\n${errorsText(validate.errors)}`).toBe(true);
      expect(doc.schemaVersion).toBe(1);
    }
  });

  it('keeps a fixed key order', () => {
    const doc = JSON.parse(renderJson(inputs.leak));
    expect(Object.keys(doc)).toEqual(['schemaVersion', 'tool', 'command', 'snapshots', 'findings', 'races']);
    expect(Object.keys(doc.snapshots[0].groups[0]).slice(0, 6)).toEqual(['id', 'key', 'count', 'share', 'waitKind', 'states']);
    expect(Object.keys(JSON.parse(renderJson(inputs.check)))).toEqual(['schemaVersion', 'tool', 'command', 'snapshots', 'findings', 'races', 'diff', 'trend', 'gate']);
  });

  it('carries the model: groups, counts and findings of the leak sample', () => {
    const doc = JSON.parse(renderJson(inputs.leak));
    const s = doc.snapshots[0];
    expect(s.total).toBe(1061);
    expect(s.groups.reduce((n: number, g: { count: number }) => n + g.count, 0)).toBe(1061);
    const sender = s.groups.find((g: { waitKind: string }) => g.waitKind === 'chan-send');
    expect(sender.count).toBe(300);
    expect(sender.blockingSite.line).toBe(50);
    expect(doc.findings[0].ruleId).toBe('core/blocked-send');
  });

  it('filters groups with match, and never applies top', () => {
    const all = JSON.parse(renderJson(inputs.leak, { top: 1 })).snapshots[0].groups;
    expect(all.length).toBe(inputs.leak.analyses[0].groups.length);
    const some = JSON.parse(renderJson(inputs.leak, { match: /returnErr/ })).snapshots[0].groups;
    expect(some.map((g: { count: number }) => g.count)).toEqual([300]);
  });
});

describe('sarif', () => {
  it('validates against the official SARIF 2.1.0 schema for every input', () => {
    const validate = sarifValidator();
    for (const name of names()) {
      const log = JSON.parse(renderSarif(inputs[name], { toolVersion: '1.2.3' }));
      expect(validate(log), `${name}:\n${errorsText(validate.errors)}`).toBe(true);
    }
  });

  it('the validator is real: it rejects a broken log', () => {
    const validate = sarifValidator();
    const log = JSON.parse(renderSarif(inputs.leak));
    log.runs[0].results[0].level = 'fatal';
    expect(validate(log)).toBe(false);
    delete log.version;
    expect(validate(log)).toBe(false);
    expect(validate({ version: '2.1.0', runs: [{ tool: { driver: {} } }] })).toBe(false);
  });

  it('locates the blocked send at its line, with the waiting parents as related locations', () => {
    const log = JSON.parse(renderSarif(inputs.leak, { pathPrefixes: [{ from: 'example.com/apiproxy/', to: 'samples/apiproxy-leak/' }] }));
    const run = log.runs[0];
    const send = run.results.find((r: { ruleId: string }) => r.ruleId === 'core/blocked-send');
    expect(send.level).toBe('error');
    expect(send.locations[0].physicalLocation).toEqual({
      artifactLocation: { uri: 'samples/apiproxy-leak/pkg/stores/proxy/proxy_store.go' },
      region: { startLine: 50 },
    });
    const related = send.relatedLocations.map((l: { physicalLocation: { region: { startLine: number } } }) => l.physicalLocation.region.startLine);
    expect(related).toContain(118);
    expect(run.tool.driver.rules.map((r: { id: string }) => r.id)).toContain('core/blocked-send');
    expect(send.ruleIndex).toBe(run.tool.driver.rules.findIndex((r: { id: string }) => r.id === 'core/blocked-send'));
    const keys = run.results.map((r: { locations?: { physicalLocation: { artifactLocation: { uri: string }; region?: { startLine: number } } }[] }) => {
      const p = r.locations?.[0]?.physicalLocation;
      return [p?.artifactLocation.uri ?? '', p?.region?.startLine ?? 0] as const;
    });
    const sorted = [...keys].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
    expect(keys).toEqual(sorted);
  });

  it('reports failed gate limits and trend leaks as results', () => {
    const run = JSON.parse(renderSarif(inputs.check)).runs[0];
    const ids = run.results.map((r: { ruleId: string }) => r.ruleId);
    expect(ids).toContain('trend/steady-growth');
    expect(ids).toContain('gate/max-total');
    const growth = run.results.find((r: { ruleId: string }) => r.ruleId === 'trend/steady-growth');
    expect(growth.locations[0].physicalLocation.region.startLine).toBe(50);
  });
});

describe('junit', () => {
  it('is well-formed XML for every input', () => {
    for (const name of names()) {
      const xml = renderJunit(inputs[name], { ruleIds: ['core/blocked-send', 'core/lock-pileup'] });
      expect(() => checkXml(xml), name).not.toThrow();
    }
  });

  it('the checker is real: it rejects broken XML', () => {
    expect(() => checkXml('<a><b></a></b>')).toThrow();
    expect(() => checkXml('<a x="1 < 2"/>')).toThrow();
    expect(() => checkXml('<a>&nbsp;</a>')).toThrow();
    expect(() => checkXml('<a/><b/>')).toThrow();
  });

  it('has one case per rule and per gate limit; errors and failed limits fail', () => {
    const xml = renderJunit(inputs.check, { ruleIds: ['core/blocked-send', 'core/lock-pileup'] });
    expect(xml).toContain('<testcase classname="leakscope.rules" name="core/lock-pileup" />');
    expect(xml).toMatch(/<testcase classname="leakscope.rules" name="core\/blocked-send"[^>]*>\n\s*<failure /);
    for (const l of inputs.check.gate!.limits) expect(xml).toContain(`classname="leakscope.gate" name="${l.name}"`);
    const failed = inputs.check.gate!.limits.filter((l) => !l.passed).length;
    expect(xml).toMatch(new RegExp(`<testsuite name="leakscope.gate" tests="${inputs.check.gate!.limits.length}" failures="${failed}"`));
  });
});

describe('github', () => {
  it('escapes properties and data as the runner requires', async () => {
    const out = await render('github', inputs.hostile);
    const line = out.split('\n').find((l) => l.startsWith('::error '))!;
    const [, props, message] = line.match(/^::error ([^:]*)::(.*)$/)!;
    expect(props).toContain('file=/work/main/samples/apiproxy-leak/pkg/stores/proxy/proxy_store.go');
    expect(props).toContain('line=50');
    expect(props).not.toMatch(/[\r\n]/);
    for (const p of props.split(',')) expect(p).toMatch(/^(file|line|title)=[^,:]*$/);
    expect(message).not.toMatch(/[\r\n]/);
    expect(message).toContain('%0A');
    expect(message).toContain('100%25 of');
    expect(out.trimEnd().split('\n').pop()).toMatch(/^::notice title=leakscope inspect::1 finding; 1 snapshot, 680 goroutines$/);
  });
});
