/**
 * Several snapshots: goroutines over time for the top groups (matched by their normalized key) and
 * the diff between the first and the last snapshot.
 */
import type { DiffResult } from '../../analyze/compare.js';
import type { GroupTrend, SeriesTrend, TrendResult, TrendState } from '../../analyze/trend.js';
import { neededText, STATE_MEANING, trendVerdictText } from '../trend-words.js';
import type { Analysis, AnalyzedGroup } from '../../analyze/types.js';
import { lineChart, swatch, type Series } from './charts.js';
import { esc } from './escape.js';
import { fmtInt, plural } from './format.js';
import { groupName } from './frames.js';
import { waitLabel } from './waitkinds.js';

const TOP_SERIES = 8;
const MAX_DIFF_ROWS = 50;

/** A snapshot's name on the time axis: its capture time when the dump says, else its position. */
export function snapshotLabel(a: Analysis, i: number): string {
  return pointLabel(a.snapshot.capturedAt, i);
}

/** One line of the chart: a group's counts over the series. */
interface Line {
  readonly name: string;
  readonly group: AnalyzedGroup;
  readonly counts: readonly number[];
  /** From the input's trend: verdict and growth rate. */
  readonly trend?: GroupTrend;
}

/** Without a trend in the input: count each group (by key) in each snapshot, largest peak first. */
function linesOf(analyses: readonly Analysis[]): Line[] {
  const rows = new Map<string, { group: AnalyzedGroup; counts: number[] }>();
  analyses.forEach((a, i) => {
    for (const g of a.groups) {
      let row = rows.get(g.key);
      if (!row) rows.set(g.key, (row = { group: g, counts: new Array<number>(analyses.length).fill(0) }));
      row.counts[i] = (row.counts[i] ?? 0) + g.count;
    }
  });
  return [...rows.entries()]
    .sort(([ka, a], [kb, b]) => Math.max(...b.counts) - Math.max(...a.counts) || (ka < kb ? -1 : ka > kb ? 1 : 0))
    .map(([, r]) => ({ name: groupName(r.group), group: r.group, counts: r.counts }));
}

function rate(t: SeriesTrend): string {
  if (t.perMinute !== null) return `${t.perMinute >= 0 ? '+' : ''}${t.perMinute.toFixed(1)}/min`;
  return `${t.perSnapshot >= 0 ? '+' : ''}${t.perSnapshot.toFixed(1)}/snapshot`;
}

/** The state word as a badge (the same token every format prints), its meaning in the title. */
export function stateBadge(v: TrendState, needed?: number | null): string {
  const title = v === 'rising-inconclusive' ? `${STATE_MEANING[v]}: ${neededText(needed)}` : STATE_MEANING[v];
  return `<span class="state state-${v}" title="${esc(title)}">${esc(v)}</span>`;
}

/** 9,000 ms → "9 seconds", 90,000 → "2 minutes", 7,200,000 → "2 hours". */
export function spanText(ms: number): string {
  const unit = (n: number, one: string) => `${fmtInt(n)} ${n === 1 ? one : one + 's'}`;
  if (ms < 60_000) return unit(Math.max(1, Math.round(ms / 1000)), 'second');
  if (ms < 2 * 3_600_000) return unit(Math.round(ms / 60_000), 'minute');
  return unit(Math.round(ms / 3_600_000), 'hour');
}

function trendSummary(t: TrendResult): string {
  const minutes = t.durationMs > 0 ? ` over ${spanText(t.durationMs)}` : '';
  const text = trendVerdictText(t);
  const rest = text.slice(text.indexOf(':') + 1).trim();
  const what = `<b>Trend</b> ${stateBadge(t.verdict, t.needed)}: ${esc(rest)}`;
  return `<p class="trend-verdict" data-state="${t.verdict}">${what}${esc(minutes)}; all goroutines: ${esc(t.total.counts.map(fmtInt).join(' → '))} (${esc(rate(t.total))}, ${stateBadge(t.total.verdict, t.total.needed)}).</p>`;
}

function trendTable(lines: readonly Line[]): string {
  const rows = lines.filter((l) => l.trend).slice(0, MAX_DIFF_ROWS).map((l) => {
    const t = l.trend!;
    return (
      `<tr><td><span class="mono site">${esc(l.name)}</span></td><td><span class="wk wk-${l.group.waitKind}">${esc(waitLabel(l.group.waitKind))}</span></td>` +
      `<td class="num">${fmtInt(t.first)} → ${fmtInt(t.last)}</td><td class="num">${esc(rate(t))}</td>` +
      `<td class="${t.verdict === 'growing' ? 'delta-up' : ''}">${stateBadge(t.verdict, t.needed)}</td><td class="num">${esc(t.pAdjusted < 0.001 ? '<0.001' : t.pAdjusted.toFixed(3))}</td></tr>`
    );
  });
  if (rows.length === 0) return '';
  return (
    '<table><thead><tr><th>Group</th><th>Waiting on</th><th class="num">First → last</th><th class="num">Rate</th><th>Trend</th><th class="num">p (Holm)</th></tr></thead>' +
    `<tbody>${rows.join('')}</tbody></table>`
  );
}

/** Charts of all goroutines and of the top groups over the snapshots; the trend's verdicts when given. */
export function renderTrend(analyses: readonly Analysis[], t?: TrendResult): string {
  const labels = t ? t.points.map((p, i) => pointLabel(p.capturedAt, i)) : analyses.map(snapshotLabel);
  const xs = t && t.durationMs > 0 ? t.points.map((p) => p.time) : undefined;
  const lines: Line[] = t
    ? t.groups.map((g) => ({ name: groupName(g.group), group: g.group, counts: g.counts, trend: g }))
    : linesOf(analyses);
  const top = lines.slice(0, TOP_SERIES);
  const totals: Series = { name: 'All goroutines', values: t ? t.total.counts : analyses.map((a) => a.total) };
  const series: Series[] = top.map((l) => ({
    name: `${l.name} (${waitLabel(l.group.waitKind)}${l.trend ? `, ${l.trend.verdict}` : ''})`,
    values: l.counts,
  }));
  const legend = series
    .map((s, i) => `<li>${swatch(i)} <span class="mono">${esc(s.name)}</span> <span class="muted">${esc(s.values.map(fmtInt).join(' → '))}</span></li>`)
    .join('');
  return (
    (t ? trendSummary(t) : '') +
    '<h3>All goroutines</h3>' +
    lineChart([totals], labels, 'All goroutines over time', xs) +
    `<h3>Largest groups${t ? ' (growing first)' : ''}</h3>` +
    lineChart(series, labels, 'Goroutines over time per group', xs) +
    `<ul class="legend">${legend}</ul>` +
    (t ? trendTable(lines) : '')
  );
}

function pointLabel(capturedAt: string | undefined, i: number): string {
  if (!capturedAt) return `#${i + 1}`;
  const m = /T(\d\d:\d\d(?::\d\d)?)/.exec(capturedAt);
  return m ? m[1]! : capturedAt;
}

/** The diff: the input's own (`diff`, `check --baseline`), else first vs last snapshot. */
export function renderDiff(d: DiffResult, stacks: ReadonlySet<string>, anchor: (id: string) => string): string {
  const side = (r: DiffResult['before']): string => `${r.source}${r.index ? ` #${r.index + 1}` : ''}${r.capturedAt ? ` (${r.capturedAt})` : ''}`;
  const growth = d.totalGrowth === null ? '' : `, ${signedPct(d.totalGrowth)}`;
  const head =
    `<p>From <span class="mono">${esc(side(d.before))}</span> to <span class="mono">${esc(side(d.after))}</span>: ` +
    `${fmtInt(d.before.total)} → ${fmtInt(d.after.total)} goroutines (${signed(d.totalDelta)}${growth}); ` +
    `${plural(d.newGroups, 'new group')}, ${plural(d.vanishedGroups, 'vanished group')}.</p>`;
  const changed = d.groups.filter((g) => g.change !== 'unchanged');
  if (changed.length === 0) return head + '<p>No group changed size.</p>';
  const body = changed.slice(0, MAX_DIFF_ROWS).map((g) => {
    const name = groupName(g.group);
    const link = stacks.has(g.id) ? `<a href="#${anchor(g.id)}">${esc(name)}</a>` : esc(name);
    return (
      `<tr><td><span class="mono site">${link}</span></td><td><span class="wk wk-${g.waitKind}">${esc(waitLabel(g.waitKind))}</span></td>` +
      `<td class="num">${fmtInt(g.before)}</td><td class="num">${fmtInt(g.after)}</td>` +
      `<td class="num ${g.delta > 0 ? 'delta-up' : 'delta-down'}">${signed(g.delta)}</td>` +
      `<td class="num">${g.growth === null ? '' : esc(signedPct(g.growth))}</td><td>${esc(g.change)}</td></tr>`
    );
  });
  const more = changed.length > MAX_DIFF_ROWS ? `<p class="muted">${plural(changed.length - MAX_DIFF_ROWS, 'more changed group')} not listed.</p>` : '';
  return (
    head +
    '<table class="diff"><thead><tr><th>Group</th><th>Waiting on</th><th class="num">Before</th><th class="num">After</th>' +
    '<th class="num">Change</th><th class="num">Growth</th><th></th></tr></thead>' +
    `<tbody>${body.join('')}</tbody></table>${more}`
  );
}

function signed(n: number): string {
  return n > 0 ? `+${fmtInt(n)}` : fmtInt(n);
}

function signedPct(x: number): string {
  const p = (x * 100).toFixed(0);
  return x > 0 ? `+${p}%` : `${p}%`;
}
