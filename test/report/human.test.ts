/** The human formats: the terminal table (order, palette, stacks, safety) and Markdown (escaping). */
import { beforeAll, describe, expect, it } from 'vitest';
import { renderMarkdown, renderTable } from '../../src/report/index.js';
import { code, md } from '../../src/report/markdown-kit.js';
import { ANSI, PLAIN } from '../../src/report/table-kit.js';
import type { ReportInput } from '../../src/report/types.js';
import { HEALTHY_DEBUG2, hostileInput, inspectInput, LEAK_DEBUG2 } from './fixtures.js';

let leak: ReportInput;
let healthy: ReportInput;

beforeAll(async () => {
  leak = await inspectInput([LEAK_DEBUG2]);
  healthy = await inspectInput([HEALTHY_DEBUG2]);
});

describe('table', () => {
  it('puts findings first, most severe first, then totals, wait kinds and the top groups', () => {
    const out = renderTable(leak, { top: 3 });
    const at = (s: string) => out.indexOf(s);
    expect(at('ERROR')).toBeGreaterThanOrEqual(0);
    expect(at('ERROR')).toBeLessThan(at('Total: 1,061 goroutines in'));
    expect(out.lastIndexOf('ERROR')).toBeLessThan(out.indexOf('INFO') === -1 ? Infinity : out.indexOf('INFO'));
    expect(at('Total: 1,061')).toBeLessThan(at('Wait kinds: '));
    expect(out).toMatch(/│ Count │ Share │ Wait +│ Blocking site +│ Function/);
    expect(out).toMatch(/│ +300 │ 28\.3% │ chan-send +│ proxy\/proxy_store\.go:50 +│ proxy\.returnErr/);
    expect(out).toMatch(/… \d+ more groups \(--top N to show more\)/);
    expect(out).not.toMatch(/\u001b/);
  });

  it('colors only through the injected palette', () => {
    expect(renderTable(leak, { palette: PLAIN })).toBe(renderTable(leak));
    const colored = renderTable(leak, { palette: ANSI });
    expect(colored).toContain('\u001b[31mERROR\u001b[39m');
    expect(colored.replace(/\u001b\[\d+m/g, '')).toBe(renderTable(leak));
  });

  it('prints the stacks of the top groups with the blocking site marked', () => {
    const out = renderTable(leak, { top: 2, stacks: true });
    expect(out).toMatch(/#2 · 300 goroutines · chan-send · group [0-9a-f]+\n {2}example\.com\/apiproxy\/pkg\/stores\/proxy\.returnErr \(inlined\) {2}← blocking site\n {6}example\.com\/apiproxy\/pkg\/stores\/proxy\/proxy_store\.go:50/);
    expect(out).toContain('  created by golang.org/x/sync/errgroup.(*Group).Go');
  });

  it('filters with --match', () => {
    const out = renderTable(leak, { match: /session\.go/ });
    expect(out).toContain('1 group match /session\\.go/');
    expect(out).toContain('server/session.go:57');
    expect(out).not.toContain('proxy/proxy_store.go:50 ');
  });

  it('says so when there is nothing to report', () => {
    const out = renderTable(healthy);
    expect(out).not.toContain('ERROR');
  });

  it('keeps dump strings on one line and shows control characters', () => {
    const input = hostileInput();
    const a = input.analyses[0];
    const evil = { ...a, snapshot: { ...a.snapshot, headline: { kind: 'panic' as const, message: 'panic: \u001b[2Jgone\nfake line', lines: [] } } };
    const out = renderTable({ ...input, analyses: [evil] }, { stacks: true });
    expect(out).not.toContain('\u001b');
    expect(out).toContain('panic: \\x1b[2Jgone\\nfake line');
    expect(out).toContain('labels: subscription=a|b`c<script>alert(1)</script>\\nnext');
  });
});

describe('markdown', () => {
  it('escapes pipes, backticks, HTML and newlines in cells and prose', () => {
    expect(md('a|b')).toBe('a\\|b');
    expect(md('<img src=x>')).toBe('&lt;img src=x&gt;');
    expect(md('x`y')).toBe('x\\`y');
    expect(md('one\ntwo')).toBe('one<br>two');
    expect(md('(*Store).watch')).toBe('\\(\\*Store\\).watch');
    expect(code('a|b')).toBe('`a\\|b`');
    expect(code('x`y')).toBe('`` x`y ``');
    expect(code('one\ntwo')).toBe('`one two`');
  });

  it('renders hostile dump strings inert: every table row has its cells, no raw HTML from the dump', () => {
    const out = renderMarkdown(hostileInput(), { stacks: true });
    expect(out).not.toMatch(/<script|<img/);
    for (const table of out.split('\n\n').filter((b) => b.startsWith('| '))) {
      const rows = table.split('\n');
      const cells = (r: string) => r.replace(/\\\|/g, '').split('|').length;
      for (const r of rows) expect(cells(r), r).toBe(cells(rows[0]));
    }
    const tags = out.match(/<\/?[a-z]+[^>]*>/g) ?? [];
    expect([...new Set(tags.map((t) => t.replace(/\s.*$/, '').replace('>', '')))].sort()).toEqual(['</details', '</sub', '</summary', '<br', '<details', '<sub', '<summary']);
  });

  it('summarises the leak sample for a PR comment', () => {
    const out = renderMarkdown(leak, { top: 3 });
    expect(out.split('\n')[0]).toMatch(/^## leakscope inspect: \d+ findings \(\d+ error\)$/);
    expect(out).toContain('| **error** | 300 goroutines blocked sending at proxy\\_store.go:50');
    expect(out).toContain('| 2 | 300 | 28.3% | chan-send | `proxy/proxy_store.go:50` | `proxy.returnErr` |');
    expect(out).toContain('| 1 | 380 | 35.8% | waitgroup \\(semacquire\\) | `proxy/proxy_store.go:118` |');
  });
});

describe('a finding over many groups alike', () => {
  it('lists its related and consequence groups alike once, with their number, in table and Markdown', () => {
    const f = leak.findings.find((x) => x.evidence.groups.some((g) => g.role === 'consequence'))!;
    const root = f.evidence.groups.find((g) => g.role === 'root')!;
    const then = f.evidence.groups.find((g) => g.role === 'consequence')!;
    const other = { ...root, role: 'related' as const, count: root.count + 1 };
    const related = { ...root, role: 'related' as const };
    // 3 related alike (not in a row), 1 other, 2 consequences alike.
    const groups = [root, related, other, { ...related }, then, { ...then }, { ...related }];
    const input = { ...leak, findings: [{ ...f, evidence: { ...f.evidence, groups } }] };
    const lines = renderTable(input).split('\n').filter((l) => /^ {2}(also|then) /.test(l));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(new RegExp(`^  also   3 groups, each ${root.count} goroutines? `));
    expect(lines[1]).toMatch(new RegExp(`^  also   ${root.count + 1} goroutines `));
    expect(lines[2]).toMatch(new RegExp(`^  then   2 groups, each ${then.count.toLocaleString('en-US')} goroutines? `));
    // (Its facts are bullets too: `- consequence: 380 goroutines in …`; a group's bullet names its site in code.)
    const bullets = renderMarkdown(input).split('\n').filter((l) => /^- (related|consequence): .* at `/.test(l));
    expect(bullets).toHaveLength(3);
    expect(bullets[0]).toMatch(/^- related: 3 groups, each /);
    expect(bullets[2]).toMatch(/^- consequence: 2 groups, each /);
  });
});
