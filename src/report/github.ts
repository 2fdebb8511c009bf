/**
 * `--format github`: GitHub Actions workflow commands (`::error file=…,line=…,title=…::message`): one
 * annotation per location (a finding, with failed gate limits and other findings on the same line
 * folded in), one per failed gate limit elsewhere, then one summary notice. Paths go through
 * `--path-prefix` so annotations land on repository files. Escaping follows the runner's rules:
 * in the message `%`, CR and LF; in properties also `:` and `,`.
 */
import type { Severity } from '../rules/types.js';
import { fmtInt, mapPath, plural, sortFindings } from './text.js';
import type { RenderOptions, ReportInput } from './types.js';

const COMMAND: Readonly<Record<Severity, string>> = { error: 'error', warning: 'warning', info: 'notice' };
const RANK: Readonly<Record<string, number>> = { error: 0, warning: 1, notice: 2 };

export function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function command(name: string, props: [string, string | number | undefined][], message: string): string {
  const p = props
    .filter((kv): kv is [string, string | number] => kv[1] !== undefined && kv[1] !== '' && kv[1] !== 0)
    .map(([k, v]) => `${k}=${escapeProperty(String(v))}`)
    .join(',');
  return `::${name}${p ? ' ' + p : ''}::${escapeData(message)}`;
}

export function renderGithub(input: ReportInput, opts: RenderOptions = {}): string {
  // One annotation per location: findings and failed gate limits on the same file:line are one
  // problem (a leak is found by a rule, by the trend and by the gate), so they share one annotation,
  // the most severe first; the others become lines of its message.
  interface Note { cmd: string; file?: string; line?: number; title: string; body: string[] }
  const notes: Note[] = [];
  const byLocation = new Map<string, Note>();
  const add = (cmd: string, file: string | undefined, line: number | undefined, title: string, body: string) => {
    const key = file ? `${file}\u0000${line ?? 0}` : undefined;
    const same = key === undefined ? undefined : byLocation.get(key);
    if (same) {
      if (RANK[cmd] < RANK[same.cmd]) same.cmd = cmd;
      same.body.push('', `Also: ${title}`, body);
      return;
    }
    const n: Note = { cmd, title, body: [body], ...(file ? { file } : {}), ...(line ? { line } : {}) };
    notes.push(n);
    if (key !== undefined) byLocation.set(key, n);
  };
  for (const f of sortFindings(input.findings)) {
    const file = f.location ? mapPath(f.location.file, opts.pathPrefixes) : undefined;
    const body = [f.explanation, ...f.evidence.facts.filter((x) => x.startsWith('also found in')), `Likely cause: ${f.cause}`, `Fix: ${f.fix}`];
    add(COMMAND[f.severity], file, f.location?.line, `leakscope ${f.ruleId}: ${f.title}`, body.filter((s) => s.trim() !== '').join('\n'));
  }
  for (const l of input.gate?.limits ?? []) {
    if (l.passed) continue;
    // The findings limit restates the findings annotated above.
    if (l.name === 'findings' && input.findings.length > 0) continue;
    const file = l.subject?.file ? mapPath(l.subject.file, opts.pathPrefixes) : undefined;
    add('error', file, l.subject?.line, `leakscope gate ${l.name} failed`, l.message);
  }
  const lines = notes.map((n) => command(n.cmd, [['file', n.file], ['line', n.line], ['title', n.title]], n.body.join('\n')));
  const parts = [`${plural(input.findings.length, 'finding')}`];
  if (input.rulesSkipped) parts.push('rules not run (--no-rules)');
  if (input.gate) parts.unshift(input.gate.passed ? 'gate passed' : 'gate failed');
  if (input.trend) parts.push(`trend: ${input.trend.verdict}`);
  parts.push(...goroutineSummary(input));
  lines.push(command('notice', [['title', `leakscope ${input.command}`]], parts.join('; ')));
  return lines.join('\n') + '\n';
}

/**
 * Goroutine totals are never summed over snapshots: one snapshot gives its total; a series (every
 * command but inspect) first → latest; inspect's independent dumps the largest.
 */
function goroutineSummary(input: ReportInput): string[] {
  const a = input.analyses;
  if (a.length === 0) return [];
  if (a.length === 1) return [`1 snapshot, ${plural(a[0].total, 'goroutine')}`];
  if (input.command === 'inspect') {
    return [`${plural(a.length, 'snapshot')}, the largest ${plural(Math.max(...a.map((x) => x.total)), 'goroutine')}`];
  }
  return [`${plural(a.length, 'snapshot')}, goroutines first → latest: ${fmtInt(a[0].total)} → ${fmtInt(a[a.length - 1].total)}`];
}
