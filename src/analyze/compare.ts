/**
 * diff(before, after): match the groups of two analyses by their normalized key (equal across
 * debug=0/1/2 captures of one process, see `AnalyzedGroup.key`) and say, per group, how many
 * goroutines it had before and after. One Map pass per side, never pairwise.
 */
import type { Analysis, AnalyzedGroup, SimilarityLevel, SiteFrame } from './types.js';
import type { WaitKind } from '../model/dump.js';
import { keyNumbers } from './series-rows.js';

export type GroupChange = 'new' | 'vanished' | 'grown' | 'shrunk' | 'unchanged';

export interface GroupDiff {
  readonly key: string;
  readonly id: string;
  readonly change: GroupChange;
  readonly before: number;
  readonly after: number;
  /** after − before. */
  readonly delta: number;
  /** delta / before (0.5 = +50%); null for a new group (before = 0). */
  readonly growth: number | null;
  readonly waitKind: WaitKind;
  readonly blockingSite?: SiteFrame;
  /** The group as analyzed in `after` (or in `before` when it vanished): frames, states, labels. */
  readonly group: AnalyzedGroup;
}

/** Which snapshot a side of the comparison is. */
export interface SnapshotRef {
  readonly source: string;
  readonly index: number;
  readonly total: number;
  readonly capturedAt?: string;
}

export interface DiffResult {
  readonly level: SimilarityLevel;
  readonly before: SnapshotRef;
  readonly after: SnapshotRef;
  readonly totalDelta: number;
  /** totalDelta / before.total; null when before.total is 0. */
  readonly totalGrowth: number | null;
  /** Sorted by delta descending (the most grown first, vanished last), then by key. */
  readonly groups: GroupDiff[];
  readonly newGroups: number;
  readonly vanishedGroups: number;
}

export function snapshotRef(a: Analysis): SnapshotRef {
  const s = a.snapshot;
  return s.capturedAt === undefined
    ? { source: s.source, index: s.index, total: a.total }
    : { source: s.source, index: s.index, total: a.total, capturedAt: s.capturedAt };
}

/**
 * Groups of an analysis by key number (`keyNumbers`); groups sharing a key (which the analyzer should
 * not produce) add up.
 */
function byKey(a: Analysis, numberOf: (g: AnalyzedGroup) => number): Map<number, { count: number; group: AnalyzedGroup }> {
  const m = new Map<number, { count: number; group: AnalyzedGroup }>();
  for (const g of a.groups) {
    const k = numberOf(g);
    const prev = m.get(k);
    if (prev) {
      prev.count += g.count;
      if (g.count > prev.group.count) prev.group = g;
    } else {
      m.set(k, { count: g.count, group: g });
    }
  }
  return m;
}

export function diff(before: Analysis, after: Analysis): DiffResult {
  if (before.level !== after.level) {
    throw new Error(`diff: analyses grouped at different levels (${before.level} vs ${after.level})`);
  }
  // Keys matched as numbers: on 20,000 distinct stacks, hashing and comparing ~1 KB keys in Maps
  // cost more than the rest of the diff (series-rows.ts).
  const numberOf = keyNumbers([before, after]);
  const b = byKey(before, numberOf);
  const a = byKey(after, numberOf);
  const groups: GroupDiff[] = [];
  for (const [k, cur] of a) {
    const prev = b.get(k);
    groups.push(entry(cur.group.key, prev?.count ?? 0, cur.count, cur.group));
  }
  for (const [k, prev] of b) {
    if (!a.has(k)) groups.push(entry(prev.group.key, prev.count, 0, prev.group));
  }
  groups.sort((x, y) => y.delta - x.delta || y.after - x.after || cmp(x.key, y.key));
  const totalDelta = after.total - before.total;
  return {
    level: after.level,
    before: snapshotRef(before),
    after: snapshotRef(after),
    totalDelta,
    totalGrowth: before.total > 0 ? totalDelta / before.total : null,
    groups,
    newGroups: groups.filter((g) => g.change === 'new').length,
    vanishedGroups: groups.filter((g) => g.change === 'vanished').length,
  };
}

function entry(key: string, before: number, after: number, group: AnalyzedGroup): GroupDiff {
  const delta = after - before;
  const change: GroupChange =
    before === 0 ? 'new' : after === 0 ? 'vanished' : delta > 0 ? 'grown' : delta < 0 ? 'shrunk' : 'unchanged';
  const d: GroupDiff = {
    key,
    id: group.id,
    change,
    before,
    after,
    delta,
    growth: before > 0 ? delta / before : null,
    waitKind: group.waitKind,
    group,
  };
  // Added last, as a spread would (a copy of every diff on 20,000 distinct stacks).
  if (group.blockingSite) (d as { blockingSite?: SiteFrame }).blockingSite = group.blockingSite;
  return d;
}

/** Code-point order: stable whatever the host's locale. */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
