/**
 * `--format junit`: JUnit XML for CI test reports. One test case per rule (rules that ran and found
 * nothing pass, when the caller names them in `ruleIds`), one per gate limit, and for a support bundle
 * one per process. A rule fails when
 * it has a finding at or above the gate's `failOn` (default `error`); a gate limit fails when it was
 * exceeded. Lower-severity findings are listed in the case's `<system-out>`.
 */
import type { Finding } from '../rules/types.js';
import { textOrder } from '../rules/collate.js';
import { fileLine, mapPath, plural, SEVERITY_RANK, sortFindings } from './text.js';
import type { RenderOptions, ReportInput } from './types.js';
import { processStatusText } from './fleet.js';
import { trendVerdictText } from './trend-words.js';

interface Case {
  readonly classname: string;
  readonly name: string;
  readonly file?: string;
  readonly failure?: { message: string; type: string; body: string };
  readonly out?: string;
}

export function renderJunit(input: ReportInput, opts: RenderOptions = {}): string {
  const failOn = input.gate?.failOn ?? 'error';
  const byRule = new Map<string, Finding[]>();
  for (const id of opts.ruleIds ?? []) byRule.set(id, []);
  for (const f of sortFindings(input.findings)) {
    const list = byRule.get(f.ruleId) ?? [];
    list.push(f);
    byRule.set(f.ruleId, list);
  }
  const ruleCases: Case[] = [...byRule.keys()].sort(textOrder).map((id) => {
    const list = byRule.get(id)!;
    const failing = list.filter((f) => SEVERITY_RANK[f.severity] <= SEVERITY_RANK[failOn]);
    const others = list.filter((f) => !failing.includes(f));
    const loc = failing[0]?.location ?? list[0]?.location;
    return {
      classname: 'leakscope.rules',
      name: id,
      ...(loc ? { file: mapPath(loc.file, opts.pathPrefixes) } : {}),
      ...(failing.length
        ? { failure: { message: failing.length === 1 ? failing[0].title : `${plural(failing.length, 'finding')}; first: ${failing[0].title}`, type: failing[0].severity, body: failing.map((f) => describe(f, opts)).join('\n\n') } }
        : {}),
      ...(others.length ? { out: others.map((f) => describe(f, opts)).join('\n\n') } : {}),
    };
  });
  const gateCases: Case[] = (input.gate?.limits ?? []).map((l) => ({
    classname: 'leakscope.gate',
    name: l.name,
    ...(l.subject?.file ? { file: mapPath(l.subject.file, opts.pathPrefixes) } : {}),
    ...(l.passed
      ? { out: l.message }
      : { failure: { message: l.message, type: 'gate', body: `${l.name}: allowed ${l.limit}, actual ${l.actual}\n${l.message}${l.subject?.file ? `\nat ${fileLine({ file: mapPath(l.subject.file, opts.pathPrefixes), line: l.subject.line ?? 0 })}` : ''}` } }),
  }));
  const processCases = processesOf(input, failOn);
  // The trend's state in words: its failures are the trend findings' (and the gate's) cases.
  const trendCases: Case[] = input.trend ? [{ classname: 'leakscope.trend', name: `trend: ${input.trend.verdict}`, out: trendVerdictText(input.trend) }] : [];
  const suites = [suite('leakscope.rules', ruleCases)];
  if (input.gate) suites.push(suite('leakscope.gate', gateCases));
  if (trendCases.length) suites.push(suite('leakscope.trend', trendCases));
  if (processCases.length) suites.push(suite('leakscope.processes', processCases));
  const all = [...ruleCases, ...gateCases, ...trendCases, ...processCases];
  const failures = all.filter((c) => c.failure).length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="leakscope ${attr(input.command)}" tests="${all.length}" failures="${failures}" errors="0">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}

/**
 * A support bundle (several processes): one case per process, so that a CI system lists which pod
 * leaks. It fails when the fleet counts the process as leaking (its trend grows, or its top finding is a
 * leak at error), or its top finding is at or above the gate's `failOn`; a suspect process that passes
 * says so in its output.
 */
function processesOf(input: ReportInput, failOn: Finding['severity']): Case[] {
  return (input.fleet?.processes ?? []).map((p) => {
    const row = `${plural(p.snapshots, 'snapshot')}, goroutines ${p.first} → ${p.last}${p.perHour !== null ? ` (${p.perHour >= 0 ? '+' : ''}${Math.round(p.perHour)}/h)` : ''}, trend: ${p.verdict}`;
    const top = p.topFinding;
    const severe = top !== undefined && SEVERITY_RANK[top.severity] <= SEVERITY_RANK[failOn];
    const failing = p.status === 'leaking' || severe;
    const status = processStatusText(p);
    return {
      classname: 'leakscope.processes',
      name: p.name,
      ...(failing
        ? { failure: { message: `${p.name} ${status}`, type: p.status === 'leaking' ? 'leaking' : top!.severity, body: `${row}${top ? `\ntop finding [${top.severity}] ${top.title} (${top.ruleId})` : ''}\nlatest snapshot: ${p.latest}` } }
        : { out: `${status}\n${row}${top ? `\ntop finding [${top.severity}] ${top.title}` : ''}` }),
    };
  });
}

function suite(name: string, cases: Case[]): string {
  const failures = cases.filter((c) => c.failure).length;
  const lines = [`  <testsuite name="${attr(name)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="0">`];
  for (const c of cases) {
    const file = c.file ? ` file="${attr(c.file)}"` : '';
    const open = `    <testcase classname="${attr(c.classname)}" name="${attr(c.name)}"${file}`;
    if (!c.failure && !c.out) {
      lines.push(open + ' />');
      continue;
    }
    lines.push(open + '>');
    if (c.failure) {
      lines.push(`      <failure message="${attr(c.failure.message)}" type="${attr(c.failure.type)}">${text(c.failure.body)}</failure>`);
    }
    if (c.out) lines.push(`      <system-out>${text(c.out)}</system-out>`);
    lines.push('    </testcase>');
  }
  lines.push('  </testsuite>');
  return lines.join('\n');
}

function describe(f: Finding, opts: RenderOptions): string {
  const lines = [`[${f.severity}] ${f.title}`];
  if (f.location) lines.push(`at ${f.location.func} ${fileLine({ file: mapPath(f.location.file, opts.pathPrefixes), line: f.location.line })}`);
  lines.push(f.explanation, `Likely cause: ${f.cause}`, `Fix: ${f.fix}`, `Snapshot: ${f.snapshot.source}`);
  return lines.filter((l) => l.trim() !== '').join('\n');
}

/** Characters XML 1.0 cannot hold at all (most C0 controls, lone surrogates, U+FFFE/FFFF) become U+FFFD. */
function clean(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

export function text(s: string): string {
  return clean(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function attr(s: string): string {
  return text(s).replace(/"/g, '&quot;').replace(/'/g, '&apos;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}
