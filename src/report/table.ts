/**
 * The terminal report (`--format table`, the default): findings first, most severe first; then per
 * snapshot the headline, totals, the wait-kind breakdown and a cli-table3 table of the top groups;
 * `--stacks` adds each top group's stack. Colors come from the injected palette only.
 */
import type { Analysis, AnalyzedGroup } from '../analyze/types.js';
import { WAIT_KINDS, type RaceReport } from '../model/dump.js';
import { shortFunc } from '../model/func-name.js';
import type { Finding } from '../rules/types.js';
import { clip, indent, PLAIN, table } from './table-kit.js';
import { fleetTableSection } from './fleet-text.js';
import { aggregateSentence } from './aggregates.js';
import { diffSection, gateSection, trendSection } from './table-compare.js';
import {
  alikePrefix, fileLine, fmtInt, fmtShare, fmtWait, listedEvidence, oneLine, plural, programNote, prose, selectGroups, shortSite, siteOf, snapshotTitle, sortFindings,
  topN, waitColumn,
} from './text.js';
import type { Palette, RenderOptions, ReportInput } from './types.js';

export function renderTable(input: ReportInput, opts: RenderOptions = {}): string {
  const p = opts.palette ?? PLAIN;
  const out: string[] = [];
  if (input.fleet) out.push(fleetTableSection(input.fleet, p));
  if (input.gate) out.push(gateSection(input.gate, p));
  out.push(findingsSection(input.findings, p, input.rulesSkipped));
  if (input.diff) out.push(diffSection(input.diff, opts, p));
  if (input.trend) out.push(trendSection(input.trend, opts, p));
  const aggregates = input.diff || input.trend || input.gate ? aggregateSentence(input) : undefined;
  if (aggregates) out.push(p.dim(aggregates));
  const shown = snapshotsShown(input);
  for (const a of shown) out.push(snapshotSection(a, opts, p));
  if (input.races?.length) out.push(racesSection(input.races, p));
  return out.filter((s) => s !== '').join('\n\n') + '\n';
}

/** inspect: every snapshot; check: the latest; diff, trend and watch have their own tables. */
function snapshotsShown(input: ReportInput): Analysis[] {
  // A fleet's processes are its table's rows; their snapshots are in the JSON and HTML reports.
  if (input.fleet) return [];
  if (input.command === 'inspect' || input.command === 'report') return input.analyses;
  if (input.command === 'check' && input.analyses.length) return [input.analyses[input.analyses.length - 1]];
  return [];
}

export function findingsSection(findings: readonly Finding[], p: Palette, rulesSkipped = false): string {
  if (findings.length === 0) return rulesSkipped ? p.dim('Rules not run (--no-rules).') : p.ok('No findings.');
  const counts = { error: 0, warning: 0, info: 0 };
  for (const f of findings) counts[f.severity]++;
  const head = p.bold(
    `Findings: ${plural(findings.length, 'finding')} (${counts.error} error, ${counts.warning} warning, ${counts.info} info)`,
  );
  return [head, ...sortFindings(findings).map((f) => findingBlock(f, p))].join('\n\n');
}

function findingBlock(f: Finding, p: Palette): string {
  const sev = f.severity === 'error' ? p.error('ERROR') : f.severity === 'warning' ? p.warning('WARNING') : p.info('INFO');
  const lines = [`${sev}  ${p.bold(oneLine(f.title))}  ${p.dim(`[${oneLine(f.ruleId)}]`)}`];
  const row = (label: string, text: string) => {
    if (text.trim() === '') return;
    const t = prose(text);
    lines.push(`  ${p.dim(label.padEnd(6))} ${t.includes('\n') ? t.split('\n').join('\n         ') : t}`);
  };
  if (f.location) row('where', oneLine(`${f.location.func}  ${fileLine(f.location)}`.trimEnd()));
  row('why', f.explanation);
  // A finding about a site reached by 20,000 stacks has as many facts alike, one after another (one
  // string, rules/candidate.ts): their line is made once.
  const facts = f.evidence.facts;
  let fact: string | undefined;
  let line: string | undefined;
  for (let i = 0; i < facts.length; i++) {
    if (line !== undefined && facts[i] === fact) {
      lines.push(line);
      continue;
    }
    const n = lines.length;
    row('fact', oneLine((fact = facts[i])));
    line = lines.length > n ? lines[n] : undefined;
  }
  for (const { group: g, alike } of listedEvidence(f)) {
    const site = g.site ? ` at ${shortFunc(g.site.func)} ${shortSite(g.site)}`.trimEnd() : '';
    row(g.role === 'consequence' ? 'then' : 'also', oneLine(`${alikePrefix(alike)}${plural(g.count, 'goroutine')} ${waitColumn({ waitKind: g.waitKind, states: [g.state] })}${site}`));
  }
  row('cause', f.cause);
  for (const c of f.causeLocations ?? []) {
    row('source', `${oneLine(fileLine(c))}  ${oneLine(c.message)} (${c.confidence} confidence)${c.excerpt ? `\n  ${c.excerpt.trim()}` : ''}`);
  }
  row('fix', f.fix);
  row('in', oneLine(f.snapshot.index > 0 ? `${f.snapshot.source} #${f.snapshot.index + 1}` : f.snapshot.source));
  return lines.join('\n');
}

export function snapshotSection(a: Analysis, opts: RenderOptions, p: Palette): string {
  const s = a.snapshot;
  const out: string[] = [];
  const name = oneLine(s.index > 0 ? `${s.source} (snapshot ${s.index + 1})` : s.source);
  out.push(p.bold(name) + p.dim(`  ${snapshotTitle(s)}${s.capturedAt ? `, captured ${s.capturedAt}` : ''}`));
  if (s.headline) out.push(p.error(oneLine(s.headline.message)));
  const declared = s.declaredTotal !== undefined && s.declaredTotal !== s.total ? ` (the dump states ${fmtInt(s.declaredTotal)})` : '';
  out.push(`Total: ${plural(a.total, 'goroutine')} in ${plural(a.groups.length, 'group')}${declared}`);
  if (s.truncated) out.push(p.warning('Truncated: the input ended inside this dump; counts are lower bounds.'));
  out.push('Wait kinds: ' + waitKinds(a));
  const program = programNote(a);
  if (program) out.push(p.dim(oneLine(program)));

  const groups = selectGroups(a.groups, opts);
  const top = groups.slice(0, topN(opts));
  if (opts.match) out.push(p.dim(`${plural(groups.length, 'group')} match ${String(opts.match)}`));
  if (top.length) {
    // The wait column only where the format prints wait minutes and some group has them.
    const waits = top.some((g) => g.wait);
    const rows = top.map((g, i) => [
      String(i + 1),
      fmtInt(g.count),
      fmtShare(g.share),
      oneLine(waitColumn(g)),
      oneLine(shortSite(siteOf(g))),
      oneLine(clip(shortFunc(siteOf(g)?.func ?? g.frames[0]?.func ?? ''), 60)),
      ...(waits ? [fmtWait(g.wait)] : []),
    ]);
    const head = ['#', 'Count', 'Share', 'Wait', 'Blocking site', 'Function', ...(waits ? ['Waiting'] : [])];
    out.push(table(head, rows, ['right', 'right', 'right', 'left', 'left', 'left', 'right'], p));
  }
  if (groups.length > top.length) out.push(p.dim(`… ${plural(groups.length - top.length, 'more group')} (--top N to show more)`));
  if (opts.stacks) out.push(top.map((g, i) => stackBlock(g, i + 1, p)).join('\n\n'));
  const warnings = s.warnings.filter((w) => w.severity === 'warning');
  if (warnings.length) out.push(p.warning(`${plural(warnings.length, 'reader warning')}; first: ${oneLine(warnings[0].message)}`));
  return out.join('\n');
}

function waitKinds(a: Analysis): string {
  const parts: string[] = [];
  const kinds = WAIT_KINDS.filter((k) => (a.byWaitKind[k] ?? 0) > 0).sort(
    (x, y) => (a.byWaitKind[y] ?? 0) - (a.byWaitKind[x] ?? 0) || WAIT_KINDS.indexOf(x) - WAIT_KINDS.indexOf(y),
  );
  for (const k of kinds) {
    const n = a.byWaitKind[k] ?? 0;
    parts.push(`${k} ${fmtInt(n)} (${fmtShare(a.total ? n / a.total : 0)})`);
  }
  return parts.length ? parts.join(', ') : 'none';
}

/** A group's stack, innermost first, the blocking site marked. */
export function stackBlock(g: AnalyzedGroup, n: number, p: Palette): string {
  const head = [`#${n}`, plural(g.count, 'goroutine'), oneLine(waitColumn(g)), fmtWait(g.wait), `group ${g.id}`].filter((x) => x !== '');
  const lines = [p.bold(head.join(' · '))];
  const labels = Object.keys(g.labels).sort();
  if (labels.length) lines.push(p.dim('  labels: ' + labels.map((k) => oneLine(`${k}=${g.labels[k]}`)).join(', ')));
  for (const f of g.frames) {
    const mark = g.blockingSite && f.index === g.blockingSite.index ? p.warning('  ← blocking site') : '';
    lines.push(`  ${f.origin === 'user' ? oneLine(f.func) : p.dim(oneLine(f.func))}${f.inlined ? p.dim(' (inlined)') : ''}${mark}`);
    if (f.file) lines.push(p.dim(`      ${oneLine(fileLine(f))}`));
  }
  if (g.elidedFrames !== 0) lines.push(p.dim(g.elidedFrames > 0 ? `  …${g.elidedFrames} frames elided…` : '  …additional frames elided…'));
  if (g.partial) lines.push(p.warning('  (stack incomplete)'));
  if (g.creator) {
    const ids = g.creator.goroutineIds.length ? ` in goroutine ${g.creator.goroutineIds.join(', ')}` : '';
    lines.push(`  created by ${oneLine(g.creator.func)}${ids}`);
    if (g.creator.file) lines.push(p.dim(`      ${oneLine(fileLine(g.creator))}`));
  }
  return indent(lines.join('\n'), '');
}

function racesSection(races: readonly RaceReport[], p: Palette): string {
  const lines = [p.bold(`Data races: ${plural(races.length, 'report')}`)];
  for (const r of races) {
    const [a, b] = r.accesses;
    const site = (x: typeof a) => {
      const f = x.frames[0];
      return f ? oneLine(`${shortFunc(f.func)} ${shortSite(f)}`) : '?';
    };
    lines.push(`  ${a.op} by goroutine ${a.goroutineId} at ${site(a)}  ×  ${b.op} by goroutine ${b.goroutineId} at ${site(b)}`);
  }
  return lines.join('\n');
}
