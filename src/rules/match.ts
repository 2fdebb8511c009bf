/** Rule conditions as data: does an analyzed group satisfy a `GroupMatch` / `LevelWhen`? */
import type { Analysis, AnalyzedGroup } from '../analyze/types.js';
import { census, siteAtEntry, stackFuncs, stateOf } from './frames.js';
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
    r = a.snapshot.profile === 'goroutineleak' || census(a).leakMarks;
    proofMemo.set(a, r);
  }
  return r;
}

export function anyFrame(g: AnalyzedGroup, pattern: string, a?: Analysis): boolean {
  const funcs = a ? matchingFuncs(a, g, pattern) : undefined;
  if (funcs) {
    if (funcs.size === 0) return false;
    const frames = g.frames;
    for (let i = 0; i < frames.length; i++) if (funcs.has(frames[i].func)) return true;
    return false;
  }
  const r = re(pattern);
  return g.frames.some((f) => r.test(f.func));
}

interface FuncIndex {
  /** Is `g` one of the analysis's groups? */
  has(g: AnalyzedGroup): boolean;
  /** The functions on the analysis's stacks that `pattern` matches. */
  matching(pattern: string): Set<string>;
}

const funcIndexes = new WeakMap<Analysis, FuncIndex>();

/** What each pattern matches of the functions on the analysis's stacks. */
function funcIndex(a: Analysis): FuncIndex {
  let idx = funcIndexes.get(a);
  if (!idx) {
    const funcs = [...stackFuncs(a)];
    const matching = new Map<string, Set<string>>();
    let groups: Set<AnalyzedGroup> | undefined;
    idx = {
      has: (g) => (groups ??= new Set(a.groups)).has(g),
      matching(pattern) {
        let m = matching.get(pattern);
        if (!m) {
          const r = re(pattern);
          m = new Set(funcs.filter((f) => r.test(f)));
          matching.set(pattern, m);
        }
        return m;
      },
    };
    funcIndexes.set(a, idx);
  }
  return idx;
}

/**
 * The functions of the analysis that `pattern` matches, tested once per distinct function rather
 * than once per frame of every group (most patterns match no frame of a dump at all); undefined for
 * a group that is not one of the analysis's (tested frame by frame).
 */
function matchingFuncs(a: Analysis, g: AnalyzedGroup, pattern: string): Set<string> | undefined {
  const idx = funcIndex(a);
  // A group of the analysis, or a site view of one (a view is never one of the groups).
  if (!idx.has(g)) {
    const of = viewed.get(g);
    if (of === undefined || !idx.has(of)) return undefined;
  }
  return idx.matching(pattern);
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

/**
 * A match (rules are data, read once) as the list of its own conditions, in two parts: `shared`
 * reads only what every group of one site set has in common (wait kind and site are its key; a site
 * view carries the set's count and share) and the dump itself, so a set is asked once; `own` reads
 * each group's stack. `funcs`: patterns some frame of a matching group must match (`func`,
 * `allFuncs`) — a dump with no such function has no match at all.
 */
interface CompiledMatch {
  readonly shared: readonly Check[];
  readonly own: readonly Check[];
  readonly funcs: readonly string[];
}

const compiled = new WeakMap<GroupMatch, CompiledMatch>();

function compiledOf(m: GroupMatch): CompiledMatch {
  let c = compiled.get(m);
  if (!c) {
    c = compile(m);
    compiled.set(m, c);
  }
  return c;
}

/** Does `g` satisfy every condition of `m`? Unknown conditions are impossible (the schema is strict). */
export function matchGroup(m: GroupMatch, g: AnalyzedGroup, a: Analysis): boolean {
  const c = compiledOf(m);
  return every(c.shared, g, a) && every(c.own, g, a);
}

function every(checks: readonly Check[], g: AnalyzedGroup, a: Analysis): boolean {
  for (let i = 0; i < checks.length; i++) if (!checks[i](g, a)) return false;
  return true;
}

/**
 * False when no group of `a` can satisfy `m`: a function it requires is on no stack of the dump
 * (most rules name library functions most dumps never call), it asks for leaked goroutines where
 * the runtime marked none, or for a longer wait than any group's. Asked once per rule, before its groups.
 */
export function possibleIn(m: GroupMatch, a: Analysis): boolean {
  // Nothing is marked leaked in a dump without the runtime's proof.
  if (m.leaked === true && !hasLeakProof(a)) return false;
  // No group has waited that long (most dumps print no wait at all).
  if (m.minWaitMinutes !== undefined && census(a).maxWait < m.minWaitMinutes) return false;
  const { funcs } = compiledOf(m);
  for (let i = 0; i < funcs.length; i++) if (funcIndex(a).matching(funcs[i]).size === 0) return false;
  return true;
}

const NONE: readonly AnalyzedGroup[] = [];

/**
 * The groups of one site set (groups of `a` parked at one site, `SiteSetCollector` in site-sets.ts) that satisfy
 * `m` when each is asked as its site view (`count` goroutines at the site): what
 * `set.filter((g) => matchGroup(m, siteView(g, count, a), a))` returns, with the conditions the set
 * shares asked once and no view made per group.
 */
export function matchSet(m: GroupMatch, set: readonly AnalyzedGroup[], count: number, a: Analysis): readonly AnalyzedGroup[] {
  const c = compiledOf(m);
  if (!every(c.shared, siteView(set[0], count, a), a)) return NONE;
  if (!c.own.length) return set;
  // (A view differs from its group only in count and share, which no `own` condition reads.)
  const out: AnalyzedGroup[] = [];
  for (let i = 0; i < set.length; i++) if (every(c.own, set[i], a)) out.push(set[i]);
  return out;
}

/**
 * The conditions `m` sets, in a fixed order, one closure each: every rule is asked about every
 * group, and most rules set two or three of the ~25 conditions.
 */
function compile(m: GroupMatch): CompiledMatch {
  const shared: Check[] = [];
  const own: Check[] = [];
  if (m.waitKind !== undefined) {
    const kinds: readonly string[] = Array.isArray(m.waitKind) ? m.waitKind : [m.waitKind];
    shared.push((g) => kinds.includes(g.waitKind));
  }
  const { notWaitKind, minCount, maxCount, minShare, maxShare, minTotal, minWaitMinutes, maxWaitMinutes, leaked, crashed } = m;
  if (notWaitKind !== undefined) shared.push((g) => !notWaitKind.includes(g.waitKind));
  if (minCount !== undefined) shared.push((g) => !(g.count < minCount));
  if (maxCount !== undefined) shared.push((g) => !(g.count > maxCount));
  if (minShare !== undefined) shared.push((g) => !(g.share < minShare));
  if (maxShare !== undefined) shared.push((g) => !(g.share > maxShare));
  if (minTotal !== undefined) shared.push((_g, a) => !(a.total < minTotal));
  if (minWaitMinutes !== undefined) own.push((g) => !((g.wait?.max ?? 0) < minWaitMinutes));
  if (maxWaitMinutes !== undefined) own.push((g) => !((g.wait?.max ?? 0) > maxWaitMinutes));
  if (leaked !== undefined) own.push((g, a) => isLeaked(g, a) === leaked);
  if (crashed !== undefined) own.push((g) => (g.flags.crashed === true) === crashed);
  const { userSite, siteAtEntry: atEntry, headlineKind, state, func, allFuncs, notFunc, file, site, siteFile, leaf, creator, labels } = m;
  if (userSite !== undefined) own.push((g) => (g.blockingSite?.origin === 'user') === userSite);
  if (atEntry !== undefined) own.push((g) => siteAtEntry(g) === atEntry);
  if (headlineKind !== undefined) shared.push((_g, a) => !!(a.snapshot.headline && headlineKind.includes(a.snapshot.headline.kind)));
  if (state !== undefined) {
    own.push((g) => {
      const r = re(state);
      const inferred = stateOf(g);
      return g.states.some((s) => r.test(s)) || !!(inferred && r.test(inferred));
    });
  }
  if (func !== undefined) own.push((g, a) => anyFrame(g, func, a));
  if (allFuncs !== undefined) own.push((g, a) => allFuncs.every((p) => anyFrame(g, p, a)));
  if (notFunc !== undefined) own.push((g, a) => !anyFrame(g, notFunc, a));
  if (file !== undefined) {
    own.push((g) => {
      const r = re(file);
      return g.frames.some((f) => r.test(f.file));
    });
  }
  // Site and wait kind make a site set (`sameSite`): the same for all its groups.
  if (site !== undefined) shared.push((g) => !!(g.blockingSite && re(site).test(g.blockingSite.func)));
  if (siteFile !== undefined) shared.push((g) => !!(g.blockingSite && re(siteFile).test(g.blockingSite.file)));
  if (leaf !== undefined) own.push((g) => !!(g.frames[0] && re(leaf).test(g.frames[0].func)));
  if (creator !== undefined) own.push((g) => !!(g.creator && re(creator).test(g.creator.func)));
  if (labels !== undefined) {
    own.push((g) => {
      for (const [k, p] of Object.entries(labels)) {
        const v = g.labels[k];
        if (v === undefined || !re(p).test(v)) return false;
      }
      return true;
    });
  }
  return { shared, own, funcs: [...(func !== undefined ? [func] : []), ...(allFuncs ?? [])] };
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
