/**
 * The `check` gate: limits from flags or the config file's `gate:` keys, evaluated over the analyses,
 * the findings, the baseline diff and the trend. Also turns trend leaks into findings, so a steady
 * rise shows up like any rule's finding in every format (a SARIF result on the blocking line, a
 * JUnit failure, a GitHub annotation).
 */
import type { DiffResult } from '../analyze/compare.js';
import type { GroupTrend, SeriesTrend, TrendResult } from '../analyze/trend.js';
import type { Analysis } from '../analyze/types.js';
import { shortFunc } from '../model/func-name.js';
import type { Finding, Severity } from '../rules/types.js';
import { fmtDuration, fmtGrowth, fmtInt, fmtP, fmtRate, plural, SEVERITY_RANK, shortFile, shortSite, siteOf, waitLabel } from './text.js';
import type { GateLimit, GateResult, GateSubject } from './types.js';
import { correctionText, neededText, trendVerdictText } from './trend-words.js';

export interface GateLimits {
  readonly maxTotal?: number;
  readonly maxGroup?: number;
  /** Growth ratio of the total from the baseline (or first input) to the latest input: 0.5 = +50%. */
  readonly maxGrowth?: number;
  /**
   * Most goroutines one group may gain from the baseline (or first input) to the latest input. A group
   * fails only when it also at least doubles, so a busy pool that moves by a few does not.
   */
  readonly maxGroupGrowth?: number;
  /** Archive members skipped or read part-way allowed (`--fail-on-skipped` is 0). */
  readonly maxSkipped?: number;
  /** Findings at or above this severity fail the gate; default `error`. */
  readonly failOn?: Severity;
}

export interface GateFacts {
  /** The inputs checked (not the baseline), oldest first. */
  readonly analyses: readonly Analysis[];
  readonly findings: readonly Finding[];
  readonly diff?: DiffResult;
  readonly trend?: TrendResult;
  /** What the archives among the inputs lost: members skipped or read part-way, and why. */
  readonly skipped?: readonly { readonly name: string; readonly why: string }[];
}

export function evaluateGate(facts: GateFacts, limits: GateLimits): GateResult {
  const out: GateLimit[] = [];
  const failOn = limits.failOn ?? 'error';
  if (limits.maxTotal !== undefined) out.push(maxTotal(facts.analyses, limits.maxTotal));
  if (limits.maxGroup !== undefined) out.push(maxGroup(facts.analyses, limits.maxGroup));
  if (limits.maxGrowth !== undefined && facts.diff) out.push(maxGrowth(facts.diff, limits.maxGrowth));
  if (limits.maxGroupGrowth && facts.diff) out.push(maxGroupGrowth(facts.diff, limits.maxGroupGrowth));
  if (limits.maxSkipped !== undefined) out.push(maxSkipped(facts.skipped ?? [], limits.maxSkipped));
  if (facts.trend && facts.trend.verdict !== 'insufficient-data') out.push(steadyGrowth(facts.trend));
  const failing = facts.findings.filter((f) => SEVERITY_RANK[f.severity] <= SEVERITY_RANK[failOn]);
  const worst = [...failing].sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity])[0];
  out.push({
    name: 'findings',
    limit: failOn,
    actual: failing.length,
    passed: failing.length === 0,
    message: failing.length
      ? `${plural(failing.length, 'finding')} at ${failOn} or above; first: ${worst.title}`
      : `no finding at ${failOn} or above`,
    ...(worst?.location ? { subject: { groupId: worst.evidence.groups[0]?.id ?? '', ...worst.location, source: worst.snapshot.source } } : {}),
  });
  return { passed: out.every((l) => l.passed), limits: out, failOn };
}

function maxTotal(analyses: readonly Analysis[], limit: number): GateLimit {
  let worst: Analysis | undefined;
  for (const a of analyses) if (!worst || a.total > worst.total) worst = a;
  const actual = worst?.total ?? 0;
  const passed = actual <= limit;
  const where = worst ? ` in ${shortFile(worst.snapshot.source)}` : '';
  return {
    name: 'max-total',
    limit,
    actual,
    passed,
    message: `${plural(actual, 'goroutine')}${where} ${passed ? '≤' : '>'} ${fmtInt(limit)}`,
  };
}

function maxGroup(analyses: readonly Analysis[], limit: number): GateLimit {
  let best: { a: Analysis; i: number } | undefined;
  for (const a of analyses) {
    const g = a.groups[0];
    if (g && (!best || g.count > best.a.groups[best.i].count)) best = { a, i: 0 };
  }
  if (!best) return { name: 'max-group', limit, actual: 0, passed: true, message: 'no goroutines' };
  const g = best.a.groups[best.i];
  const site = siteOf(g);
  const passed = g.count <= limit;
  return {
    name: 'max-group',
    limit,
    actual: g.count,
    passed,
    message: `largest group: ${plural(g.count, 'goroutine')} ${waitLabel(g)} at ${shortSite(site) || shortFunc(g.frames[0]?.func ?? '?')} ${passed ? '≤' : '>'} ${fmtInt(limit)}`,
    subject: subject(g.id, site, best.a.snapshot.source),
  };
}

function maxGrowth(d: DiffResult, limit: number): GateLimit {
  const growth = d.totalGrowth ?? (d.totalDelta > 0 ? Infinity : 0);
  const passed = growth <= limit;
  const top = d.groups.find((g) => g.delta > 0);
  const state = top && waitLabel(top.group) !== 'unknown' ? ` ${waitLabel(top.group)}` : '';
  const most = top ? `; most: ${fmtInt(top.delta)} more${state} at ${shortSite(siteOf(top.group)) || top.id}` : '';
  return {
    name: 'max-growth',
    limit,
    actual: Number.isFinite(growth) ? growth : Number.MAX_VALUE,
    passed,
    message: `total ${fmtInt(d.before.total)} → ${fmtInt(d.after.total)} (${fmtGrowth(d.totalGrowth)}) from ${shortFile(d.before.source)} to ${shortFile(d.after.source)}, limit +${(limit * 100).toFixed(1)}%${most}`,
    ...(top ? { subject: subject(top.id, siteOf(top.group), d.after.source) } : {}),
  };
}

function maxGroupGrowth(d: DiffResult, limit: number): GateLimit {
  // A group "grows" past the limit when it gains more than `limit` goroutines and at least doubles.
  const grown = d.groups.filter((g) => g.delta > limit && g.after >= 2 * g.before).sort((a, b) => b.delta - a.delta);
  const top = grown[0];
  const passed = top === undefined;
  const state = top && waitLabel(top.group) !== 'unknown' ? ` ${waitLabel(top.group)}` : '';
  const message = top
    ? `${plural(grown.length, 'group')} gained more than ${fmtInt(limit)} goroutines and at least doubled from ${shortFile(d.before.source)} to ${shortFile(d.after.source)}; most: ${fmtInt(top.before)} → ${fmtInt(top.after)}${state} at ${shortSite(siteOf(top.group)) || top.id}`
    : `no group gained more than ${fmtInt(limit)} goroutines and doubled from ${shortFile(d.before.source)} to ${shortFile(d.after.source)}`;
  return {
    name: 'max-group-growth',
    limit,
    actual: top?.delta ?? Math.max(0, ...d.groups.map((g) => g.delta)),
    passed,
    message,
    ...(top ? { subject: subject(top.id, siteOf(top.group), d.after.source) } : {}),
  };
}

function maxSkipped(skipped: readonly { name: string; why: string }[], limit: number): GateLimit {
  const passed = skipped.length <= limit;
  const first = skipped[0];
  return {
    name: 'max-skipped',
    limit,
    actual: skipped.length,
    passed,
    message: skipped.length
      ? `${plural(skipped.length, 'archive member')} skipped or read part-way; first: ${first.name}: ${first.why}`
      : 'every archive member was read',
  };
}

function steadyGrowth(t: TrendResult): GateLimit {
  const leak = t.groups.find((g) => g.verdict === 'growing');
  const passed = t.verdict !== 'growing';
  const what = leak
    ? `growing: ${plural(t.leaks, 'group')} grow${t.leaks === 1 ? 's' : ''} steadily; fastest: ${shortSite(siteOf(leak.group)) || leak.id} ${fmtInt(leak.first)} → ${fmtInt(leak.last)} (${fmtRate(leak.perMinute)}/min, p=${fmtP(leak.pAdjusted)})`
    : passed
      ? `${trendVerdictText(t)} (over ${plural(t.points.length, 'snapshot')})`
      : `growing: the total grows steadily: ${fmtInt(t.total.first)} → ${fmtInt(t.total.last)} (p=${fmtP(t.total.pAdjusted)})`;
  return {
    name: 'steady-growth',
    limit: `alpha ${t.alpha}`,
    actual: t.leaks,
    passed,
    message: what,
    ...(leak ? { subject: subject(leak.id, siteOf(leak.group), t.points[t.points.length - 1]?.source) } : {}),
  };
}

function subject(groupId: string, site: { func: string; file: string; line: number } | undefined, source?: string): GateSubject {
  const s: GateSubject = site ? { groupId, func: site.func, file: site.file, line: site.line } : { groupId };
  return source === undefined ? s : { ...s, source };
}

/**
 * One error finding per group the trend calls `growing` (and one for the total when no group explains
 * it); when nothing grows, one warning per group that is `rising-inconclusive` (or one for the total),
 * so a rise too short to confirm is visible in every format without failing a gate at `error`.
 */
export function trendFindings(t: TrendResult): Finding[] {
  const last = t.points[t.points.length - 1];
  const snapshot = { source: last?.source ?? '', index: last?.index ?? 0 };
  const span = `${plural(t.points.length, 'snapshot')} over ${fmtDuration(t.durationMs)}`;
  if (t.verdict === 'rising-inconclusive') return risingFindings(t, span, snapshot);
  if (t.verdict !== 'growing') return [];
  const out: Finding[] = t.groups.filter((g) => g.verdict === 'growing').map((g) => groupFinding(g, t, span, snapshot));
  if (out.length === 0 && t.total.verdict === 'growing') {
    out.push({
      ruleId: 'trend/total-growth',
      severity: 'error',
      category: 'leak',
      confidence: 'medium',
      pack: 'trend',
      title: `The goroutine total grows steadily: ${fmtInt(t.total.first)} → ${fmtInt(t.total.last)} (${fmtRate(t.total.perMinute)}/min)`,
      explanation: `Trend growing: across ${span} the total rose monotonically (Mann-Kendall p=${fmtP(t.total.pAdjusted)}, one test), though no single group's rise is confirmed (${correctionText(t)}): ${riserText(t)}`,
      cause: 'Goroutines are started faster than they finish, spread over several stacks.',
      fix: 'Diff the first and last snapshots (`leakscope diff`) to see which groups gained goroutines, and check that each one ends on every path.',
      evidence: { groups: [], goroutines: t.total.last, stack: [], facts: [`total per snapshot: ${t.total.counts.map(fmtInt).join(', ')}  ${t.total.sparkline}`] },
      snapshot,
    });
  }
  return out;
}

function groupFinding(g: GroupTrend, t: TrendResult, span: string, snapshot: Finding['snapshot']): Finding {
  const site = siteOf(g.group);
  const where = site ? ` at ${shortFunc(site.func)} (${shortSite(site)})` : '';
  const label = waitLabel(g.group);
  const state = label === 'unknown' ? '' : label;
  const lastTotal = t.points[t.points.length - 1]?.total ?? 0;
  const f: Finding = {
    ruleId: 'trend/steady-growth',
    severity: 'error',
    category: 'leak',
    confidence: g.pAdjusted < t.alpha / 10 ? 'high' : 'medium',
    pack: 'trend',
    title: `Steady growth: ${fmtInt(g.first)} → ${fmtInt(g.last)} goroutines${state ? ' ' + state : ''}${where}, ${fmtRate(g.perMinute)}/min`,
    explanation:
      `Trend growing: across ${span} this group rose monotonically (Mann-Kendall p=${fmtP(g.pAdjusted)}, ${correctionText(t)}) and has not levelled off, ` +
      'which is how a leak looks even while the numbers are small: goroutines start here and never finish.',
    cause: `The goroutines wait${state ? ` (${state})` : ''} for something that no longer happens: a reader that returned, a channel nobody closes, a lock never released.`,
    fix: 'Make every path that abandons the other side (early return, timeout, cancellation) release these goroutines: close or drain the channel, or select on ctx.Done() next to the blocking operation.',
    evidence: {
      groups: [
        {
          id: g.id,
          count: g.last,
          share: lastTotal ? g.last / lastTotal : 0,
          waitKind: g.waitKind,
          state,
          ...(site ? { site: { func: site.func, file: site.file, line: site.line } } : {}),
          ...(g.group.wait ? { wait: { min: g.group.wait.min, max: g.group.wait.max } } : {}),
          role: 'root',
        },
      ],
      goroutines: g.last,
      stack: g.group.frames,
      facts: [`count per snapshot: ${g.counts.map(fmtInt).join(', ')}  ${g.sparkline}`],
    },
    snapshot,
  };
  return site ? { ...f, location: { file: site.file, line: site.line, func: site.func } } : f;
}

/** Which groups make up a total's rise: the groups rising inconclusively, else "many groups". */
function riserText(t: TrendResult): string {
  const risers = t.groups.filter((g) => g.verdict === 'rising-inconclusive');
  if (risers.length === 0) return 'many groups each leave a few goroutines behind.';
  const top = risers.slice(0, 3).map((g) => `${shortSite(siteOf(g.group)) || g.id} ${fmtInt(g.first)} → ${fmtInt(g.last)}`);
  return `${plural(risers.length, 'group')} rise${risers.length === 1 ? 's' : ''} without confirmation yet (rising-inconclusive): ${top.join(', ')}${risers.length > 3 ? ', …' : ''}.`;
}

/** Warnings for rises the test cannot confirm yet: the groups' (sorted first by the trend), else the total's. */
function risingFindings(t: TrendResult, span: string, snapshot: Finding['snapshot']): Finding[] {
  const lastTotal = t.points[t.points.length - 1]?.total ?? 0;
  const rising = t.groups.filter((g) => g.verdict === 'rising-inconclusive');
  const series: { s: SeriesTrend; g?: GroupTrend }[] = rising.length ? rising.map((g) => ({ s: g, g })) : [{ s: t.total }];
  return series.map(({ s, g }) => {
    const site = g ? siteOf(g.group) : undefined;
    const label = g ? waitLabel(g.group) : '';
    const state = label === 'unknown' ? '' : label;
    const where = site ? ` at ${shortFunc(site.func)} (${shortSite(site)})` : '';
    const what = g ? `${fmtInt(s.first)} → ${fmtInt(s.last)} goroutines${state ? ' ' + state : ''}${where}` : `the goroutine total ${fmtInt(s.first)} → ${fmtInt(s.last)}`;
    const p = g ? `p=${fmtP(s.pAdjusted)}, ${correctionText(t)}` : `p=${fmtP(s.pAdjusted)}, one test`;
    const f: Finding = {
      ruleId: 'trend/rising-inconclusive',
      severity: 'warning',
      category: 'leak',
      confidence: 'low',
      pack: 'trend',
      title: `Rising, not confirmed: ${what}, ${fmtRate(s.perMinute)}/min (${neededText(s.needed)})`,
      explanation:
        `Trend rising-inconclusive: across ${span} this ${g ? 'group' : 'total'} rose (Sen's slope ${fmtRate(s.perMinute)}/min, Kendall tau ${s.mannKendall.tau.toFixed(2)}), ` +
        `but ${plural(t.points.length, 'snapshot')} cannot confirm a steady rise at alpha ${t.alpha} (${p}); ${neededText(s.needed)}.`,
      cause: 'Either a leak caught early, or load that rose during the capture; the series is too short to tell them apart.',
      fix: `Take more snapshots at the same interval (${neededText(s.needed)}) and run \`leakscope trend\` again; a leak keeps rising, a load peak falls back.`,
      evidence: {
        groups: g
          ? [{
            id: g.id, count: g.last, share: lastTotal ? g.last / lastTotal : 0, waitKind: g.waitKind, state,
            ...(site ? { site: { func: site.func, file: site.file, line: site.line } } : {}),
            ...(g.group.wait ? { wait: { min: g.group.wait.min, max: g.group.wait.max } } : {}),
            role: 'root',
          }]
          : [],
        goroutines: s.last,
        stack: g ? g.group.frames : [],
        facts: [`count per snapshot: ${s.counts.map(fmtInt).join(', ')}  ${s.sparkline}`],
      },
      snapshot,
    };
    return site ? { ...f, location: { file: site.file, line: site.line, func: site.func } } : f;
  });
}
