/**
 * HTTP client requests waiting for their response: goroutines whose innermost frame past the runtime
 * is `net/http.(*persistConn).roundTrip` (the request is handed to the connection; it waits for the
 * write or the answer). Whether they carry an `http.Client` timeout shows in the dump: net/http runs
 * one timer goroutine per request that has one (`setRequestCancel`). A context deadline does not show.
 */
import type { Analysis, AnalyzedGroup } from '../../analyze/types.js';
import type { Detector } from '../candidate.js';
import { innermostCall, num } from '../frames.js';

const ROUND_TRIP = 'net/http.(*persistConn).roundTrip';
const TIMER = /^net\/http\.setRequestCancel\.func\d+$/;

/** Waiting for a response: roundTrip is the innermost frame past the runtime. */
export function awaitsResponse(g: AnalyzedGroup): boolean {
  return innermostCall(g)?.func === ROUND_TRIP;
}

/**
 * Goroutines of the analysis waiting for a response (a series' counter), and of net/http's per-request
 * timers: once per analysis (the candidate of each waiting site asks).
 */
export function responseWaits(a: Analysis): { waiting: number; timers: number } {
  let w = waitsMemo.get(a);
  if (!w) waitsMemo.set(a, (w = countWaits(a)));
  return w;
}

const waitsMemo = new WeakMap<Analysis, { waiting: number; timers: number }>();

function countWaits(a: Analysis): { waiting: number; timers: number } {
  let waiting = 0;
  let timers = 0;
  for (const g of a.groups) {
    if (awaitsResponse(g)) waiting += g.count;
    else if (g.frames.some((f) => TIMER.test(f.func))) timers += g.count;
  }
  return { waiting, timers };
}

export const awaitingResponseDetector: Detector = {
  description: 'HTTP requests waiting for their response (roundTrip innermost); says whether they carry an http.Client timeout (a timer goroutine per request)',
  vars: ['timeout', 'timeoutBrief'],
  refine(ctx, _rule, c) {
    const g = c.root;
    if (!g || !awaitsResponse(g)) return null;
    const { waiting, timers } = responseWaits(ctx.analysis);
    const none = timers === 0;
    const timeout = none
      ? 'No goroutine runs a per-request timer (net/http starts one for each request with an `http.Client` `Timeout`): these requests have no client timeout; a context deadline, if any, is not printed.'
      : `${num(timers)} of the ${num(waiting)} requests waiting in the dump carry an \`http.Client\` timeout (net/http's per-request timer goroutines).`;
    return {
      ...c,
      vars: { ...c.vars, timeout, timeoutBrief: none ? ', with no client timeout' : '' },
      facts: [...c.facts, none ? 'no http.Client timeout on these requests: no per-request timer goroutine (setRequestCancel) in the dump' : `${num(timers)} per-request timer goroutines (http.Client timeouts) for ${num(waiting)} requests waiting`],
    };
  },
};
