/**
 * trend(series): how each group's count moves over a time-ordered series of snapshots of one process.
 *
 * A steady leak grows monotonically, however small; noise goes up and down; a bounded pool grows and
 * then stays flat. Per group (and for the total): the Mann-Kendall test of a monotonic increase, Sen's
 * slope as the growth rate in goroutines per minute, and a plateau check on the later half of the
 * series that tells a pool that filled up from a leak that keeps going.
 *
 * Three honest states (TrendState): `growing` (the test confirms the rise), `rising-inconclusive` (a
 * clear rise — Sen's slope positive and the fitted rise material — that this many snapshots cannot
 * confirm; `needed` says how many would), `stable` (no material rise). "stable" never labels a clear rise.
 *
 * Multiple testing: the total is one test of its own (never corrected with the groups). The groups are
 * Holm-corrected over the groups that changed materially only (max − min ≥ 3 goroutines and ≥ 5% of the
 * group's max). Not FDR (Benjamini-Hochberg): BH multiplies the smallest p by the family size just as
 * Holm does, so one leaking group among many wobbling ones would be no better off; what hid the rise
 * was the family's size, inflated by ±1 wobble in small groups that cannot be a leak worth reporting.
 */
import type { Analysis, AnalyzedGroup, SimilarityLevel, SiteFrame } from './types.js';
import type { WaitKind } from '../model/dump.js';
import { cmp } from './compare.js';
import { seriesRows } from './series-rows.js';
import { holm, mannKendall, minimumP, normalCdf, senSlope, type MannKendall } from './trend-stats.js';

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

/**
 * How a series moves, for a group, the total and the process (the one word every format prints):
 * - `growing`: a monotonic rise the test confirms (p < alpha after correction) that has not levelled off;
 * - `rising-inconclusive`: a clear rise (Sen's slope positive, Kendall tau ≥ 0.5, fitted rise ≥ 5
 *   goroutines and ≥ 5% of the max) the test cannot confirm with this many snapshots;
 * - `bounded`: confirmed rise that levelled off (a pool that filled up); groups and total only;
 * - `stable`: no material rise;
 * - `shrinking`: a confirmed fall; groups and total only;
 * - `insufficient-data`: fewer than 3 snapshots.
 */
export type TrendState = 'growing' | 'rising-inconclusive' | 'bounded' | 'stable' | 'shrinking' | 'insufficient-data';

/** Fewest snapshots trend judges; below, every state is `insufficient-data`. */
export const MIN_TREND_SNAPSHOTS = 3;

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
  /**
   * pIncreasing after Holm's correction over the groups that changed materially; the total's own
   * pIncreasing (one test, not corrected); 1 for a group that did not change materially.
   */
  readonly pAdjusted: number;
  /** Changed materially (max − min ≥ 3 and ≥ 5% of max): a group in the correction's family. */
  readonly material: boolean;
  readonly verdict: TrendState;
  /**
   * `rising-inconclusive` only: about how many snapshots the test would need to confirm a rise this
   * consistent (same Kendall tau) at this alpha and correction; null when none up to 1,000 would.
   */
  readonly needed?: number | null;
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
  /** Groups whose verdict is `growing`. */
  readonly leaks: number;
  /** Groups whose verdict is `rising-inconclusive`. */
  readonly rising: number;
  /** Groups in the correction's family (changed materially): the p of each is multiplied by up to this. */
  readonly family: number;
  /**
   * The process: `growing` when the total or any group grows, else `rising-inconclusive` when the
   * total or any group rises inconclusively, else `stable`; `insufficient-data` under 3 snapshots.
   */
  readonly verdict: Extract<TrendState, 'growing' | 'rising-inconclusive' | 'stable' | 'insufficient-data'>;
  /** The process's `rising-inconclusive`: the fewest snapshots that would confirm one of its rises (null: > 1,000). */
  readonly needed?: number | null;
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

  // Counts per key across the series.
  const rowList = seriesRows(samples.map((s) => s.analysis));

  const totalCounts = samples.map((s) => s.analysis.total);
  const keys = rowList.map((r) => r.group.key);
  const all = [totalCounts, ...rowList.map((r) => r.counts)];
  const tests = all.map((xs) => mannKendall(xs));
  // The total is one test; the groups are corrected over those that changed materially: ±1 wobble in
  // small groups cannot be a leak worth reporting and would only inflate the family (see the header).
  const material = all.map((xs) => changedMaterially(xs));
  const family = keys.map((_, k) => k + 1).filter((i) => material[i]);
  const adjusted = holm(family.map((i) => tests[i].pIncreasing));
  const pAdj = tests.map(() => 1);
  pAdj[0] = tests[0].pIncreasing;
  family.forEach((i, j) => (pAdj[i] = adjusted[j]));

  const enough = n >= MIN_TREND_SNAPSHOTS;
  const judge = (xs: number[], i: number): SeriesFields => {
    const perSnapshot = senSlope(xs.map((_, k) => k), xs) ?? 0;
    const mk = tests[i];
    const verdict: TrendState = enough ? stateOf(xs, mk, pAdj[i], perSnapshot, alpha) : 'insufficient-data';
    const needed = verdict === 'rising-inconclusive' ? snapshotsNeeded(mk, alpha / (i === 0 ? 1 : Math.max(1, family.length))) : undefined;
    const perMinute = untimed ? null : senSlope(times, xs);
    return { perMinute: perMinute === null ? null : perMinute * 60_000, perSnapshot, mk, pAdjusted: pAdj[i], material: material[i], verdict, needed };
  };

  const total = new SeriesTrendOf(totalCounts, judge(totalCounts, 0)) as SeriesTrend;
  const groups = rowList.map((row, k) => new GroupTrendOf(row.counts, judge(row.counts, k + 1), keys[k], row.group) as GroupTrend);
  groups.sort(
    (a, b) =>
      rank(a.verdict) - rank(b.verdict) || b.perSnapshot - a.perSnapshot || b.last - a.last || cmp(a.key, b.key),
  );
  const leaks = groups.filter((g) => g.verdict === 'growing').length;
  const risers = [total, ...groups].filter((g) => g.verdict === 'rising-inconclusive');
  const verdict: TrendResult['verdict'] = !enough
    ? 'insufficient-data'
    : leaks > 0 || total.verdict === 'growing'
      ? 'growing'
      : risers.length > 0
        ? 'rising-inconclusive'
        : 'stable';
  // The fewest snapshots that would confirm any of the rises (the process is then growing).
  const counts = risers.map((r) => r.needed).filter((x): x is number => typeof x === 'number');
  const needed = counts.length ? Math.min(...counts) : null;
  return {
    level,
    alpha,
    points,
    durationMs: n && !untimed ? times[n - 1] - times[0] : 0,
    total,
    groups,
    leaks,
    rising: groups.filter((g) => g.verdict === 'rising-inconclusive').length,
    family: family.length,
    verdict,
    ...(verdict === 'rising-inconclusive' ? { needed } : {}),
  };
}

/** What `trend` judged of one series (the total's or a group's), before it is laid out. */
interface SeriesFields {
  readonly perMinute: number | null;
  readonly perSnapshot: number;
  readonly mk: MannKendall;
  readonly pAdjusted: number;
  readonly material: boolean;
  readonly verdict: TrendState;
  /** Set for `rising-inconclusive` only (null: no number of snapshots would do). */
  readonly needed: number | null | undefined;
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * A SeriesTrend's fields, in the order reports and JSON read them, `needed` only where it is set.
 * Made by assignment (as the analysis's groups are: see group.ts's PlainGroup), not by spreading
 * one object into another: a series of 20,000 distinct stacks spent most of `trend` copying them.
 */
function layOut(t: Writable<SeriesTrend>, xs: number[], f: SeriesFields): void {
  const n = xs.length;
  t.counts = xs;
  t.first = xs[0] ?? 0;
  t.last = xs[n - 1] ?? 0;
  t.min = n ? Math.min(...xs) : 0;
  t.max = n ? Math.max(...xs) : 0;
  t.perMinute = f.perMinute;
  t.perSnapshot = f.perSnapshot;
  t.mannKendall = f.mk;
  t.pAdjusted = f.pAdjusted;
  t.material = f.material;
  t.verdict = f.verdict;
  if (f.needed !== undefined) t.needed = f.needed;
  t.sparkline = sparkline(xs);
}

/** The total's SeriesTrend (a plain object: `new` on a function, its prototype Object's). */
const SeriesTrendOf = function (this: Writable<SeriesTrend>, xs: number[], f: SeriesFields) {
  layOut(this, xs, f);
} as unknown as new (xs: number[], f: SeriesFields) => object;
SeriesTrendOf.prototype = Object.prototype;

/** A group's trend: its SeriesTrend, then the group's key, id, wait, the group and its blocking site. */
const GroupTrendOf = function (this: Writable<GroupTrend>, xs: number[], f: SeriesFields, key: string, group: AnalyzedGroup) {
  layOut(this, xs, f);
  this.key = key;
  this.id = group.id;
  this.waitKind = group.waitKind;
  this.group = group;
  if (group.blockingSite) this.blockingSite = group.blockingSite;
} as unknown as new (xs: number[], f: SeriesFields, key: string, group: AnalyzedGroup) => object;
GroupTrendOf.prototype = Object.prototype;

/** Materially changed: max − min ≥ 3 goroutines and ≥ 5% of the series' max. */
export function changedMaterially(xs: readonly number[]): boolean {
  if (xs.length === 0) return false;
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return hi - lo >= Math.max(MATERIAL_MIN, MATERIAL_FRACTION * hi);
}

const MATERIAL_MIN = 3;
const MATERIAL_FRACTION = 0.05;

/** A clear rise fits at least this many goroutines over the series (and 5% of its max). */
const RISE_MIN = 5;
/** …and rises consistently: Kendall's tau ≥ 0.5, three rising pairs for each falling one. */
const RISE_TAU = 0.5;

/**
 * A clear rise: Sen's slope is positive, the pairs rise consistently (tau ≥ 0.5), and the rise the
 * slope fits over the series (slope × (n − 1)) is at least 5 goroutines and 5% of the series' max.
 */
function clearlyRising(xs: readonly number[], mk: MannKendall, perSnapshot: number): boolean {
  if (perSnapshot <= 0 || mk.tau < RISE_TAU) return false;
  const fitted = perSnapshot * (xs.length - 1);
  return fitted >= Math.max(RISE_MIN, MATERIAL_FRACTION * Math.max(...xs));
}

/**
 * About how many snapshots a rise as consistent as this one (same Kendall tau) needs for its one-sided
 * p to fall below `threshold` (alpha divided by the correction's factor): exact 1/n! for a perfect rise,
 * the normal approximation otherwise. Null when none up to 1,000 would.
 */
export function snapshotsNeeded(mk: MannKendall, threshold: number): number | null {
  if (mk.tau <= 0) return null;
  for (let n = Math.max(mk.n + 1, MIN_TREND_SNAPSHOTS); n <= 1000; n++) {
    const pairs = (n * (n - 1)) / 2;
    const p = mk.tau >= 1 ? minimumP(n) : 1 - normalCdf((Math.round(mk.tau * pairs) - 1) / Math.sqrt((n * (n - 1) * (2 * n + 5)) / 18));
    if (p < threshold) return n;
  }
  return null;
}

function stateOf(xs: number[], mk: MannKendall, pAdjusted: number, slope: number, alpha: number): TrendState {
  if (pAdjusted < alpha && slope > 0) return plateaued(xs) ? 'bounded' : 'growing';
  if (clearlyRising(xs, mk, slope)) return 'rising-inconclusive';
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

/** Trend states in the order groups are listed. */
const RANKED: readonly TrendState[] = ['growing', 'rising-inconclusive', 'bounded', 'shrinking', 'stable', 'insufficient-data'];

function rank(v: TrendState): number {
  return RANKED.indexOf(v);
}
