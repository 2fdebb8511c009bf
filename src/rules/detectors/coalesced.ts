/**
 * Callers coalesced by singleflight: `Do` runs one call per key and parks every other caller of that
 * key in `WaitGroup.Wait` until it returns. Those callers started nothing (they are no join waiters);
 * they wait for the goroutine running the call, the leader: a goroutine with the same `Do` (or its
 * `doCall`, which `DoChan` runs in a goroutine of its own) on its stack and not parked inside it.
 * The dump prints no key, so leaders are matched by the function that calls `Do` (the wrapper every
 * caller of one group goes through), else by the singleflight package. One stuck call holds every
 * caller of its key, and `Do` takes no context: none of them can give up.
 */
import type { Analysis, AnalyzedGroup, SiteFrame } from '../../analyze/types.js';
import type { Detector } from '../candidate.js';
import { coalescedAt, goroutines, num, SINGLEFLIGHT_DO, shortFunc, siteText, stateOf } from '../frames.js';
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
      `${num(calls)} call${calls === 1 ? '' : 's'} running (leaders): ${leaders.map((l) => `${num(l.count)} at ${shortFunc(l.blockingSite?.func ?? l.frames[0]?.func ?? '?')} (${siteText(l.blockingSite ?? l.frames[0])}) [${stateOf(l) || l.waitKind}]`).join('; ')}`,
      ...(wait.fact ? [wait.fact] : []),
    ];
    return {
      ...c,
      root,
      roots: more,
      rerooted: true,
      consequences: [...waiters, ...c.consequences.filter((x) => !waiters.includes(x) && !leaders.includes(x))],
      vars: { ...vars, calls: calls === 1 ? '1 shared call (singleflight) that waits' : `${num(calls)} shared calls (singleflight) that wait`, leaderWait: wait.text },
      facts: [...c.facts, ...facts],
    };
  },
};

/** Goroutines waiting for a singleflight call in an analysis (a series' growth counter). */
export function coalescedWaiters(a: Analysis): number {
  return coalesced(a).waiting;
}
