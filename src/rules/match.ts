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

export function anyFrame(g: AnalyzedGroup, pattern: string): boolean {
  const r = re(pattern);
  return g.frames.some((f) => r.test(f.func));
}

/** Does `g` satisfy every condition of `m`? Unknown conditions are impossible (the schema is strict). */
export function matchGroup(m: GroupMatch, g: AnalyzedGroup, a: Analysis): boolean {
  if (m.waitKind !== undefined) {
    const kinds = Array.isArray(m.waitKind) ? m.waitKind : [m.waitKind];
    if (!kinds.includes(g.waitKind)) return false;
  }
  if (m.notWaitKind?.includes(g.waitKind)) return false;
  if (m.minCount !== undefined && g.count < m.minCount) return false;
  if (m.maxCount !== undefined && g.count > m.maxCount) return false;
  if (m.minShare !== undefined && g.share < m.minShare) return false;
  if (m.maxShare !== undefined && g.share > m.maxShare) return false;
  if (m.minTotal !== undefined && a.total < m.minTotal) return false;
  if (m.minWaitMinutes !== undefined && (g.wait?.max ?? 0) < m.minWaitMinutes) return false;
  if (m.maxWaitMinutes !== undefined && (g.wait?.max ?? 0) > m.maxWaitMinutes) return false;
  if (m.leaked !== undefined && isLeaked(g, a) !== m.leaked) return false;
  if (m.crashed !== undefined && (g.flags.crashed === true) !== m.crashed) return false;
  if (m.userSite !== undefined && (g.blockingSite?.origin === 'user') !== m.userSite) return false;
  if (m.siteAtEntry !== undefined && siteAtEntry(g) !== m.siteAtEntry) return false;
  if (m.headlineKind !== undefined && !(a.snapshot.headline && m.headlineKind.includes(a.snapshot.headline.kind))) return false;
  if (m.state !== undefined) {
    const r = re(m.state);
    const inferred = stateOf(g);
    if (!g.states.some((s) => r.test(s)) && !(inferred && r.test(inferred))) return false;
  }
  if (m.func !== undefined && !anyFrame(g, m.func)) return false;
  if (m.allFuncs !== undefined && !m.allFuncs.every((p) => anyFrame(g, p))) return false;
  if (m.notFunc !== undefined && anyFrame(g, m.notFunc)) return false;
  if (m.file !== undefined) {
    const r = re(m.file);
    if (!g.frames.some((f) => r.test(f.file))) return false;
  }
  if (m.site !== undefined && !(g.blockingSite && re(m.site).test(g.blockingSite.func))) return false;
  if (m.siteFile !== undefined && !(g.blockingSite && re(m.siteFile).test(g.blockingSite.file))) return false;
  if (m.leaf !== undefined && !(g.frames[0] && re(m.leaf).test(g.frames[0].func))) return false;
  if (m.creator !== undefined && !(g.creator && re(m.creator).test(g.creator.func))) return false;
  if (m.labels !== undefined) {
    for (const [k, p] of Object.entries(m.labels)) {
      const v = g.labels[k];
      if (v === undefined || !re(p).test(v)) return false;
    }
  }
  return true;
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
