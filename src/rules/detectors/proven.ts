/**
 * `proven`: goroutines the runtime's leak-detecting GC marked leaked (Go 1.26 goroutineleak profile,
 * `(leaked)` in debug=2). The proof is per goroutine, not per cause: a fan-out that leaks its senders
 * also leaks the closer that waits for them in `wg.Wait()`, and both are marked. Here the leaked join
 * waiter becomes a consequence of the leaked goroutines it waits for, the way `cascade` does it for
 * links it can see: siblings started by the same function (`F.func1` sends, `F.func2` waits) are
 * linked when both are proven, since nothing else can be waiting on a WaitGroup no runnable goroutine
 * reaches. The finding states where the proof came from.
 */
import type { Analysis, AnalyzedGroup } from '../../analyze/types.js';
import { enclosing } from '../../analyze/closures.js';
import { union } from '../cascade.js';
import type { Candidate, Detector } from '../candidate.js';
import { isJoinWaiter, siteOf } from '../frames.js';
import { isLeaked } from '../match.js';

/** The function that started `g`: its creator, or the function its entry closure is nested in. */
function spawner(g: AnalyzedGroup): string | undefined {
  const site = siteOf(g);
  if (g.creator) return g.creator.func;
  if (!site) return undefined;
  const outer = enclosing(site.func);
  return outer === site.func ? undefined : outer;
}

/** Where the proof comes from, said once per finding. */
export function proofFact(a: Analysis): string {
  const where = a.snapshot.profile === 'goroutineleak'
    ? `this is a goroutineleak profile (${a.snapshot.format === 'debug2' ? 'debug=2: leaked goroutines are marked `(leaked)`' : `${a.snapshot.format === 'pprof' ? 'debug=0' : 'debug=1'}: it lists leaked goroutines only`})`
    : 'the dump marks them `(leaked)`, as `goroutineleak?debug=2` does (or a goroutine dump taken after a goroutineleak profile ran)';
  return `proven by the runtime's leak-detecting GC: nothing runnable can reach what they wait on; ${where}`;
}

export const provenDetector: Detector = {
  description: 'a proven leak: attach the leaked join waiters (wg.Wait) that wait for the leaked goroutines their function started',
  refine: (ctx, _rule, c): Candidate | null => {
    const a = ctx.analysis;
    if (!c.root || !isLeaked(c.root, a)) return c;
    const leaked = a.groups.filter((g) => isLeaked(g, a));
    let root = c.root;
    let rerooted = c.rerooted;
    // A leaked waiter is never the cause: re-root onto the largest leaked non-waiter sibling.
    if (isJoinWaiter(root)) {
      const from = spawner(root);
      const kids = leaked.filter((g) => !isJoinWaiter(g) && from !== undefined && spawner(g) === from).sort((x, y) => y.count - x.count);
      if (kids.length) {
        root = kids[0];
        rerooted = true;
      }
    }
    const from = spawner(root);
    const waiters = from === undefined ? [] : leaked.filter((g) => g !== root && isJoinWaiter(g) && spawner(g) === from);
    const consequences = union(c.consequences, waiters).filter((g) => g !== root);
    return { ...c, root, rerooted, consequences, confidence: 'certain', facts: [...c.facts, proofFact(a)] };
  },
};
