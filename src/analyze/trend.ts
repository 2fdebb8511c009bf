/**
 * trend(series): how each group's count moves over a time-ordered series of snapshots of one process.
 *
 * A steady leak grows monotonically, however small; noise goes up and down; a bounded pool grows and
 * then stays flat. Per group (and for the total): the Mann-Kendall test of a monotonic increase, with
 * Holm's correction across the groups that vary at all (constant groups cannot trend and are not
 * tested), Sen's slope as the growth rate in goroutines per minute, and a plateau check on the later
 * half of the series that tells a pool that filled up from a leak that keeps going.
 */
import type { Analysis, AnalyzedGroup, SimilarityLevel, SiteFrame } from './types.js';
import type { WaitKind } from '../model/dump.js';
import { cmp } from './compare.js';
import { holm, mannKendall, minimumP, senSlope, type MannKendall } from './trend-stats.js';

/** One snapshot of the series with the time it was taken (ms since the epoch, or any common origin). */
export interface TrendSample {
  readonly analysis: Analysis;
  readonly time: number;
  /**
   * The time only orders the series (no credible capture time): no rate per minute is given, and
   * `perMinute` is null.
   */
  readonly untimed?: boolean;
}

export interface TrendOptions {
  /** Family-wise significance level; default 0.05. */
  readonly alpha?: number;
}

export type TrendVerdict = 'leak' | 'bounded' | 'stable' | 'shrinking' | 'insufficient-data';

export interface SeriesTrend {
  /** Count in each snapshot, in series order (0 where the group is absent). */
  readonly counts: number[];
  readonly first: number;
  readonly last: number;
  readonly min: number;
  readonly max: number;
  /** Sen's slope in goroutines per minute; null when all snapshots share one time. */
  readonly perMinute: number | null;
  /** Sen's slope in goroutines per snapshot. */
  readonly perSnapshot: number;
  readonly mannKendall: MannKendall;
  /** pIncreasing after Holm's correction over every series tested. */
  readonly pAdjusted: number;
  readonly verdict: TrendVerdict;
  /** ▁▂▃▄▅▆▇█, one character per snapshot, scaled between the series' min and max. */
  readonly sparkline: string;
}

export interface GroupTrend extends SeriesTrend {
  readonly key: string;
  readonly id: string;
  readonly waitKind: WaitKind;
  readonly blockingSite?: SiteFrame;
  /** The group as analyzed in the latest snapshot that has it. */
  readonly group: AnalyzedGroup;
}

export interface TrendPoint {
  readonly source: string;
  readonly index: number;
  readonly time: number;
  readonly capturedAt?: string;
  readonly total: number;
}

export interface TrendResult {
  readonly level: SimilarityLevel;
  readonly alpha: number;
  readonly points: TrendPoint[];
  /** Last time − first time, ms. */
  readonly durationMs: number;
  readonly total: SeriesTrend;
  /** Leaks first, then by growth rate, then by latest count, then key. */
  readonly groups: GroupTrend[];
  /** Groups whose verdict is `leak`. */
  readonly leaks: number;
  /** `leak` when the total or any group leaks. */
  readonly verdict: 'leak' | 'no-leak' | 'insufficient-data';
}

const SPARKS = '▁▂▃▄▅▆▇█';

export function sparkline(xs: readonly number[]): string {
  if (xs.length === 0) return '';
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  if (hi === lo) return SPARKS[0].repeat(xs.length);
  return xs.map((x) => SPARKS[Math.round(((x - lo) / (hi - lo)) * (SPARKS.length - 1))]).join('');
}

export function trend(series: readonly TrendSample[], opts: TrendOptions = {}): TrendResult {
  const alpha = opts.alpha ?? 0.05;
  const samples = [...series].sort((a, b) => a.time - b.time);
  const n = samples.length;
  const level = samples[0]?.analysis.level ?? 'exact';
  for (const s of samples) {
    if (s.analysis.level !== level) throw new Error('trend: analyses grouped at different levels');
  }
  const times = samples.map((s) => s.time);
  const untimed = samples.some((s) => s.untimed);
  const points: TrendPoint[] = samples.map(({ analysis: a, time }) => {
    const p = { source: a.snapshot.source, index: a.snapshot.index, time, total: a.total };
    return a.snapshot.capturedAt === undefined ? p : { ...p, capturedAt: a.snapshot.capturedAt };
  });

  // Counts per key across the series, one Map pass per snapshot.
  const rows = new Map<string, { counts: number[]; group: AnalyzedGroup }>();
  samples.forEach(({ analysis }, i) => {
    for (const g of analysis.groups) {
      let row = rows.get(g.key);
      if (!row) {
        row = { counts: new Array<number>(n).fill(0), group: g };
        rows.set(g.key, row);
      }
      row.counts[i] += g.count;
      row.group = g;
    }
  });

  const totalCounts = samples.map((s) => s.analysis.total);
  const keys = [...rows.keys()];
  const all = [totalCounts, ...keys.map((k) => rows.get(k)!.counts)];
  const tests = all.map((xs) => mannKendall(xs));
  // Only series that vary can trend; testing constant ones would only dilute the correction.
  const varying = all.map((xs) => xs.some((x) => x !== xs[0]));
  const tested = tests.flatMap((t, i) => (varying[i] ? [t.pIncreasing] : []));
  const adjusted = holm(tested);
  let next = 0;
  const pAdj = tests.map((t, i) => (varying[i] ? adjusted[next++] : 1));

  const enough = n >= 2 && minimumP(n) < alpha;
  const build = (xs: number[], i: number): SeriesTrend => {
    const perMinute = untimed ? null : senSlope(times, xs);
    const perSnapshot = senSlope(xs.map((_, k) => k), xs) ?? 0;
    const mk = tests[i];
    return {
      counts: xs,
      first: xs[0] ?? 0,
      last: xs[n - 1] ?? 0,
      min: n ? Math.min(...xs) : 0,
      max: n ? Math.max(...xs) : 0,
      perMinute: perMinute === null ? null : perMinute * 60_000,
      perSnapshot,
      mannKendall: mk,
      pAdjusted: pAdj[i],
      verdict: enough ? verdictOf(xs, mk, pAdj[i], perSnapshot, alpha) : 'insufficient-data',
      sparkline: sparkline(xs),
    };
  };

  const total = build(totalCounts, 0);
  const groups: GroupTrend[] = keys.map((key, k) => {
    const row = rows.get(key)!;
    const base = { ...build(row.counts, k + 1), key, id: row.group.id, waitKind: row.group.waitKind, group: row.group };
    return row.group.blockingSite ? { ...base, blockingSite: row.group.blockingSite } : base;
  });
  groups.sort(
    (a, b) =>
      rank(a.verdict) - rank(b.verdict) || b.perSnapshot - a.perSnapshot || b.last - a.last || cmp(a.key, b.key),
  );
  const leaks = groups.filter((g) => g.verdict === 'leak').length;
  return {
    level,
    alpha,
    points,
    durationMs: n && !untimed ? times[n - 1] - times[0] : 0,
    total,
    groups,
    leaks,
    verdict: !enough ? 'insufficient-data' : leaks > 0 || total.verdict === 'leak' ? 'leak' : 'no-leak',
  };
}

function verdictOf(xs: number[], mk: MannKendall, pAdjusted: number, slope: number, alpha: number): TrendVerdict {
  if (pAdjusted < alpha && slope > 0) return plateaued(xs) ? 'bounded' : 'leak';
  if (mk.pDecreasing < alpha && slope < 0) return 'shrinking';
  return 'stable';
}

/**
 * Grew, then stopped: over the later half of the series (at least 3 points, series of 6 or more) the
 * count no longer rises: Sen's slope there is not positive and the latest value is not above the
 * highest value of the earlier half.
 */
function plateaued(xs: number[]): boolean {
  const n = xs.length;
  if (n < 6) return false;
  const half = Math.floor(n / 2);
  const head = xs.slice(0, half);
  const tail = xs.slice(half);
  const tailSlope = senSlope(tail.map((_, i) => i), tail) ?? 0;
  return tailSlope <= 0 && Math.max(...tail) <= Math.max(...head) + Math.max(1, 0.05 * Math.max(...head));
}

function rank(v: TrendVerdict): number {
  return ['leak', 'bounded', 'shrinking', 'stable', 'insufficient-data'].indexOf(v);
}
