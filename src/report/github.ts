/**
 * `--format github`: GitHub Actions workflow commands, one annotation per finding and per failed gate
 * limit (`::error file=…,line=…,title=…::message`), then one summary notice. Paths go through
 * `--path-prefix` so annotations land on repository files. Escaping follows the runner's rules:
 * in the message `%`, CR and LF; in properties also `:` and `,`.
 */
import type { Severity } from '../rules/types.js';
import { mapPath, plural, sortFindings } from './text.js';
import type { RenderOptions, ReportInput } from './types.js';

const COMMAND: Readonly<Record<Severity, string>> = { error: 'error', warning: 'warning', info: 'notice' };

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
  const lines: string[] = [];
  for (const f of sortFindings(input.findings)) {
    const file = f.location ? mapPath(f.location.file, opts.pathPrefixes) : undefined;
    lines.push(
      command(
        COMMAND[f.severity],
        [['file', file], ['line', f.location?.line], ['title', `leakscope ${f.ruleId}: ${f.title}`]],
        [f.explanation, `Likely cause: ${f.cause}`, `Fix: ${f.fix}`].filter((s) => s.trim() !== '').join('\n'),
      ),
    );
  }
  for (const l of input.gate?.limits ?? []) {
    if (l.passed) continue;
    const file = l.subject?.file ? mapPath(l.subject.file, opts.pathPrefixes) : undefined;
    lines.push(command('error', [['file', file], ['line', l.subject?.line], ['title', `leakscope gate ${l.name} failed`]], l.message));
  }
  const parts = [`${plural(input.findings.length, 'finding')}`];
  if (input.gate) parts.unshift(input.gate.passed ? 'gate passed' : 'gate failed');
  if (input.trend) parts.push(`trend: ${input.trend.verdict}`);
  const total = input.analyses.reduce((n, a) => n + a.total, 0);
  if (input.analyses.length) parts.push(`${plural(input.analyses.length, 'snapshot')}, ${plural(total, 'goroutine')}`);
  lines.push(command('notice', [['title', `leakscope ${input.command}`]], parts.join('; ')));
  return lines.join('\n') + '\n';
}
