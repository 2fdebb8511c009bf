/**
 * Groups by blocking site and wait kind (`sameSite`): the site sets every matching rule is asked
 * about (engine.ts), collected during the census's one pass over the groups (frames.ts) rather than in
 * a pass of their own: on 20,000 distinct stacks, each pass over the groups costs milliseconds.
 */
import type { AnalyzedGroup, SiteFrame } from '../analyze/types.js';

export interface SiteSets {
  /** In group order (of each set's first group). */
  readonly sets: AnalyzedGroup[][];
  readonly total: Map<AnalyzedGroup[], { count: number; index: number }>;
  readonly byKind: Map<string, AnalyzedGroup[][]>;
}

/** A site set while it is collected: its goroutines, and whether its groups came largest first. */
interface Collecting {
  readonly set: AnalyzedGroup[];
  readonly index: number;
  count: number;
  sorted: boolean;
}

/** Takes the groups in order (`add`); `sets()` then orders each set largest first. */
export class SiteSetCollector {
  // Site → wait kind → set; a site frame object (shared by many groups) is read as text once.
  private readonly siteText = new Map<SiteFrame, string>();
  private readonly bySite = new Map<string, Map<string, Collecting>>();
  private readonly all: Collecting[] = [];
  // The set of the group before: groups of one stuck set often come in a row.
  private lastSite: SiteFrame | undefined;
  private lastKind = '';
  private last: Collecting | undefined;
  private done: SiteSets | undefined;

  add(g: AnalyzedGroup): void {
    const s = g.blockingSite;
    if (!s) {
      this.all.push({ set: [g], index: this.all.length, count: g.count, sorted: true });
      return;
    }
    if (s === this.lastSite && g.waitKind === this.lastKind) {
      grow(this.last!, g);
      return;
    }
    let k = this.siteText.get(s);
    if (k === undefined) {
      k = `${s.func}\u0000${s.file}\u0000${s.line}`;
      this.siteText.set(s, k);
    }
    let kinds = this.bySite.get(k);
    if (!kinds) this.bySite.set(k, (kinds = new Map()));
    let c = kinds.get(g.waitKind);
    if (c) grow(c, g);
    else {
      c = { set: [g], index: this.all.length, count: g.count, sorted: true };
      this.all.push(c);
      kinds.set(g.waitKind, c);
    }
    this.lastSite = s;
    this.lastKind = g.waitKind;
    this.last = c;
  }

  /** The sets, largest group first within each; made once, after the last `add`. */
  sets(): SiteSets {
    if (this.done) return this.done;
    const sets: AnalyzedGroup[][] = [];
    const total = new Map<AnalyzedGroup[], { count: number; index: number }>();
    const byKind = new Map<string, AnalyzedGroup[][]>();
    for (const { set, index, count, sorted } of this.all) {
      // (Stable: groups of equal counts keep their order; a set that came in order needs no sort.)
      if (!sorted) set.sort((x, y) => y.count - x.count);
      sets.push(set);
      total.set(set, { count, index });
      const l = byKind.get(set[0].waitKind);
      if (l) l.push(set);
      else byKind.set(set[0].waitKind, [set]);
    }
    this.done = { sets, total, byKind };
    return this.done;
  }
}

function grow(c: Collecting, g: AnalyzedGroup): void {
  if (g.count > c.set[c.set.length - 1].count) c.sorted = false;
  c.set.push(g);
  c.count += g.count;
}
