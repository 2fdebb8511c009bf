/**
 * The rule engine: data rules match groups, named detectors find what matching cannot, cascades
 * attach the goroutines waiting behind a root, and one pass merges everything into findings with one
 * root each — most severe first.
 */
import type { Analysis, AnalyzedGroup } from '../analyze/types.js';
import type { RaceReport } from '../model/dump.js';
import { union, withCascade } from './cascade.js';
import { hasLeakProof, isLeaked, matchGroup, matchSet, matchWhen, possibleIn, re, siteView, type FindingFacts } from './match.js';
import { LinkGraph } from './links.js';
import { listingVariant } from './listing.js';
import { census, siteOf } from './frames.js';
import { textOrder } from './collate.js';
import { finishCandidate, goroutinesOf, involved, knownSiteSet, siteCount, type Candidate, type Detector, type ResolvedRule, type RuleContext } from './candidate.js';
import type { Finding, Severity, Suppression } from './types.js';

/** Categories whose findings own their groups: one root per group across them. */
const CLAIMING = new Set(['leak', 'contention', 'deadlock', 'resource']);

export const SEVERITY_RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

export interface EngineInput {
  readonly analysis: Analysis;
  readonly rules: readonly ResolvedRule[];
  readonly detectors: Readonly<Record<string, Detector>>;
  readonly suppress?: readonly Suppression[];
  readonly races?: readonly RaceReport[];
}

export function runEngine(input: EngineInput): Finding[] {
  const { analysis: a } = input;
  const ctx: RuleContext = {
    analysis: a,
    graph: new LinkGraph(a),
    races: input.races ?? [],
    param: (rule, name, dflt) => {
      const v = rule.params?.[name];
      return (typeof v === typeof dflt ? v : dflt) as typeof dflt;
    },
  };
  let cands: Candidate[] = [];
  for (const rule of input.rules) {
    if (rule.enabled === false) continue;
    const names = rule.detector === undefined ? [] : Array.isArray(rule.detector) ? rule.detector : [rule.detector];
    const dets = names.map((n) => {
      const d = input.detectors[n];
      if (!d) throw new Error(`rule ${rule.id}: unknown detector ${n}`);
      return d;
    });
    let found: Candidate[] = rule.match ? matchRule(ctx, rule) : [];
    for (const d of dets) {
      if (d.find) found = rule.match ? d.find(ctx, rule, found) : [...found, ...d.find(ctx, rule)];
      if (d.refine) found = found.map((c) => d.refine!(ctx, rule, c)).filter((c): c is Candidate => c !== null);
    }
    if (rule.cascade) found = found.map((c) => withCascade(ctx.graph, c));
    if (rule.with) found = found.map((c) => withCompanions(ctx, rule, c));
    cands.push(...found);
  }
  cands = suppress(cands, input.suppress ?? []);
  const scored = cands
    .map((c) => score(c, a))
    .filter((c): c is Candidate & { severity: Severity } => c !== null && !guessBesideProof(c, a));
  return dedupe(mergeByRoot(absorb(scored, a))).map((c) => finishCandidate(c, a));
}

function matchRule(ctx: RuleContext, rule: ResolvedRule): Candidate[] {
  const a = ctx.analysis;
  if (!possibleIn(rule.match!, a)) return [];
  if (rule.aggregate) {
    const hits = a.groups.filter((g) => matchGroup(rule.match!, g, a));
    if (!hits.length) return [];
    const [root, ...related] = hits;
    return [{ rule, root, roots: [], consequences: [], related, facts: [], vars: {} }];
  }
  // One candidate per blocking site: its groups (one per call path) are asked with the site's total,
  // the largest is the root and the others are roots beside it, so the finding counts the whole set.
  const { sets, total, byKind } = census(a).siteSets.sets();
  const m = rule.match!;
  // A set holds one wait kind: a rule that names kinds only looks at their sets (in group order).
  const kinds = m.waitKind === undefined ? undefined : Array.isArray(m.waitKind) ? m.waitKind : [m.waitKind];
  const asked = !kinds ? sets : kinds.length === 1 ? (byKind.get(kinds[0]) ?? []) : kinds.flatMap((k) => byKind.get(k) ?? []).sort((x, y) => total.get(x)!.index - total.get(y)!.index);
  const out: Candidate[] = [];
  for (const set of asked) {
    const hits = matchSet(m, set, total.get(set)!.count, a);
    if (!hits.length) continue;
    // Rules that take a whole set share its roots array (and what is summed over it, see `goroutinesOf`).
    const roots = hits === set ? restOf(set, total.get(set)!.count) : hits.slice(1);
    out.push({ rule, root: hits[0], roots, consequences: [], related: [], facts: [], vars: {} });
  }
  return out;
}

const rests = new WeakMap<readonly AnalyzedGroup[], AnalyzedGroup[]>();

/** `set.slice(1)`, once per site set (of `count` goroutines, which its candidates then need not sum). */
function restOf(set: readonly AnalyzedGroup[], count: number): AnalyzedGroup[] {
  let r = rests.get(set);
  if (!r) {
    rests.set(set, (r = set.slice(1)));
    knownSiteSet(set[0], r, count);
  }
  return r;
}

function withCompanions(ctx: RuleContext, rule: ResolvedRule, c: Candidate): Candidate {
  const a = ctx.analysis;
  if (!possibleIn(rule.with!, a)) return { ...c, companions: [] };
  const taken = new Set([c.root, ...c.roots, ...c.consequences, ...c.related]);
  const companions = a.groups.filter((g) => !taken.has(g) && matchGroup(rule.with!, g, a));
  return { ...c, companions };
}

function suppressed(s: Suppression, g: AnalyzedGroup): boolean {
  if (s.group !== undefined && g.id !== s.group && g.key !== s.group) return false;
  if (s.func !== undefined && !g.frames.some((f) => re(s.func!).test(f.func))) return false;
  if (s.file !== undefined && !g.frames.some((f) => re(s.file!).test(f.file))) return false;
  if (s.site !== undefined) {
    const site = siteOf(g);
    if (!site || !re(s.site).test(site.func)) return false;
  }
  return true;
}

/** Drop suppressed groups; a finding whose root is suppressed goes (an aggregate keeps the rest). */
function suppress(cands: Candidate[], list: readonly Suppression[]): Candidate[] {
  if (!list.length) return cands;
  const out: Candidate[] = [];
  for (const c of cands) {
    const rules = list.filter((s) => s.rule === undefined || s.rule === c.rule.id);
    const hit = (g: AnalyzedGroup) => rules.some((s) => suppressed(s, g));
    let { root, related } = c;
    related = related.filter((g) => !hit(g));
    if (root && hit(root)) {
      if (!c.rule.aggregate || !related.length) continue;
      [root, ...related] = related;
    }
    out.push({
      ...c,
      root,
      related,
      consequences: c.consequences.filter((g) => !hit(g)),
      companions: c.companions?.filter((g) => !hit(g)),
    });
  }
  return out;
}

/** Decide severity and variant text; drop candidates whose `require` fails. */
function score(c: Candidate, a: Analysis): (Candidate & { severity: Severity }) | null {
  const rule = c.rule;
  const goroutines = c.goroutines ?? involved(c);
  if (!c.root) return { ...c, goroutines, severity: c.severity ?? rule.severity };
  const facts: FindingFacts = {
    root: siteView(c.root, siteCount(c), a),
    consequences: goroutinesOf(c.consequences),
    goroutines: c.root.count + goroutinesOf(c.roots) + goroutinesOf(c.related),
    variant: c.variant,
  };
  if (rule.require && !matchWhen(rule.require, facts, a)) return null;
  let severity: Severity = c.severity ?? rule.severity;
  if (!c.severity) {
    for (const l of rule.levels ?? []) {
      if (matchWhen(l.when, facts, a)) {
        severity = l.severity;
        break;
      }
    }
  }
  // A finding that ends up `info` without a detector's variant uses the rule's neutral `info` text,
  // if it has one: an info finding must not say "nobody sends" or "they leak too".
  const variant = c.variant ?? (severity === 'info' && rule.variants?.info ? 'info' : listingVariant(a, rule.variants));
  const v = variant ? rule.variants?.[variant] : undefined;
  if (v?.omit) return null;
  if (v?.severity) severity = v.severity;
  return { ...c, variant, goroutines, severity, confidence: c.confidence ?? (isLeaked(c.root, a) ? 'certain' : undefined) };
}

/**
 * A set finding (`absorbs`) is the one finding for its groups: a candidate rooted at one of them (a
 * stuck Cond wait that is one role of a hung session set) becomes part of it — its consequences join,
 * the more severe of the two counts, and its title stays as a fact. A candidate that counts more
 * goroutines than the set explains more than one role and stays on its own.
 */
function absorb<C extends Candidate & { severity: Severity }>(cands: C[], a: Analysis): C[] {
  const sets = cands.filter((c) => c.absorbs && c.root);
  if (!sets.length) return cands;
  const owner = new Map<string, C>();
  for (const s of sets) for (const g of [s.root!, ...s.related]) if (!owner.has(g.id)) owner.set(g.id, s);
  const grown = new Map<C, C>(sets.map((s) => [s, s]));
  const out: C[] = [];
  for (const c of cands) {
    const s = c.root && !c.absorbs && c.rule.category !== 'crash' && c.rule.category !== 'race' ? owner.get(c.root.id) : undefined;
    if (!s || (c.goroutines ?? 0) > (s.goroutines ?? 0)) {
      out.push(c);
      continue;
    }
    const cur = grown.get(s)!;
    const mine = new Set([cur.root!, ...cur.related]);
    grown.set(s, {
      ...cur,
      severity: SEVERITY_RANK[c.severity] < SEVERITY_RANK[cur.severity] ? c.severity : cur.severity,
      consequences: union(cur.consequences, c.consequences.filter((g) => !mine.has(g))),
      // An info about the same set (it scales together) adds nothing to say.
      facts: CLAIMING.has(c.rule.category) ? [...cur.facts, `also: ${finishCandidate(c, a).title} (${c.rule.id})`] : cur.facts,
    });
  }
  return out.map((c) => grown.get(c) ?? c);
}

/** Several rules (or a re-rooted waiter rule) landing on one root become one finding. */
function mergeByRoot<C extends Candidate & { severity: Severity }>(cands: C[]): C[] {
  const byRoot = new Map<string, C>();
  const out: C[] = [];
  for (const c of cands) {
    if (!c.root || c.rule.aggregate) {
      out.push(c);
      continue;
    }
    const prev = byRoot.get(c.root.id);
    if (!prev) {
      byRoot.set(c.root.id, c);
      continue;
    }
    const primary = better(prev, c) ? prev : c;
    const other = primary === prev ? c : prev;
    const severity = SEVERITY_RANK[other.severity] < SEVERITY_RANK[primary.severity] ? other.severity : primary.severity;
    // A group the merged finding roots at (its root, its other call paths to the site) is not also
    // one of its consequences or related groups, as the other candidate may have had it.
    const own = new Set([primary.root!, ...primary.roots]);
    byRoot.set(c.root.id, {
      ...primary,
      severity,
      consequences: union(primary.consequences, other.consequences.filter((g) => !own.has(g))),
      related: union(primary.related, other.related.filter((g) => !own.has(g))),
      goroutines: Math.max(primary.goroutines ?? 0, other.goroutines ?? 0),
    });
  }
  return [...out, ...byRoot.values()];
}

/**
 * Where the runtime has said which goroutines leaked (a goroutineleak profile; a debug=2 dump with
 * `(leaked)` marks, which is what `goroutineleak?debug=2` prints), a leak or deadlock guess about a
 * goroutine it did not mark would stand beside the proof: that goroutine waits on something a
 * runnable goroutine can still reach. Neutral `info` findings (idle loops) stay.
 */
function guessBesideProof(c: Candidate & { severity: Severity }, a: Analysis): boolean {
  return !!c.root && c.severity !== 'info' && CLAIMING.has(c.rule.category) && hasLeakProof(a) && !isLeaked(c.root, a);
}

/** A rule that states the runtime's proof (`match: {leaked: true}`) describes a proven root best. */
function proven(c: Candidate): boolean {
  return c.rule.match?.leaked === true;
}

/** The rule that matched the root itself describes it better than one re-rooted onto it. */
function better(a: Candidate & { severity: Severity }, b: Candidate & { severity: Severity }): boolean {
  if (proven(a) !== proven(b)) return proven(a);
  // What the wait-for graph proves (who holds what) describes a root better than its stack shape.
  if (!!a.precise !== !!b.precise && SEVERITY_RANK[a.severity] === SEVERITY_RANK[b.severity]) return !!a.precise;
  if (!!a.rerooted !== !!b.rerooted) return !a.rerooted;
  if (a.variant !== b.variant) return !a.variant;
  return SEVERITY_RANK[a.severity] <= SEVERITY_RANK[b.severity];
}

/** Most severe first; a group named as root or consequence of a finding is not the root of another. */
function dedupe<C extends Candidate & { severity: Severity }>(cands: C[]): C[] {
  const claimOrder = (a: C, b: C) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || (b.precise ? 1 : 0) - (a.precise ? 1 : 0) || order(a, b);
  const sorted = [...cands.filter((c) => !c.rule.fallback).sort(claimOrder), ...cands.filter((c) => c.rule.fallback).sort(claimOrder)];
  const claimed = new Claims();
  const out: C[] = [];
  for (const c of sorted) {
    if (!c.root || c.rule.category === 'crash' || c.rule.category === 'race') {
      out.push(c);
      continue;
    }
    if (claimed.has(c.root.id)) continue;
    if (!CLAIMING.has(c.rule.category)) {
      // `info` findings (proportional sets) say something new only about groups nothing else explains.
      if (!c.related.some((g) => claimed.has(g.id))) out.push(c);
      continue;
    }
    const keep = (list: AnalyzedGroup[]) => unclaimed(list, claimed, c.root!);
    const next = {
      ...c,
      consequences: keep(c.consequences),
      related: keep(c.related),
      roots: keep(c.roots),
      companions: c.companions && keep(c.companions),
    };
    claimed.add([next.root!]);
    for (const list of [next.roots, next.consequences, next.companions ?? []]) claimed.add(list);
    if (c.rule.aggregate || c.claimsRelated) claimed.add(next.related);
    out.push(next);
  }
  return out.sort(order);
}

/**
 * Ids of the groups that findings have claimed so far. A claimed list is read into the set only when
 * some later finding asks: the last one to claim (often the one with thousands of roots) never is.
 */
class Claims {
  private readonly ids = new Set<string>();
  private pending: (readonly AnalyzedGroup[])[] = [];

  add(list: readonly AnalyzedGroup[]): void {
    if (list.length) this.pending.push(list);
  }

  get none(): boolean {
    return this.ids.size === 0 && this.pending.length === 0;
  }

  has(id: string): boolean {
    for (const list of this.pending) for (const g of list) this.ids.add(g.id);
    this.pending = [];
    return this.ids.has(id);
  }
}

/** `list` without claimed groups and `root`: the same array when that removes none (nothing is claimed yet, often). */
function unclaimed(list: AnalyzedGroup[], claimed: Claims, root: AnalyzedGroup): AnalyzedGroup[] {
  // (Nothing claimed: a native search for the root, not a call per group of a 20,000-group list.)
  if (claimed.none) return list.includes(root) ? list.filter((g) => g !== root) : list;
  const keep = (g: AnalyzedGroup) => !claimed.has(g.id) && g !== root;
  for (let i = 0; i < list.length; i++) if (!keep(list[i])) return list.filter(keep);
  return list;
}

export function order(a: Candidate & { severity: Severity }, b: Candidate & { severity: Severity }): number {
  return (
    SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] ||
    (b.goroutines ?? 0) - (a.goroutines ?? 0) ||
    textOrder(a.rule.id, b.rule.id) ||
    textOrder(a.root?.id ?? '', b.root?.id ?? '')
  );
}
