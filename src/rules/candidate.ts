/** What rules and detectors produce before merging, and how a candidate becomes a `Finding`. */
import type { Analysis, AnalyzedGroup, SiteFrame } from '../analyze/types.js';
import type { RaceReport } from '../model/dump.js';
import { describe, evidenceGroup, render, templateVars } from './evidence.js';
import { goroutines, isJoinWaiter, isParked, num, pct, sameSite, shortFunc, siteOf, siteText, stateOf, waitText } from './frames.js';
import type { LinkGraph } from './links.js';
import { countText, listingFinding, tidy } from './listing.js';
import type { EvidenceGroup, Finding, Rule, Severity } from './types.js';

/** A rule with the pack it came from. */
export interface ResolvedRule extends Rule {
  readonly pack: string;
}

export interface Candidate {
  readonly rule: ResolvedRule;
  /** The root group; undefined for findings about the process (crash headline, race report). */
  readonly root?: AnalyzedGroup;
  /** Further root groups (both sides of a lock cycle). */
  readonly roots: AnalyzedGroup[];
  readonly consequences: AnalyzedGroup[];
  readonly related: AnalyzedGroup[];
  /** Groups folded in by the rule's `with` (shown as related, not counted by `minGoroutines`). */
  readonly companions?: AnalyzedGroup[];
  /** Chosen by a detector; selects `rule.variants[variant]`. */
  readonly variant?: string;
  readonly facts: string[];
  /** Extra template variables. */
  readonly vars: Record<string, string>;
  /** The root came from following a waiter down to what it waits for. */
  readonly rerooted?: boolean;
  /** Set by a detector to bypass `levels`. */
  readonly severity?: Severity;
  readonly confidence?: Finding['confidence'];
  readonly goroutines?: number;
  readonly location?: Finding['location'];
  /**
   * Read from the wait-for graph (frame arguments, who created whom): it claims its groups before a
   * rule that only matched stack shapes does, at equal severity.
   */
  readonly precise?: boolean;
  /** Its `related` groups are part of what it explains (a cycle's other links): no other finding roots there. */
  readonly claimsRelated?: boolean;
  /**
   * A finding about a whole set of groups (a hung session set): a candidate rooted at one of its groups
   * is part of it (`absorb` in engine.ts), so the set is one finding, counted whole.
   */
  readonly absorbs?: boolean;
  readonly stack?: SiteFrame[];
}

export interface RuleContext {
  readonly analysis: Analysis;
  readonly graph: LinkGraph;
  readonly races: readonly RaceReport[];
  /** A detector parameter from the rule's `params`, or the default (also when of another type). */
  param<T extends number | string | boolean>(rule: ResolvedRule, name: string, dflt: T): T;
}

/**
 * Code for what one-group matching cannot decide. `find` produces candidates (for a rule without
 * `match`, or from the matched ones when given); `refine` classifies or drops one matched candidate.
 */
export interface Detector {
  readonly description: string;
  /** Template variables the detector adds (beyond `templateVars`): rules may use `{name}` for these. */
  readonly vars?: readonly string[];
  find?(ctx: RuleContext, rule: ResolvedRule, matched?: Candidate[]): Candidate[];
  refine?(ctx: RuleContext, rule: ResolvedRule, c: Candidate): Candidate | null;
}

export function candidate(rule: ResolvedRule, root: AnalyzedGroup | undefined, extra: Partial<Candidate> = {}): Candidate {
  return { rule, root, roots: [], consequences: [], related: [], facts: [], vars: {}, ...extra };
}

const CONFIDENCE: Record<Severity, NonNullable<Finding['confidence']>> = { error: 'high', warning: 'medium', info: 'low' };

/**
 * Goroutines of the root's blocking site in this candidate: the root and the further roots parked at
 * the same site (other call paths); the root alone when the roots are elsewhere (a lock cycle).
 */
export function siteCount(c: Candidate): number {
  if (!c.root || !c.roots.length) return c.root?.count ?? 0;
  // Asked several times per candidate (score, finish), whose copies share their roots array.
  const memo = siteCounts.get(c.roots);
  if (memo !== undefined && memo.root === c.root) return memo.count;
  const root = c.root;
  let count = root.count;
  for (let i = 0; i < c.roots.length; i++) {
    if (!sameSite(c.roots[i], root)) {
      count = root.count;
      break;
    }
    count += c.roots[i].count;
  }
  siteCounts.set(c.roots, { root: c.root, count });
  return count;
}

/** `siteCount` by roots array (never changed once a candidate holds it) and root. */
const siteCounts = new WeakMap<readonly AnalyzedGroup[], { root: AnalyzedGroup; count: number }>();

/**
 * Records what `siteCount` and `goroutinesOf` sum over `roots`, where the caller knows it without a
 * pass over them: a whole site set (site-sets.ts) is `root` and `roots`, all at one site and wait
 * kind, `count` goroutines in all. On 20,000 distinct stacks at one site, each such pass is a cold
 * loop over 20,000 groups.
 */
export function knownSiteSet(root: AnalyzedGroup, roots: readonly AnalyzedGroup[], count: number): void {
  siteCounts.set(roots, { root, count });
  sums.set(roots, count - root.count);
}

export function finishCandidate(c: Candidate & { severity: Severity }, a: Analysis): Finding {
  const rule = c.rule;
  const variant = c.variant ? rule.variants?.[c.variant] : undefined;
  const groups: EvidenceGroup[] = [];
  if (c.root) groups.push(evidenceGroup(c.root, 'root'));
  // (Indexed: a finding's lists may hold tens of thousands of groups, and cold code allocates an
  // iterator result per for-of step.)
  const rootsSaid = c.root ? furtherRoots(c, groups) : [];
  if (!c.root) for (let i = 0; i < c.roots.length; i++) groups.push(evidenceGroup(c.roots[i], 'root'));
  for (let i = 0; i < c.consequences.length; i++) groups.push(evidenceGroup(c.consequences[i], 'consequence'));
  for (let i = 0; i < c.related.length; i++) groups.push(evidenceGroup(c.related[i], 'related'));
  const companions = c.companions ?? [];
  for (let i = 0; i < companions.length; i++) groups.push(evidenceGroup(companions[i], 'related'));
  // A wait-for finding counts whom it holds up itself (all queued behind one holder); a cascade's
  // consequences count only the share behind its root (`involved`).
  const goroutines = c.goroutines !== undefined && (!c.root || c.precise) ? c.goroutines : involved(c);
  const base = c.root ? templateVars(a, c.root, c.consequences, goroutines, groups.length) : { goroutines: num(goroutines), total: num(a.total) };
  const vars: Record<string, string> = { ...base, ...c.vars };
  const atSite = siteCount(c);
  if (c.root && atSite !== c.root.count) {
    vars.count = vars.rootCount = countText(a.snapshot, atSite);
    vars.share = pct(a.total ? atSite / a.total : 0);
  }
  if (rule.aggregate && c.root) {
    const matched = [c.root, ...c.related].reduce((n, g) => n + g.count, 0);
    vars.count = countText(a.snapshot, matched);
    vars.share = pct(a.total ? matched / a.total : 0);
  }
  const site = c.root ? siteOf(c.root) : undefined;
  return listingFinding(a.snapshot, {
    ruleId: rule.id,
    severity: c.severity,
    title: tidy(render(variant?.title ?? rule.title, vars)),
    explanation: tidy(render(variant?.explanation ?? rule.explanation, vars)),
    evidence: {
      groups,
      goroutines,
      stack: c.stack ?? c.root?.frames ?? [],
      facts: [...(c.root ? rootFacts(c, a, rootsSaid) : []), ...c.facts],
    },
    cause: render(variant?.cause ?? rule.cause, vars),
    fix: render(variant?.fix ?? rule.fix, vars),
    ...(c.location ? { location: c.location } : site ? { location: { file: site.file, line: site.line, func: site.func } } : {}),
    snapshot: { source: a.snapshot.source, index: a.snapshot.index },
    category: rule.category,
    confidence: c.confidence ?? CONFIDENCE[c.severity],
    pack: rule.pack,
  });
}

/**
 * Goroutines a finding is about: its root(s), related and companion groups, and of each consequence
 * only the goroutines behind the root. A join waiter can hold waiters for healthy siblings too
 * (apiproxy-leak: 380 in errgroup.Wait, 300 behind the blocked send, 80 behind live watches); those
 * are not part of the leak, so a waiter group counts at most as many goroutines as the root has.
 */
export function involved(c: Candidate): number {
  const rootCount = (c.root?.count ?? 0) + goroutinesOf(c.roots);
  const others = goroutinesOf(c.related) + goroutinesOf(c.companions ?? []);
  return rootCount + others + c.consequences.reduce((n, g) => n + behind(g, rootCount), 0);
}

/**
 * Goroutines of `groups`, summed. A long list (the further roots of one site reached by thousands of
 * stacks) is asked again by scoring and finishing: summed once per array (the arrays a candidate
 * holds are never changed).
 */
export function goroutinesOf(groups: readonly AnalyzedGroup[]): number {
  const long = groups.length > 64;
  let n = long ? sums.get(groups) : undefined;
  if (n !== undefined) return n;
  n = 0;
  for (let i = 0; i < groups.length; i++) n += groups[i].count;
  if (long) sums.set(groups, n);
  return n;
}

const sums = new WeakMap<readonly AnalyzedGroup[], number>();

/** Goroutines of consequence `g` behind a root of `rootCount` goroutines. */
export function behind(g: AnalyzedGroup, rootCount: number): number {
  return rootCount > 0 && isJoinWaiter(g) && g.count > rootCount ? rootCount : g.count;
}

/** testing/synctest: which bubble, and whether synctest can see the wait (only durable waits count). */
function bubbleFact(g: AnalyzedGroup): string | undefined {
  const b = g.flags.synctestBubble;
  if (b === undefined) return undefined;
  if (g.flags.durable) return `in synctest bubble ${b}: a durable wait, which synctest sees (it reports a bubble deadlock when every goroutine of the bubble is durably blocked)`;
  if (!isParked(g)) return `in synctest bubble ${b}`;
  return `in synctest bubble ${b}: not a durable wait (a mutex, I/O or a wait outside the bubble), so synctest cannot see it block: the test hangs until its timeout`;
}

/**
 * The evidence of a rooted candidate's further roots, pushed to `groups`, and the facts that say them
 * (`also root: …`), in one pass: a site reached by 20,000 stacks has as many further roots, and a
 * second pass over their groups (scattered over the heap) costs milliseconds of cache misses.
 * Roots described alike (one site reached by 20,000 stacks of one goroutine each) are one fact with
 * their number, and at most MAX_ROOT_FACTS descriptions are said: the evidence lists every group.
 */
function furtherRoots(c: Candidate, groups: EvidenceGroup[]): string[] {
  const atSite = siteCount(c) !== c.root!.count;
  // Each description, with the roots it describes and their goroutines (in the order first met).
  const alike = new Map<string, Alike>();
  let last: Alike | undefined;
  for (let i = 0; i < c.roots.length; i++) {
    const g = c.roots[i];
    groups.push(evidenceGroup(g, 'root'));
    const d = describe(g);
    // Consecutive roots alike share one text (`describe` keeps its last): no map lookup each.
    if (last === undefined || last.text !== d) {
      last = alike.get(d);
      if (last === undefined) alike.set(d, (last = new Alike(d)));
    }
    last.roots++;
    last.goroutines += g.count;
  }
  const out: string[] = [];
  let unsaidRoots = 0;
  let unsaidGoroutines = 0;
  for (const e of alike.values()) {
    if (out.length === MAX_ROOT_FACTS) {
      unsaidRoots += e.roots;
      unsaidGoroutines += e.goroutines;
    } else if (e.roots === 1) out.push(`${atSite ? 'also at this site, another call path' : 'also root'}: ${e.text}`);
    else out.push(`${atSite ? `also at this site, ${num(e.roots)} other call paths` : `also root, ${num(e.roots)} groups`}, each: ${e.text}`);
  }
  if (unsaidRoots > 0) {
    const what = atSite ? `${num(unsaidRoots)} more call path${unsaidRoots === 1 ? '' : 's'} at this site` : `${num(unsaidRoots)} more root group${unsaidRoots === 1 ? '' : 's'}`;
    out.push(`and ${what} (${goroutines(unsaidGoroutines)}), each in the evidence`);
  }
  return out;
}

/** Further roots with one description (`furtherRoots`). */
class Alike {
  roots = 0;
  goroutines = 0;
  constructor(readonly text: string) {}
}

/** Descriptions of further roots said as facts, at most (the rest are summed in one more). */
const MAX_ROOT_FACTS = 10;

/** `rootsSaid`: the facts of the further roots (`furtherRoots`). */
function rootFacts(c: Candidate, a: Analysis, rootsSaid: readonly string[]): string[] {
  const g = c.root!;
  const out: string[] = [];
  const state = stateOf(g) || g.waitKind;
  out.push(`${num(g.count)} of ${num(a.total)} goroutines (${pct(g.share)}) [${state}] at ${siteText(siteOf(g))}`);
  if (g.wait) out.push(`waiting ${waitText(g.wait)} (${num(g.wait.stamped)} of ${num(g.count)} printed a wait time)`);
  if (g.creator) out.push(`created by ${shortFunc(g.creator.func)} at ${siteText(g.creator)}`);
  const bubble = bubbleFact(g);
  if (bubble) out.push(bubble);
  const atSite = siteCount(c);
  if (atSite !== g.count) out.push(`${num(atSite)} goroutines at ${siteText(siteOf(g))} in ${num(c.roots.length + 1)} call paths; the largest is shown`);
  for (let i = 0; i < rootsSaid.length; i++) out.push(rootsSaid[i]);
  const rootCount = g.count + goroutinesOf(c.roots);
  for (const q of c.consequences) {
    out.push(`consequence: ${describe(q)}`);
    // (A wait-for finding's consequences wait on its holder whole: nothing to split off.)
    const rest = c.precise ? 0 : q.count - behind(q, rootCount);
    if (rest > 0) {
      out.push(
        `${num(rest)} more goroutine${rest === 1 ? '' : 's'} at ${siteText(siteOf(q))} wait for other goroutines they started (live siblings, not part of this leak); not counted`,
      );
    }
  }
  if (c.rule.aggregate) for (const r of c.related) out.push(`with: ${describe(r)}`);
  for (const r of c.companions ?? []) out.push(`with: ${describe(r)}`);
  return out;
}
