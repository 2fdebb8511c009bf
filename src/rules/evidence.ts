/** Evidence and template variables of a finding, from its groups. */
import { defineIdOf } from '../analyze/group-key.js';
import type { Analysis, AnalyzedGroup, SiteFrame } from '../analyze/types.js';
import { coalescedAt, goroutines, isJoinWaiter, isSlotWaiter, num, pct, shortFunc, siteOf, siteText, stateOf, waitText } from './frames.js';
import { countText, sentenceVars } from './listing.js';
import type { EvidenceGroup } from './types.js';

export type Role = EvidenceGroup['role'];

export function evidenceGroup(g: AnalyzedGroup, role: Role): EvidenceGroup {
  const s = siteOf(g);
  // One per group of a finding (tens of thousands for one stuck site reached by as many stacks):
  // built without temporary objects to spread, fields in the order the JSON report prints.
  // Its id is the group's, read when asked (analyze/group-key.ts): the table report prints none.
  const e: { -readonly [K in keyof EvidenceGroup]?: EvidenceGroup[K] } = {};
  defineIdOf(e, g);
  e.count = g.count;
  e.share = g.share;
  e.waitKind = g.waitKind;
  e.state = stateOf(g);
  if (s) e.site = evidenceSite(s);
  if (g.wait) e.wait = { min: g.wait.min, max: g.wait.max };
  e.role = role;
  return e as EvidenceGroup;
}

type EvidenceSite = NonNullable<EvidenceGroup['site']>;

const evidenceSites = new WeakMap<SiteFrame, EvidenceSite>();

/**
 * A site frame as evidence names it, one object per site frame: a finding about a site reached by
 * 20,000 stacks has 20,000 evidence groups at one site, and a copy each would be 20,000 objects that
 * live as long as the finding (evidence is read-only; reports copy what they print).
 */
export function evidenceSite(s: SiteFrame): EvidenceSite {
  // (The groups of one site come in a row: the last answer is the next one, without a WeakMap search.)
  if (s === lastSite) return lastEvidenceSite!;
  let e = evidenceSites.get(s);
  if (e === undefined) {
    e = { func: s.func, file: s.file, line: s.line };
    evidenceSites.set(s, e);
  }
  lastSite = s;
  lastEvidenceSite = e;
  return e;
}

let lastSite: SiteFrame | undefined;
let lastEvidenceSite: EvidenceSite | undefined;

const JOIN_FUNC = /(WaitGroup|errgroup\.\(\*Group\)|Pool)\)?\.Wait$/;

const whereTexts = new WeakMap<SiteFrame, string>();

/** `proxy.(*Store).listAndWatch (proxy_store.go:116)`, once per site frame (shared by many groups). */
function whereText(s: SiteFrame): string {
  let w = whereTexts.get(s);
  if (w === undefined) {
    // A frame without file:line (a pprof listing) is named by its function alone.
    w = s.file ? `${shortFunc(s.func)} (${siteText(s)})` : shortFunc(s.func);
    whereTexts.set(s, w);
  }
  return w;
}

/** The last text `describe` made for a group at a site frame (not a join waiter), with what it was made of. */
interface Described {
  count: number;
  state: string;
  text: string;
}

const described = new WeakMap<SiteFrame, Described>();

/** "300 goroutines in errgroup.(*Group).Wait from proxy.(*Store).listAndWatch (proxy_store.go:116)" */
export function describe(g: AnalyzedGroup): string {
  const s = siteOf(g);
  const at = coalescedAt(g);
  if (at >= 0) {
    // Waiting in singleflight's Do for another caller's call: named by who called Do.
    const caller = g.frames[at + 1] ?? g.frames[at];
    return `${goroutines(g.count)} in ${shortFunc(g.frames[at].func)} from ${whereText(caller)}`;
  }
  if (isSlotWaiter(g)) {
    const where = s ? whereText(s) : 'an unknown site';
    return `${goroutines(g.count)} in errgroup.(*Group).Go (for a free slot of its SetLimit) from ${where}`;
  }
  if (isJoinWaiter(g)) {
    const where = s ? whereText(s) : 'an unknown site';
    // The outermost join is the one the program called (errgroup.Wait over its WaitGroup.Wait).
    const join = [...g.frames].reverse().find((f) => JOIN_FUNC.test(f.func));
    if (join) return `${goroutines(g.count)} in ${shortFunc(join.func)} from ${where}`;
  }
  const state = stateOf(g) || g.waitKind;
  if (!s) return `${goroutines(g.count)} [${state}] at an unknown site`;
  // The groups of a finding about one site reached by many stacks are mostly alike (one goroutine,
  // one state): one text per site frame, state and count, which the finding's facts then share.
  let d = s === lastDescribedSite ? lastDescribed : described.get(s);
  if (d === undefined || d.count !== g.count || d.state !== state) {
    d = { count: g.count, state, text: `${goroutines(g.count)} [${state}] at ${whereText(s)}` };
    described.set(s, d);
  }
  lastDescribedSite = s;
  lastDescribed = d;
  return d.text;
}

/** The site frame `describe` was last asked about, and its entry of `described`. */
let lastDescribedSite: SiteFrame | undefined;
let lastDescribed: Described | undefined;

/** Variables every template may use; detectors add their own. */
export function templateVars(
  a: Analysis,
  root: AnalyzedGroup,
  consequences: readonly AnalyzedGroup[],
  goroutines: number,
  groups: number,
): Record<string, string> {
  const s = siteOf(root);
  const cons = consequences.reduce((n, g) => n + g.count, 0);
  const wait = waitText(root.wait);
  // A parent group can hold waiters for healthy siblings too (egWait: 300 behind the leak + 80 live).
  const consList = consequences
    .map((g) => (g.count > root.count && coalescedAt(g) < 0 ? `${describe(g)} (${num(root.count)} of them behind these)` : describe(g)))
    .join('; ');
  return {
    count: countText(a.snapshot, root.count),
    rootCount: countText(a.snapshot, root.count),
    goroutines: num(goroutines),
    total: num(a.total),
    share: pct(root.share),
    groups: String(groups),
    site: siteText(s),
    func: s ? shortFunc(s.func) : 'an unknown function',
    ...sentenceVars(a, root, consequences, s),
    fullFunc: s?.func ?? '',
    file: s?.file ?? '',
    line: s ? String(s.line) : '',
    state: stateOf(root) || root.waitKind,
    waitKind: root.waitKind,
    wait: wait || 'less than a minute (or unstamped)',
    waitClause: wait ? `, parked for ${wait}` : '',
    creator: root.creator ? `${shortFunc(root.creator.func)} (${siteText(root.creator)})` : 'an unknown site',
    createdBy: root.creator ? ` started by ${shortFunc(root.creator.func)} (${siteText(root.creator)})` : '',
    consequences: num(cons),
    consequenceList: consList,
    behind: consequences.length ? ` Behind them, ${consList} ${consequences.length === 1 && consequences[0].count === 1 ? 'waits' : 'wait'} for them to finish.` : '',
    cascade: consequences.length
      ? ` Behind them, ${consList} ${consequences.length === 1 && consequences[0].count === 1 ? 'waits' : 'wait'} for them to finish, so they leak too.`
      : '',
  };
}

/** Replace `{name}`; unknown names are left visible so a typo in a rule shows in its output. */
export function render(template: string, vars: Readonly<Record<string, string>>): string {
  return template
    .replace(/\{([A-Za-z][A-Za-z0-9]*)\}/g, (m, k: string) => (k in vars ? vars[k] : m))
    .replace(ONE, '$11 $2')
    .replace(ONE_WAITS, '$11 $2 waits')
    .trim();
}

/** The things rules count, in the plural after a count of 1 ("1 requests wait" → "1 request waits"). */
const COUNTED = '((?:HTTP |gRPC )?(?:goroutine|request|connection|handler|call|caller))';
const ONE = new RegExp(`(^|[^\\d,.])1 ${COUNTED}s\\b`, 'g');
const ONE_WAITS = new RegExp(`(^|[^\\d,.])1 ${COUNTED} wait\\b`, 'g');

/** Placeholders a template uses (for the test that every built-in template is fully bound). */
export function placeholders(template: string): string[] {
  return [...template.matchAll(/\{([A-Za-z][A-Za-z0-9]*)\}/g)].map((m) => m[1]);
}
