/**
 * The HTML renderer without a browser: byte-identical output, escaping, the CSP hashes, caps for big
 * dumps, verdict wording, and the sections for several snapshots.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { diff } from '../../src/analyze/compare.js';
import { trend } from '../../src/analyze/trend.js';
import type { Analysis } from '../../src/analyze/types.js';
import { contentSecurityPolicy, renderHtml } from '../../src/report/html.js';
import { esc, jsonForScript, prose } from '../../src/report/html/escape.js';
import { fmtInt, fmtShare, shortFunc } from '../../src/report/html/format.js';
import type { Renderer, ReportInput } from '../../src/report/types.js';
import type { Finding } from '../../src/rules/types.js';
import { analysis, apiproxyAnalysis, apiproxyFinding, APIPROXY_GROUPS } from '../browser/fixtures.js';

const EVIL = `<img src=x onerror=alert(1)></script><script>alert(2)</script>\u2028<!--`;

function leakInput(): ReportInput {
  const a = apiproxyAnalysis();
  return { command: 'inspect', analyses: [a], findings: [apiproxyFinding(a)] };
}

function inlineBlocks(html: string): { style: string; script: string; json: string } {
  const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
  const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
  const json = /<script type="application\/json" id="leakscope-data">([\s\S]*?)<\/script>/.exec(html)![1]!;
  return { style, script, json };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('renderHtml', () => {
  test('is byte-identical for the same input, whatever the clock', () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2001-02-03T04:05:06Z'));
    const one = renderHtml(leakInput());
    vi.setSystemTime(new Date('2031-12-30T23:59:59Z'));
    const two = renderHtml(leakInput());
    expect(two).toBe(one);
    expect(one).not.toMatch(/20(01|31)/);
  });

  test('the CSP allows exactly the inline style and script by hash, nothing remote', () => {
    const html = renderHtml(leakInput());
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)![1]!.replace(/&#39;/g, "'");
    const { style, script } = inlineBlocks(html);
    const hash = (s: string): string => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`style-src ${hash(style)}`);
    expect(csp).toContain(`script-src ${hash(script)}`);
    expect(csp).not.toMatch(/unsafe|https?:|\*/);
    expect(csp).toBe(contentSecurityPolicy());
    expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//);
    expect(html).not.toMatch(/ style="| on[a-z]+="/);
    expect(script).not.toMatch(/\beval\b|innerHTML|new Function|document\.write/);
  });

  test('escapes every dump string and keeps the JSON block closed', () => {
    const a = analysis(`/tmp/${EVIL}.txt`, [
      { id: 'e1', count: 3, waitKind: 'chan-send', state: EVIL, site: 0, labels: { [EVIL]: EVIL },
        frames: [[`main.${EVIL}`, `/src/${EVIL}/x.go`, 12, 'user']], creator: [`main.${EVIL}`, `/src/${EVIL}/y.go`, 3] },
    ], { headline: { kind: 'panic', message: `panic: ${EVIL}`, lines: [] }, warnings: [{ severity: 'warning', code: 'x', message: EVIL }] });
    const f: Finding = { ...apiproxyFinding(apiproxyAnalysis()), title: EVIL, explanation: EVIL, cause: `\`${EVIL}\``, fix: EVIL,
      causeLocations: [{ file: EVIL, line: 1, excerpt: EVIL, message: EVIL, confidence: 'high' }] };
    const html = renderHtml({ command: 'inspect', analyses: [a], findings: [f] });
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<!--');
    expect(html.match(/<script[ >]/g)).toHaveLength(2);
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    const { json } = inlineBlocks(html);
    expect(json).not.toMatch(/[<>&\u2028\u2029]/);
    const data = JSON.parse(json) as { rows: Array<{ t: string; l: string }> };
    expect(data.rows[0]!.l).toContain(EVIL);
    expect(html).toContain(esc(EVIL));
  });

  test('escape helpers', () => {
    expect(esc(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
    expect(JSON.parse(jsonForScript({ s: EVIL }))).toEqual({ s: EVIL });
    expect(jsonForScript('</script>\u2029')).toBe('"\\u003c/script\\u003e\\u2029"');
    expect(prose('use `select { case c <- v: }` <b>')).toBe('use <code>select { case c &lt;- v: }</code> &lt;b&gt;');
    expect(fmtInt(1234567)).toBe('1,234,567');
    expect(fmtShare(0.46234)).toBe('46.2%');
    expect(fmtShare(0.0004)).toBe('<0.1%');
    expect(shortFunc('k8s.io/client-go/tools/cache.(*Reflector).watch.func1')).toBe('cache.(*Reflector).watch.func1');
    expect(shortFunc('example.com/a.Map[go.shape.string,example.com/b.T]')).toBe('a.Map[go.shape.string,example.com/b.T]');
  });

  test('verdict: "1 leak found", "2 leaks found", "No leak found"', () => {
    const input = leakInput();
    const one = renderHtml(input);
    expect(one).toContain('<span class="big">1 leak found</span>');
    const f = input.findings[0]!;
    expect(renderHtml({ ...input, findings: [f, { ...f, title: 'second' }] })).toContain('<span class="big">2 leaks found</span>');
    expect(renderHtml({ ...input, findings: [] })).toContain('<span class="big">No leak found</span>');
    expect(renderHtml({ ...input, findings: [{ ...f, severity: 'info' }] })).toContain('<span class="big">No leak found</span>');
    expect(renderHtml({ ...input, findings: [{ ...f, category: 'crash' }] })).toContain('<span class="big">1 crash found</span>');
  });

  test('the leak sample page has every section a support engineer needs', () => {
    const html = renderHtml(leakInput());
    for (const id of ['findings', 'wait-kinds', 'groups', 'stacks', 'tree']) expect(html).toContain(`<section id="${id}">`);
    expect(html).toContain('<dt>Fix</dt>');
    expect(html.match(/<tr id="g-/g)).toHaveLength(APIPROXY_GROUPS.length);
    expect(html.match(/<details class="stack" id="s-/g)).toHaveLength(APIPROXY_GROUPS.length);
    expect(html).toMatch(/<svg class="chart"[^>]*aria-label="Goroutines per wait kind"/);
    expect(html).not.toContain('<section id="trend">');
  });

  test('caps the page: table rows and stacks, the rest summarized', () => {
    const groups = Array.from({ length: 3000 }, (_, i) => ({
      id: `t${i}`, count: 3000 - i, waitKind: 'select' as const, state: 'select', site: 0,
      frames: [[`example.com/x.f${i}`, `/src/x/f${i}.go`, i + 1, 'user'] as [string, string, number, 'user']],
    }));
    const a = analysis('big.txt', groups);
    const html = renderHtml({ command: 'inspect', analyses: [a], findings: [] }, { maxRows: 2000, maxStacks: 500 });
    expect(html.match(/<tr id="g-/g)).toHaveLength(2000);
    expect(html.match(/<details class="stack" id="s-/g)).toHaveLength(500);
    expect(html).toContain('1,000 smaller groups with');
    expect(html).toContain('Stacks of 2,500 smaller groups');
    expect(html.length).toBeLessThan(3 * 1024 * 1024);
  });

  test('several snapshots: charts over time and the diff', () => {
    const series: Analysis[] = [100, 200, 300, 400, 500, 600, 700, 800].map((n, i) =>
      analysis('series.txt', [
        { id: 'a1', count: n, waitKind: 'chan-send', state: 'chan send', site: 0, frames: [['main.leak', '/src/main.go', 10, 'user']] },
        { id: 'b2', count: 50, waitKind: 'io', state: 'IO wait', site: 0, frames: [['main.serve', '/src/main.go', 20, 'user']] },
        ...(i === 7 ? [{ id: 'c3', count: 7, waitKind: 'sleep' as const, state: 'sleep', site: 0, frames: [['main.nap', '/src/main.go', 30, 'user']] as [string, string, number, 'user'][] }] : []),
      ], { index: i, capturedAt: `2024-05-01T10:0${i}:00Z` }),
    );
    const base: ReportInput = { command: 'trend', analyses: series, findings: [] };
    const html = renderHtml(base);
    for (const id of ['trend', 'diff', 'snapshots']) expect(html).toContain(`<section id="${id}">`);
    expect(html).toContain('aria-label="Goroutines over time per group"');
    expect(html).toContain('<polyline');
    expect(html).toMatch(/<td class="num">100<\/td><td class="num">800<\/td><td class="num delta-up">\+700<\/td>/);
    expect(html).toContain('10:07:00');
    const withResults = renderHtml({
      ...base,
      diff: diff(series[0]!, series[7]!),
      trend: trend(series.map((a, i) => ({ analysis: a, time: i * 60_000 }))),
    });
    expect(withResults).toContain('p (Holm)');
    expect(withResults).toMatch(/grows steadily/);
  });

  test('created-by tree nests linked groups under their parent', () => {
    const a = apiproxyAnalysis();
    const linked: Analysis = { ...a, links: [{ child: 'a1', parent: 'b2', count: 300, via: 'shared-frames' }] };
    const html = renderHtml({ command: 'inspect', analyses: [linked], findings: [] });
    const tree = /<section id="tree">([\s\S]*?)<\/section>/.exec(html)![1]!;
    expect(tree).toMatch(/listAndWatch<\/a><\/span><ul><li><span class="cnt">300<\/span>[^]*returnErr/);
    expect(tree).toContain('inferred from stacks');
    const cycle: Analysis = { ...a, links: [{ child: 'a1', parent: 'b2', count: 300, via: 'creator-id' }, { child: 'b2', parent: 'a1', count: 380, via: 'creator-id' }] };
    const cyc = /<section id="tree">([\s\S]*?)<\/section>/.exec(renderHtml({ command: 'inspect', analyses: [cycle], findings: [] }))![1]!;
    expect(cyc).toContain('the links form a cycle');
    expect(cyc.match(/returnErr/g)).toHaveLength(1);
  });

  test('is a Renderer of the report registry', () => {
    const r: Renderer = renderHtml;
    expect(r(leakInput(), { toolVersion: '9.9.9' })).toContain('leakscope 9.9.9');
  });
});
