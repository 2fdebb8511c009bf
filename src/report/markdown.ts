/**
 * `--format markdown`: for PR comments and job summaries ($GITHUB_STEP_SUMMARY). GitHub-flavoured:
 * tables, `<details>` for each finding's full text and for stacks. Every string from a dump is escaped.
 */
import { aggregateSentence } from './aggregates.js';
import { fleetMarkdownSection } from './fleet-text.js';
import type { Analysis, AnalyzedGroup } from '../analyze/types.js';
import { WAIT_KINDS } from '../model/dump.js';
import { shortFunc } from '../model/func-name.js';
import type { Finding } from '../rules/types.js';
import { code, fenced, md, mdProse, mdTable } from './markdown-kit.js';
import {
  alikePrefix, fileLine, fmtDelta, fmtDuration, fmtGrowth, fmtInt, fmtP, fmtRate, fmtShare, fmtWait, listedEvidence, plural, selectGroups,
  programNote, shortSite, siteOf, snapshotTitle, sortFindings, topN, waitColumn,
} from './text.js';
import type { RenderOptions, ReportInput } from './types.js';
import { seriesStateText, trendVerdictText } from './trend-words.js';

export function renderMarkdown(input: ReportInput, opts: RenderOptions = {}): string {
  const out: string[] = [`## leakscope ${input.command}: ${headline(input)}`];
  if (input.fleet) out.push(fleetMarkdownSection(input.fleet));
  if (input.gate) {
    out.push(`### Gate ${input.gate.passed ? 'passed ✅' : 'failed ❌'}`);
    out.push(mdTable(
      ['Result', 'Limit', 'Allowed', 'Detail'],
      input.gate.limits.map((l) => [l.passed ? 'pass' : '**FAIL**', code(l.name), md(String(l.limit)), md(l.message)]),
      [false, false, true, false],
    ));
  }
  if (input.findings.length) out.push(findings(input.findings));
  else if (input.rulesSkipped) out.push('_Rules not run (--no-rules)._');
  if (input.diff) out.push(diff(input, opts));
  if (input.trend) out.push(trend(input, opts));
  const aggregates = input.diff || input.trend || input.gate ? aggregateSentence(input, code) : undefined;
  if (aggregates) out.push(`_${aggregates}_`);
  const shown = input.fleet ? [] : input.command === 'inspect' || input.command === 'report' ? input.analyses : input.command === 'check' ? input.analyses.slice(-1) : [];
  for (const a of shown) out.push(snapshot(a, opts));
  if (input.races?.length) out.push(`### Data races\n\n${plural(input.races.length, 'race report')} in the input.`);
  return out.join('\n\n') + '\n';
}

function headline(input: ReportInput): string {
  const errors = input.findings.filter((f) => f.severity === 'error').length;
  const parts: string[] = [];
  if (input.gate) parts.push(input.gate.passed ? 'gate passed' : 'gate failed');
  parts.push(input.findings.length ? `${plural(input.findings.length, 'finding')} (${errors} error)` : input.rulesSkipped ? 'rules not run' : 'no findings');
  if (input.trend) parts.push(`trend ${input.trend.verdict}`);
  return parts.join(', ');
}

function findings(list: readonly Finding[]): string {
  const sorted = sortFindings(list);
  const out = ['### Findings'];
  out.push(mdTable(
    ['Severity', 'Finding', 'Where', 'Goroutines'],
    sorted.map((f) => [
      f.severity === 'error' ? '**error**' : f.severity,
      md(f.title),
      f.location ? code(`${shortFunc(f.location.func)} ${shortSite(f.location)}`.trim()) : '',
      fmtInt(f.evidence.goroutines),
    ]),
    [false, false, false, true],
  ));
  for (const f of sorted) out.push(details(f));
  return out.join('\n\n');
}

function details(f: Finding): string {
  const body: string[] = [];
  // A pprof listing without line numbers has the function only.
  if (f.location) body.push(`**Where:** ${code(f.location.func)}${f.location.file ? ` at ${code(fileLine(f.location))}` : ''}`);
  body.push(`**Why:** ${mdProse(f.explanation)}`);
  const bullets = f.evidence.facts.map((fact) => `- ${mdProse(fact)}`);
  for (const { group: g, alike } of listedEvidence(f)) {
    const site = g.site ? ` at ${code(`${shortFunc(g.site.func)} ${shortSite(g.site)}`)}` : '';
    bullets.push(`- ${g.role}: ${md(alikePrefix(alike) + plural(g.count, 'goroutine'))} ${md(waitColumn({ waitKind: g.waitKind, states: [g.state] }))}${site}`);
  }
  if (bullets.length) body.push(bullets.join('\n'));
  body.push(`**Likely cause:** ${mdProse(f.cause)}`);
  for (const c of f.causeLocations ?? []) {
    body.push(`- ${code(fileLine(c))}: ${mdProse(c.message)} (${c.confidence} confidence)${c.excerpt ? '\n\n' + fenced(c.excerpt) : ''}`);
  }
  body.push(`**Fix:** ${mdProse(f.fix)}`);
  body.push(`<sub>${md(f.ruleId)} · ${md(f.snapshot.source)}</sub>`);
  return `<details><summary>${md(f.severity)}: ${md(f.title)}</summary>\n\n${body.join('\n\n')}\n\n</details>`;
}

function snapshot(a: Analysis, opts: RenderOptions): string {
  const s = a.snapshot;
  const out = [`### ${code(s.source)}${s.index > 0 ? ` snapshot ${s.index + 1}` : ''}`];
  const facts = [`${plural(a.total, 'goroutine')} in ${plural(a.groups.length, 'group')}`, snapshotTitle(s, md)];
  if (s.capturedAt) facts.push(`captured ${md(s.capturedAt)}`);
  out.push(facts.join(' · '));
  if (s.headline) out.push(`**${md(s.headline.message)}**`);
  if (s.truncated) out.push('> **Truncated:** the input ended inside this dump; counts are lower bounds.');
  const kinds = WAIT_KINDS.filter((k) => (a.byWaitKind[k] ?? 0) > 0)
    .sort((x, y) => (a.byWaitKind[y] ?? 0) - (a.byWaitKind[x] ?? 0) || WAIT_KINDS.indexOf(x) - WAIT_KINDS.indexOf(y))
    .map((k) => `${k} ${fmtInt(a.byWaitKind[k] ?? 0)}`);
  if (kinds.length) out.push(`Wait kinds: ${kinds.join(', ')}`);
  const program = programNote(a);
  if (program) out.push(md(program));
  const groups = selectGroups(a.groups, opts);
  const top = groups.slice(0, topN(opts));
  if (top.length) {
    out.push(mdTable(
      ['#', 'Count', 'Share', 'Wait', 'Blocking site', 'Function', 'Waiting'],
      top.map((g, i) => [
        String(i + 1), fmtInt(g.count), fmtShare(g.share), md(waitColumn(g)), code(shortSite(siteOf(g))),
        code(shortFunc(siteOf(g)?.func ?? g.frames[0]?.func ?? '')), md(fmtWait(g.wait)),
      ]),
      [true, true, true, false, false, false, true],
    ));
  }
  if (groups.length > top.length) out.push(`_${md(plural(groups.length - top.length, 'more group'))} not shown._`);
  if (opts.stacks) for (const [i, g] of top.entries()) out.push(stack(g, i + 1));
  return out.join('\n\n');
}

function stack(g: AnalyzedGroup, n: number): string {
  const lines = g.frames.flatMap((f) => [f.func + (f.inlined ? ' (inlined)' : ''), ...(f.file ? [`\t${fileLine(f)}`] : [])]);
  if (g.creator) lines.push(`created by ${g.creator.func}`, ...(g.creator.file ? [`\t${fileLine(g.creator)}`] : []));
  return `<details><summary>#${n}: ${md(plural(g.count, 'goroutine'))} ${md(waitColumn(g))}</summary>\n\n${fenced(lines.join('\n'))}\n\n</details>`;
}

function diff(input: ReportInput, opts: RenderOptions): string {
  const d = input.diff!;
  const out = ['### Diff'];
  out.push(`${code(d.before.source)} (${fmtInt(d.before.total)}) → ${code(d.after.source)} (${fmtInt(d.after.total)}): **${fmtDelta(d.totalDelta)}** (${fmtGrowth(d.totalGrowth)}); ${plural(d.newGroups, 'new group')}, ${plural(d.vanishedGroups, 'vanished group')}`);
  const keep = new Set(selectGroups(d.groups.map((g) => g.group), opts));
  const rows = d.groups.filter((g) => keep.has(g.group) && g.change !== 'unchanged').slice(0, topN(opts));
  if (rows.length) {
    out.push(mdTable(
      ['Change', 'Before', 'After', 'Delta', 'Growth', 'Wait', 'Blocking site'],
      rows.map((g) => [g.change, fmtInt(g.before), fmtInt(g.after), fmtDelta(g.delta), fmtGrowth(g.growth), md(waitColumn(g.group)), code(shortSite(siteOf(g.group)))]),
      [false, true, true, true, true, false, false],
    ));
  }
  return out.join('\n\n');
}

function trend(input: ReportInput, opts: RenderOptions): string {
  const t = input.trend!;
  const out = ['### Trend'];
  out.push(`${plural(t.points.length, 'snapshot')} over ${fmtDuration(t.durationMs)}. Total ${fmtInt(t.total.first)} → ${fmtInt(t.total.last)} ${t.total.sparkline} (${fmtRate(t.total.perMinute)}/min, p=${fmtP(t.total.pAdjusted)}): ${md(seriesStateText(t.total))}`);
  out.push(`**Verdict: ${md(trendVerdictText(t))}**`);
  const keep = new Set(selectGroups(t.groups.map((g) => g.group), opts));
  const rows = t.groups.filter((g) => keep.has(g.group)).slice(0, topN(opts));
  if (rows.length) {
    out.push(mdTable(
      ['Verdict', 'First', 'Last', 'Per min', 'p', 'Trend', 'Wait', 'Blocking site'],
      rows.map((g) => [g.verdict === 'growing' ? '**growing**' : g.verdict, fmtInt(g.first), fmtInt(g.last), fmtRate(g.perMinute), fmtP(g.pAdjusted), g.sparkline, md(waitColumn(g.group)), code(shortSite(siteOf(g.group)))]),
      [false, true, true, true, true, false, false, false],
    ));
  }
  return out.join('\n\n');
}
