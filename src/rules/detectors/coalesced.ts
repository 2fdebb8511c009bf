/**
 * Callers coalesced by singleflight: `Do` runs one call per key and parks every other caller of that
 * key in `WaitGroup.Wait` until it returns. Those callers started nothing (they are no join waiters);
 * they wait for the goroutine running the call, the leader: a goroutine with the same `Do` (or its
 * `doCall`, which `DoChan` runs in a goroutine of its own) on its stack and not parked inside it.
 * The dump prints no key, so leaders are matched by the function that calls `Do` (the wrapper every
 * caller of one group goes through), else by the singleflight package. One stuck call holds every
 * caller of its key, and `Do` takes no context: none of them can give up.
 */
import { enclosing } from '../../analyze/closures.js';
import { anyFunc } from '../../analyze/peers.js';
import type { Analysis, AnalyzedGroup, SiteFrame } from '../../analyze/types.js';
import { candidate, type Detector } from '../candidate.js';
import { coalescedAt, goroutines, num, SINGLEFLIGHT_DO, shortFunc, siteText, stackFuncs, stateOf } from '../frames.js';
import { awaitsResponse, responseWaits } from './http-wait.js';

const DO_CALL = /(^|\/)singleflight\.\(\*Group(\[[^\]]*\])?\)\.doCall$/;

/** A goroutine in a singleflight call: the package of its `Do`/`doCall`, and who called `Do` (none under `DoChan`). */
interface Call {
  readonly group: AnalyzedGroup;
  readonly pkg: string;
  readonly caller?: SiteFrame;
}

interface Coalesced {
  /** Goroutines running a call (leaders), largest first. */
  readonly leaders: readonly Call[];
  /** Goroutines waiting in `Do` for a leader's call. */
  readonly waiting: number;
}

/** `golang.org/x/sync/singleflight` of `golang.org/x/sync/singleflight.(*Group).Do` */
function packageOf(func: string): string {
  return func.slice(0, func.lastIndexOf('.(*Group'));
}

/** The waiter's `Do` frame and its caller; undefined for a group that is no coalesced waiter. */
export function coalescedCall(g: AnalyzedGroup): Call | undefined {
  const at = coalescedAt(g);
  if (at < 0) return undefined;
  return { group: g, pkg: packageOf(g.frames[at].func), caller: g.frames[at + 1] };
}

/** The leaders' calls and the waiters of an analysis, once (each waiting site's candidate asks). */
export function coalesced(a: Analysis): Coalesced {
  let c = memo.get(a);
  if (!c) memo.set(a, (c = coalescedOf(a)));
  return c;
}

const memo = new WeakMap<Analysis, Coalesced>();

function coalescedOf(a: Analysis): Coalesced {
  const leaders: Call[] = [];
  let waiting = 0;
  for (const g of a.groups) {
    if (coalescedAt(g) >= 0) {
      waiting += g.count;
      continue;
    }
    // The outermost singleflight frame: `Do` with its caller, or `doCall` alone (DoChan's goroutine).
    for (let i = g.frames.length - 1; i >= 0; i--) {
      const f = g.frames[i].func;
      if (SINGLEFLIGHT_DO.test(f)) leaders.push({ group: g, pkg: packageOf(f), caller: g.frames[i + 1] });
      else if (DO_CALL.test(f)) leaders.push({ group: g, pkg: packageOf(f) });
      else continue;
      break;
    }
  }
  leaders.sort((x, y) => y.group.count - x.group.count);
  return { leaders, waiting };
}

/** The leaders a waiter's call may be: same caller of `Do`, else any of the same singleflight package. */
function leadersFor(w: Call, all: readonly Call[]): Call[] {
  const same = all.filter((l) => l.pkg === w.pkg && l.caller !== undefined && w.caller !== undefined && l.caller.func === w.caller.func);
  return same.length ? same : all.filter((l) => l.pkg === w.pkg);
}

/** What the leaders wait on, for the text: `an HTTP response`, `[chan send]`, `running`. */
function leaderWait(a: Analysis, g: AnalyzedGroup): { text: string; fact?: string } {
  if (awaitsResponse(g)) {
    const { timers } = responseWaits(a);
    return timers
      ? { text: 'an HTTP response' }
      : { text: 'an HTTP response, with no client timeout', fact: 'no http.Client timeout on the calls\' requests: no per-request timer goroutine (setRequestCancel) in the dump' };
  }
  const state = stateOf(g) || g.waitKind;
  return { text: state === 'running' || state === 'runnable' ? `nothing: ${state}` : `[${state}]` };
}

/** The `{calls}` of both rules' titles: `4 shared calls (singleflight) that wait`. */
function callsText(calls: number): string {
  return calls === 1 ? '1 shared call (singleflight) that waits' : `${num(calls)} shared calls (singleflight) that wait`;
}

/** The calls' goroutines in a fact: `4 at main.(*avatarCache).fetch (main.go:119) [select]`. */
function leadersText(leaders: readonly AnalyzedGroup[]): string {
  return leaders.map((l) => `${num(l.count)} at ${shortFunc(l.blockingSite?.func ?? l.frames[0]?.func ?? '?')} (${siteText(l.blockingSite ?? l.frames[0])}) [${stateOf(l) || l.waitKind}]`).join('; ');
}

export const coalescedDetector: Detector = {
  description: 'callers of singleflight Do waiting for another caller\'s call: re-rooted onto the goroutines running the calls (leaders); `variant: unseen` when no leader is in the dump',
  vars: ['waiters', 'calls', 'doSite', 'doFunc', 'leaderWait'],
  refine(ctx, _rule, c) {
    const g = c.root;
    const w = g && coalescedCall(g);
    if (!g || !w) return null;
    const a = ctx.analysis;
    const waiters = [g, ...c.roots];
    const waiting = waiters.reduce((n, x) => n + x.count, 0);
    const doSite = w.caller ? siteText(w.caller) : siteText(g.frames[coalescedAt(g)]);
    const doFunc = w.caller ? shortFunc(w.caller.func) : shortFunc(g.frames[coalescedAt(g)].func);
    const vars = { ...c.vars, waiters: goroutines(waiting), doSite, doFunc };
    const leaders = leadersFor(w, coalesced(a).leaders).map((l) => l.group);
    if (!leaders.length) {
      const excerpt = a.snapshot.context?.kind === 'excerpt';
      return {
        ...c,
        variant: 'unseen',
        vars,
        facts: [...c.facts, excerpt ? 'the dump is an excerpt: the goroutine running the call may be in the part not shown' : 'no goroutine of the dump is inside a singleflight call (Do or doCall)'],
      };
    }
    const [root, ...more] = leaders;
    const calls = leaders.reduce((n, x) => n + x.count, 0);
    const wait = leaderWait(a, root);
    const facts = [
      `${goroutines(waiting)} wait in ${shortFunc(g.frames[coalescedAt(g)].func)} at ${doSite} (${doFunc}) for the result of a call another caller of the key is running`,
      `${num(calls)} call${calls === 1 ? '' : 's'} running (leaders): ${leadersText(leaders)}`,
      ...(wait.fact ? [wait.fact] : []),
    ];
    return {
      ...c,
      root,
      roots: more,
      rerooted: true,
      consequences: [...waiters, ...c.consequences.filter((x) => !waiters.includes(x) && !leaders.includes(x))],
      vars: { ...vars, calls: callsText(calls), leaderWait: wait.text },
      facts: [...c.facts, ...facts],
    };
  },
};

const DO_CHAN = /(^|\/)singleflight\.\(\*Group(\[[^\]]*\])?\)\.DoChan$/;

/**
 * Calls `DoChan` started, and the callers waiting on their channels. `DoChan` returns at once and runs
 * the call in a goroutine of its own (`doCall`, created by `DoChan`); each caller then waits on its
 * channel, usually in a `select` with its context, in the function that called `DoChan`. No frame
 * ties a caller to its call, but the call's goroutine runs the function literal the caller passed
 * (`getChan.func1`): callers are the goroutines parked at a receive or select in the function that
 * literal belongs to.
 */
interface ChanShare {
  /** The function that called `DoChan` and waits on its channel. */
  readonly owner: string;
  readonly leaders: AnalyzedGroup[];
  readonly callers: AnalyzedGroup[];
}

/** The DoChan shares of an analysis, by the function that called DoChan, once. */
export function chanShares(a: Analysis): readonly ChanShare[] {
  let s = chanMemo.get(a);
  if (!s) chanMemo.set(a, (s = chanSharesOf(a)));
  return s;
}

const chanMemo = new WeakMap<Analysis, ChanShare[]>();

function chanSharesOf(a: Analysis): ChanShare[] {
  // Most dumps run no singleflight call: the dump's functions, once each, say so.
  if (!anyFunc(stackFuncs(a), [DO_CALL])) return [];
  const byOwner = new Map<string, ChanShare>();
  for (const l of coalesced(a).leaders) {
    const g = l.group;
    // doCall with no Do above it runs in DoChan's goroutine (created by DoChan, which debug=0/1 do not print).
    if (l.caller || (g.creator && !DO_CHAN.test(g.creator.func))) continue;
    // The function literal doCall runs: the first frame inside it past singleflight's own closures.
    let at = g.frames.findIndex((f) => DO_CALL.test(f.func));
    while (at > 0 && g.frames[at - 1].func.startsWith(l.pkg + '.')) at--;
    const fn = at > 0 ? g.frames[at - 1].func : undefined;
    const owner = fn && enclosing(fn);
    if (!owner || owner === fn) continue;
    const s = byOwner.get(owner);
    if (s) s.leaders.push(g);
    else byOwner.set(owner, { owner, leaders: [g], callers: [] });
  }
  if (!byOwner.size) return [];
  for (const g of a.groups) {
    const site = g.blockingSite;
    // (debug=1 prints no state: a wait there is `unknown`.)
    if ((g.waitKind !== 'chan-receive' && g.waitKind !== 'select' && g.waitKind !== 'unknown') || site?.origin !== 'user') continue;
    byOwner.get(site.func)?.callers.push(g);
  }
  return [...byOwner.values()].filter((s) => s.callers.length);
}

export const coalescedChanDetector: Detector = {
  description: 'callers of singleflight DoChan waiting on its channel (a receive or select in the function that called DoChan) for calls its goroutines run: rooted at the calls, the callers their consequences',
  vars: ['waiters', 'calls', 'doSite', 'doFunc', 'leaderWait'],
  find(ctx, rule) {
    const a = ctx.analysis;
    return chanShares(a).flatMap(({ leaders, callers }) => {
      const waiting = callers.reduce((n, x) => n + x.count, 0);
      if (waiting < ctx.param(rule, 'minCallers', 2)) return [];
      const byCount = [...leaders].sort((x, y) => y.count - x.count);
      const [root, ...more] = byCount;
      const top = [...callers].sort((x, y) => y.count - x.count)[0];
      const calls = leaders.reduce((n, x) => n + x.count, 0);
      const wait = leaderWait(a, root);
      const doSite = siteText(top.blockingSite);
      const doFunc = shortFunc(top.blockingSite!.func);
      return [
        candidate(rule, root, {
          roots: more,
          consequences: callers,
          confidence: 'medium',
          vars: {
            waiters: goroutines(waiting),
            doSite,
            doFunc,
            calls: callsText(calls),
            leaderWait: wait.text,
          },
          facts: [
            `${goroutines(waiting)} wait in ${doFunc} (${callers.map((g) => `${num(g.count)} at ${siteText(g.blockingSite)} [${stateOf(g) || g.waitKind}]`).join('; ')}) on the channels DoChan returned`,
            `${num(calls)} call${calls === 1 ? '' : 's'} running in goroutines DoChan started: ${leadersText(leaders)}`,
            'the callers are the goroutines parked at a receive or select in the function whose literal the calls run (no frame ties a channel to its call)',
            ...(wait.fact ? [wait.fact] : []),
          ],
        }),
      ];
    });
  },
};

/** Goroutines waiting for a singleflight call in an analysis (a series' growth counter). */
export function coalescedWaiters(a: Analysis): number {
  return coalesced(a).waiting;
}

/** Goroutines waiting on DoChan's channels for calls in the dump (a series' growth counter). */
export function chanCallers(a: Analysis): number {
  return chanShares(a).reduce((n, s) => n + s.callers.reduce((m, g) => m + g.count, 0), 0);
}
