/** Terminal sections for comparisons: the diff table, the trend table, and the gate verdict. */
import type { DiffResult, GroupDiff } from '../analyze/compare.js';
import type { GroupTrend, TrendResult, TrendState } from '../analyze/trend.js';
import { correctionText, seriesStateText, trendVerdictText } from './trend-words.js';
import { shortFunc } from '../model/func-name.js';
import { clip, table } from './table-kit.js';
import {
  fmtDelta, fmtDuration, fmtGrowth, fmtInt, fmtP, fmtRate, oneLine, plural, selectGroups, shortSite, siteOf, topN,
  waitColumn,
} from './text.js';
import type { GateResult, Palette, RenderOptions } from './types.js';

export function diffSection(d: DiffResult, opts: RenderOptions, p: Palette): string {
  const out: string[] = [];
  out.push(
    p.bold('Diff: ') +
      `${oneLine(d.before.source)} (${plural(d.before.total, 'goroutine')}) → ${oneLine(d.after.source)} (${plural(d.after.total, 'goroutine')}): ` +
      colorDelta(d.totalDelta, `${fmtDelta(d.totalDelta)} (${fmtGrowth(d.totalGrowth)})`, p),
  );
  out.push(`${plural(d.newGroups, 'new group')}, ${plural(d.vanishedGroups, 'vanished group')}, ${plural(d.groups.length, 'group')} in all`);
  const keep = new Set(selectGroups(d.groups.map((g) => g.group), opts));
  const shown = d.groups.filter((g) => keep.has(g.group));
  const changed = shown.filter((g) => g.change !== 'unchanged');
  const top = changed.slice(0, topN(opts));
  if (top.length) {
    out.push(
      table(
        ['Change', 'Before', 'After', 'Delta', 'Growth', 'Wait', 'Blocking site', 'Function'],
        top.map((g) => diffRow(g, p)),
        ['left', 'right', 'right', 'right', 'right', 'left', 'left', 'left'],
        p,
      ),
    );
  } else {
    out.push(p.ok('No group changed.'));
  }
  if (changed.length > top.length) out.push(p.dim(`… ${plural(changed.length - top.length, 'more changed group')} (--top N to show more)`));
  return out.join('\n');
}

function diffRow(g: GroupDiff, p: Palette): string[] {
  const site = siteOf(g.group);
  return [
    g.change === 'new' || g.change === 'grown' ? p.warning(g.change) : g.change,
    fmtInt(g.before),
    fmtInt(g.after),
    colorDelta(g.delta, fmtDelta(g.delta), p),
    fmtGrowth(g.growth),
    oneLine(waitColumn(g.group)),
    oneLine(shortSite(site)),
    oneLine(clip(shortFunc(site?.func ?? g.group.frames[0]?.func ?? ''), 50)),
  ];
}

function colorDelta(n: number, text: string, p: Palette): string {
  return n > 0 ? p.warning(text) : n < 0 ? p.ok(text) : text;
}

export function trendSection(t: TrendResult, opts: RenderOptions, p: Palette): string {
  const out: string[] = [];
  const span = t.points.length ? ` over ${fmtDuration(t.durationMs)}` : '';
  out.push(p.bold(`Trend: ${plural(t.points.length, 'snapshot')}${span}`));
  out.push('Verdict: ' + verdictText(t, p));
  const tot = t.total;
  out.push(
    `Total: ${fmtInt(tot.first)} → ${fmtInt(tot.last)}  ${tot.sparkline}  ${fmtRate(tot.perMinute)}/min  ` +
      `p=${fmtP(tot.pAdjusted)}  ${verdictWord(tot.verdict, p, seriesStateText(tot))}`,
  );
  const keep = new Set(selectGroups(t.groups.map((g) => g.group), opts));
  const shown = t.groups.filter((g) => keep.has(g.group));
  const top = shown.slice(0, topN(opts));
  if (top.length) {
    out.push(
      table(
        ['Verdict', 'First', 'Last', 'Max', 'Per min', 'p', 'Trend', 'Wait', 'Blocking site', 'Function'],
        top.map((g) => trendRow(g, p)),
        ['left', 'right', 'right', 'right', 'right', 'right', 'left', 'left', 'left', 'left'],
        p,
      ),
    );
  }
  if (shown.length > top.length) out.push(p.dim(`… ${plural(shown.length - top.length, 'more group')} (--top N to show more)`));
  out.push(p.dim(`Mann-Kendall test of monotonic growth at alpha ${t.alpha}: the total is one test; groups ${correctionText(t)}; rate is Sen's slope.`));
  return out.join('\n');
}

function trendRow(g: GroupTrend, p: Palette): string[] {
  const site = siteOf(g.group);
  return [
    verdictWord(g.verdict, p),
    fmtInt(g.first),
    fmtInt(g.last),
    fmtInt(g.max),
    fmtRate(g.perMinute),
    fmtP(g.pAdjusted),
    g.sparkline,
    oneLine(waitColumn(g.group)),
    oneLine(shortSite(site)),
    oneLine(clip(shortFunc(site?.func ?? g.group.frames[0]?.func ?? ''), 50)),
  ];
}

export function verdictText(t: TrendResult, p: Palette): string {
  const text = trendVerdictText(t);
  return t.verdict === 'growing' ? p.error(text) : t.verdict === 'stable' ? p.ok(text) : p.warning(text);
}

function verdictWord(v: TrendState, p: Palette, text: string = v): string {
  return v === 'growing' ? p.error(text) : v === 'rising-inconclusive' ? p.warning(text) : v === 'bounded' ? p.info(text) : v === 'shrinking' ? p.ok(text) : v === 'stable' ? text : p.dim(text);
}

export function gateSection(g: GateResult, p: Palette): string {
  const head = g.passed ? p.ok('Gate: PASSED') : p.error('Gate: FAILED');
  // One line per limit rather than a table: details are long sentences that a table would stretch.
  const width = Math.max(...g.limits.map((l) => l.name.length));
  const lines = g.limits.map(
    (l) => `  ${l.passed ? p.ok('pass') : p.error('FAIL')}  ${l.name.padEnd(width)}  (allowed ${String(l.limit)})  ${oneLine(l.message)}`,
  );
  return [head, ...lines].join('\n');
}
