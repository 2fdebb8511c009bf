/** Rule conditions as data: does an analyzed group satisfy a `GroupMatch` / `LevelWhen`? */
import type { Analysis, AnalyzedGroup } from '../analyze/types.js';
import { siteAtEntry, stateOf } from './frames.js';
import type { GroupMatch, LevelWhen } from './types.js';

const cache = new Map<string, RegExp>();

/** Compiled once per pattern; patterns were checked by the schema (format: regex). */
export function re(pattern: string): RegExp {
  let r = cache.get(pattern);
  if (!r) {
    r = new RegExp(pattern);
    cache.set(pattern, r);
  }
  return r;
}

/** `(leaked)` flag, or any group of a `goroutineleak` profile (debug=0/1 list leaked goroutines only). */
export function isLeaked(g: AnalyzedGroup, a: Analysis): boolean {
  return g.flags.leaked === true || (g.leaked ?? 0) > 0 || (a.snapshot.profile === 'goroutineleak' && a.snapshot.format !== 'debug2');
}

const proofMemo = new WeakMap<Analysis, boolean>();

/** The runtime's leak detector ran for this snapshot: a goroutineleak profile, or `(leaked)` marks. */
export function hasLeakProof(a: Analysis): boolean {
  let r = proofMemo.get(a);
  if (r === undefined) {
    r = a.snapshot.profile === 'goroutineleak' || a.groups.some((g) => g.flags.leaked === true || (g.leaked ?? 0) > 0);
    proofMemo.set(a, r);
  }
  return r;
}

export function anyFrame(g: AnalyzedGroup, pattern: string, a?: Analysis): boolean {
  const funcs = a ? matchingFuncs(a, g, pattern) : undefined;
  if (funcs) return funcs.size > 0 && g.frames.some((f) => funcs.has(f.func));
  const r = re(pattern);
  return g.frames.some((f) => r.test(f.func));
}

interface FuncIndex {
  readonly groups: Set<AnalyzedGroup>;
  /** Every function on a stack of the analysis, once. */
  readonly funcs: readonly string[];
  /** Pattern → the functions of `funcs` it matches. */
  readonly matching: Map<string, Set<string>>;
}

const funcIndexes = new WeakMap<Analysis, FuncIndex>();

/**
 * The functions of the analysis that `pattern` matches, tested once per distinct function rather
 * than once per frame of every group (most patterns match no frame of a dump at all); undefined for
 * a group that is not one of the analysis's (tested frame by frame).
 */
function matchingFuncs(a: Analysis, g: AnalyzedGroup, pattern: string): Set<string> | undefined {
  let idx = funcIndexes.get(a);
  if (!idx) {
    const funcs = new Set<string>();
    // Indexed loops: cold code (every run of the CLI is one) allocates an iterator result per for-of step.
    for (let i = 0; i < a.groups.length; i++) {
      const frames = a.groups[i].frames;
      for (let j = 0; j < frames.length; j++) funcs.add(frames[j].func);
    }
    idx = { groups: new Set(a.groups), funcs: [...funcs], matching: new Map() };
    funcIndexes.set(a, idx);
  }
  // A group of the analysis, or a site view of one (a view is never one of the groups).
  if (!idx.groups.has(g)) {
    const of = viewed.get(g);
    if (of === undefined || !idx.groups.has(of)) return undefined;
  }
  let m = idx.matching.get(pattern);
  if (!m) {
    const r = re(pattern);
    m = new Set(idx.funcs.filter((f) => r.test(f)));
    idx.matching.set(pattern, m);
  }
  return m;
}

/** Site views (`siteView`) → the group they stand for, so that they share its function index. */
const viewed = new WeakMap<AnalyzedGroup, AnalyzedGroup>();

/**
 * `g` with the count and share of every group parked at its blocking site (other stacks, same site
 * and wait kind): what a rule's count thresholds are asked about, since one stuck set often reaches
 * one line through several call paths.
 */
export function siteView(g: AnalyzedGroup, count: number, a: Analysis): AnalyzedGroup {
  if (count === g.count) return g;
  const known = views.get(g);
  if (known?.count === count) return known;
  const v: AnalyzedGroup = { ...g, count, share: a.total ? count / a.total : 0 };
  viewed.set(v, viewed.get(g) ?? g);
  views.set(g, v);
  return v;
}

/** The last view made of a group: every rule asks about the same site totals. */
const views = new WeakMap<AnalyzedGroup, AnalyzedGroup>();

type Check = (g: AnalyzedGroup, a: Analysis) => boolean;

/** Each match (rules are data, read once) as the list of its own conditions: see `compile`. */
const compiled = new WeakMap<GroupMatch, readonly Check[]>();

/** Does `g` satisfy every condition of `m`? Unknown conditions are impossible (the schema is strict). */
export function matchGroup(m: GroupMatch, g: AnalyzedGroup, a: Analysis): boolean {
  let checks = compiled.get(m);
  if (!checks) {
    checks = compile(m);
    compiled.set(m, checks);
  }
  for (let i = 0; i < checks.length; i++) if (!checks[i](g, a)) return false;
  return true;
}

/**
 * The conditions `m` sets, in a fixed order, one closure each: every rule is asked about every
 * group, and most rules set two or three of the ~25 conditions.
 */
function compile(m: GroupMatch): Check[] {
  const c: Check[] = [];
  if (m.waitKind !== undefined) {
    const kinds: readonly string[] = Array.isArray(m.waitKind) ? m.waitKind : [m.waitKind];
    c.push((g) => kinds.includes(g.waitKind));
  }
  const { notWaitKind, minCount, maxCount, minShare, maxShare, minTotal, minWaitMinutes, maxWaitMinutes, leaked, crashed } = m;
  if (notWaitKind !== undefined) c.push((g) => !notWaitKind.includes(g.waitKind));
  if (minCount !== undefined) c.push((g) => !(g.count < minCount));
  if (maxCount !== undefined) c.push((g) => !(g.count > maxCount));
  if (minShare !== undefined) c.push((g) => !(g.share < minShare));
  if (maxShare !== undefined) c.push((g) => !(g.share > maxShare));
  if (minTotal !== undefined) c.push((_g, a) => !(a.total < minTotal));
  if (minWaitMinutes !== undefined) c.push((g) => !((g.wait?.max ?? 0) < minWaitMinutes));
  if (maxWaitMinutes !== undefined) c.push((g) => !((g.wait?.max ?? 0) > maxWaitMinutes));
  if (leaked !== undefined) c.push((g, a) => isLeaked(g, a) === leaked);
  if (crashed !== undefined) c.push((g) => (g.flags.crashed === true) === crashed);
  const { userSite, siteAtEntry: atEntry, headlineKind, state, func, allFuncs, notFunc, file, site, siteFile, leaf, creator, labels } = m;
  if (userSite !== undefined) c.push((g) => (g.blockingSite?.origin === 'user') === userSite);
  if (atEntry !== undefined) c.push((g) => siteAtEntry(g) === atEntry);
  if (headlineKind !== undefined) c.push((_g, a) => !!(a.snapshot.headline && headlineKind.includes(a.snapshot.headline.kind)));
  if (state !== undefined) {
    c.push((g) => {
      const r = re(state);
      const inferred = stateOf(g);
      return g.states.some((s) => r.test(s)) || !!(inferred && r.test(inferred));
    });
  }
  if (func !== undefined) c.push((g, a) => anyFrame(g, func, a));
  if (allFuncs !== undefined) c.push((g, a) => allFuncs.every((p) => anyFrame(g, p, a)));
  if (notFunc !== undefined) c.push((g, a) => !anyFrame(g, notFunc, a));
  if (file !== undefined) {
    c.push((g) => {
      const r = re(file);
      return g.frames.some((f) => r.test(f.file));
    });
  }
  if (site !== undefined) c.push((g) => !!(g.blockingSite && re(site).test(g.blockingSite.func)));
  if (siteFile !== undefined) c.push((g) => !!(g.blockingSite && re(siteFile).test(g.blockingSite.file)));
  if (leaf !== undefined) c.push((g) => !!(g.frames[0] && re(leaf).test(g.frames[0].func)));
  if (creator !== undefined) c.push((g) => !!(g.creator && re(creator).test(g.creator.func)));
  if (labels !== undefined) {
    c.push((g) => {
      for (const [k, p] of Object.entries(labels)) {
        const v = g.labels[k];
        if (v === undefined || !re(p).test(v)) return false;
      }
      return true;
    });
  }
  return c;
}

/** What a finding looks like when its severity levels and variants are decided. */
export interface FindingFacts {
  readonly root: AnalyzedGroup;
  /** Goroutines of consequence groups. */
  readonly consequences: number;
  /** All goroutines of the finding. */
  readonly goroutines: number;
  readonly variant?: string;
}

export function matchWhen(w: LevelWhen, f: FindingFacts, a: Analysis): boolean {
  if (w.minConsequences !== undefined && f.consequences < w.minConsequences) return false;
  if (w.minGoroutines !== undefined && f.goroutines < w.minGoroutines) return false;
  if (w.variant !== undefined && f.variant !== w.variant) return false;
  return matchGroup(w, f.root, a);
}
