/**
 * Relays: one loop (a hub, broker or dispatcher) takes messages from a channel and hands each to its
 * consumers' queues with plain sends. It moves at the pace of its slowest consumer. When a consumer
 * stops taking (its writer parked on a peer that stopped reading), the loop parks on that queue and
 * everything sent to the loop waits behind it: the senders look like a send nobody receives, but
 * their receiver is the loop, stuck one step further.
 *
 * No dump prints which goroutine receives a channel (a loop parked in a send is not in its select),
 * so the roles are read from stack shapes within the program's own package:
 * - the relay: at most `maxRelays` goroutines parked in a plain `chan send` in their own loop (the
 *   site within two calls of the goroutine's entry, started by `go`, not called back by a library);
 * - the senders: the package's other groups parked in `chan send` (debug=2: not on the relay's own
 *   channel, when both addresses are printed);
 * - the consumer that stopped taking: a function of the package that idles at a receive in some
 *   goroutines (the consumers' loop) and is parked elsewhere in others (IO, a lock…). Required: without
 *   it nothing shows that the relay waits on a consumer.
 *
 * `stalledRelayDetector` finds that set; `busyReceiverDetector` keeps a few senders waiting beside a
 * loop of theirs that is running (a relay delivering) at info: the normal wait of a busy receiver.
 */
import { packageOfFunc } from '../../analyze/origin.js';
import { peerWrites } from '../../analyze/peers.js';
import type { Analysis, AnalyzedGroup, SiteFrame, WaitGraph } from '../../analyze/types.js';
import { candidate, siteCount, type Detector } from '../candidate.js';
import { num, sameSite, shortFunc, siteText, stackFuncs, startedByGo, userEntry } from '../frames.js';

/** Calls between a loop's entry and the site it is parked at (`loop` → `deliver` is one). */
const MAX_LOOP_DEPTH = 2;

/** Parked elsewhere than at a receive: what a consumer that stopped taking is doing. */
const STUCK_KINDS = new Set(['io', 'syscall', 'mutex', 'rwmutex', 'cond', 'semaphore', 'waitgroup']);

function sitePackage(g: AnalyzedGroup): string | undefined {
  const s = g.blockingSite;
  if (!s || s.origin !== 'user') return undefined;
  return s.pkg || packageOfFunc(s.func);
}

/** Parked in the goroutine's own loop: the site within MAX_LOOP_DEPTH calls of an entry started by `go`. */
function inOwnLoop(g: AnalyzedGroup): boolean {
  const site = g.blockingSite;
  const entry = userEntry(g);
  if (!site || !entry || site.origin !== 'user' || entry.index - site.index > MAX_LOOP_DEPTH) return false;
  for (let i = site.index; i <= entry.index; i++) if (g.frames[i].origin !== 'user') return false;
  // A test function is run by the test runner, not a loop of the program's.
  return startedByGo(g, entry) && !g.frames.some((f) => f.func === 'testing.tRunner');
}

/** Kinds of dump taken of a live process (a profile, a signal dump): the moment is not a failure. */
const LIVE = new Set([undefined, 'profile', 'signal']);

/**
 * Loops of package `pkg` parked at `kinds` that run in at most `max` goroutines in all (counted by their
 * entry function, wherever parked): the relays, or busy receivers, of that package. A per-connection
 * loop (one writer per client) is many goroutines, most of them idle elsewhere.
 */
function loopsOf(a: Analysis, pkg: string | undefined, kinds: readonly string[], max: number): AnalyzedGroup[] {
  const found = a.groups.filter((g) => g.count <= max && kinds.includes(g.waitKind) && (pkg === undefined || sitePackage(g) === pkg) && inOwnLoop(g));
  if (!found.length) return found;
  const entries = new Set(found.map((g) => userEntry(g)!.func));
  const running = new Map<string, number>();
  for (const g of a.groups) {
    const e = userEntry(g)?.func;
    if (e !== undefined && entries.has(e)) running.set(e, (running.get(e) ?? 0) + g.count);
  }
  return found.filter((g) => running.get(userEntry(g)!.func)! <= max);
}

/** Channel addresses the goroutines of `g` wait on (debug=2 and crash dumps, when printed). */
function channelsOf(waits: WaitGraph | undefined, g: AnalyzedGroup): Set<number> {
  const out = new Set<number>();
  for (const w of waits?.waiters ?? []) if (w.group === g && w.object?.identity === 'seen') out.add(w.object.addr);
  return out;
}

interface Consumer {
  readonly func: string;
  /** Groups idle at the consumers' receive. */
  readonly idle: AnalyzedGroup[];
  /** Groups of the same function parked elsewhere: the consumers that stopped taking. */
  readonly stuck: AnalyzedGroup[];
}

/** The package's consumer loops that are parked somewhere else than at their receive in some goroutines. */
function stuckConsumer(a: Analysis, pkg: string, relay: AnalyzedGroup): Consumer | undefined {
  const idle = new Map<string, AnalyzedGroup[]>();
  for (const g of a.groups) {
    const s = g.blockingSite;
    if (g.waitKind !== 'chan-receive' || !s || sitePackage(g) !== pkg || s.func === relay.blockingSite!.func || !inOwnLoop(g)) continue;
    const l = idle.get(s.func);
    if (l) l.push(g);
    else idle.set(s.func, [g]);
  }
  let best: Consumer | undefined;
  for (const [func, loops] of idle) {
    const stuck = a.groups.filter((g) => STUCK_KINDS.has(g.waitKind) && g.frames.some((f) => f.func === func && f.origin === 'user'));
    if (stuck.length && (!best || count(stuck) > count(best.stuck))) best = { func, idle: loops, stuck };
  }
  return best;
}

function count(gs: readonly AnalyzedGroup[]): number {
  return gs.reduce((n, g) => n + g.count, 0);
}

function at(g: AnalyzedGroup): string {
  return `${num(g.count)} at ${siteText(g.blockingSite)}`;
}

/** `main.(*client).writePump is blocked writing to a peer that stopped reading (main.go:86)`, in words. */
function stuckText(a: Analysis, c: Consumer): { brief: string; detail: string } {
  const writers = new Set(peerWrites(a, stackFuncs(a)).groups.filter((w) => w.kind === 'socket-write').map((w) => w.group));
  const n = count(c.stuck);
  const top = c.stuck.reduce((x, y) => (y.count > x.count ? y : x));
  const writing = c.stuck.every((g) => writers.has(g));
  const doing = writing ? 'blocked writing to a peer that stopped reading' : `parked in ${top.waitKind}`;
  const sites = c.stuck.map((g) => `${g.waitKind === 'io' && writers.has(g) ? 'a socket write' : g.waitKind} at ${siteText(g.blockingSite)}`);
  return {
    brief: `: its consumer ${shortFunc(c.func)} is ${doing} (${siteText(top.blockingSite)})`,
    detail:
      ` The consumers' loop, ${shortFunc(c.func)}, waits for work in ${num(count(c.idle))} goroutines (${c.idle.map((g) => siteText(g.blockingSite)).join(', ')})` +
      ` but is ${doing} in ${num(n)} (${sites.join('; ')}): ${n === 1 ? 'that consumer has stopped taking messages, and its full queue' : 'those consumers have stopped taking messages, and the full queue of one of them'} is what the loop waits on.`,
  };
}

export const stalledRelayDetector: Detector = {
  description: 'a loop parked in a plain send to a consumer queue whose consumer is stuck elsewhere, with the senders waiting behind it',
  vars: ['senders', 'relayFunc', 'senderSites', 'consumer', 'consumerBrief'],
  find(ctx, rule) {
    const a = ctx.analysis;
    const maxRelays = ctx.param(rule, 'maxRelays', 2);
    const minSenders = ctx.param(rule, 'minSenders', 2);
    if (!a.byWaitKind['chan-send']) return [];
    const out = [];
    const relays = loopsOf(a, undefined, ['chan-send'], maxRelays);
    for (const relay of relays) {
      const pkg = sitePackage(relay)!;
      const own = channelsOf(a.waits, relay);
      const senders = a.groups.filter((g) => {
        if (g === relay || g.waitKind !== 'chan-send' || sitePackage(g) !== pkg || sameSite(g, relay) || relays.includes(g)) return false;
        // Debug=2: goroutines sending on the relay's own channel are beside it, not behind it.
        const theirs = channelsOf(a.waits, g);
        return !theirs.size || ![...theirs].some((ch) => own.has(ch));
      });
      const n = count(senders);
      if (n < minSenders || n <= relay.count) continue;
      const consumer = stuckConsumer(a, pkg, relay);
      if (!consumer) continue;
      senders.sort((x, y) => y.count - x.count);
      const site = relay.blockingSite as SiteFrame;
      const words = stuckText(a, consumer);
      const senderSites = senders.map((g) => `${at(g)} (${shortFunc(g.blockingSite!.func)})`).join(', ');
      out.push(
        candidate(rule, relay, {
          consequences: senders,
          related: consumer.stuck,
          confidence: 'medium',
          vars: {
            senders: num(n),
            relayFunc: shortFunc(site.func),
            senderSites,
            consumer: words.detail,
            consumerBrief: words.brief,
          },
          facts: [
            `the loop: ${shortFunc(site.func)}, ${num(relay.count)} goroutine${relay.count === 1 ? '' : 's'} parked in a plain chan send at ${siteText(site)}`,
            `waiting to send to it: ${senderSites}`,
            `its consumers: ${shortFunc(consumer.func)} waits for work in ${num(count(consumer.idle))} and is parked elsewhere in ${num(count(consumer.stuck))}`,
            'the roles are read from stack shapes in one package (no dump prints who receives a channel); the source would confirm which channel the loop receives',
          ],
        }),
      );
    }
    return out;
  },
};

export const busyReceiverDetector: Detector = {
  description: 'a few senders beside a running loop of their own package (a relay delivering): info, never "nobody receives"',
  refine(ctx, rule, c) {
    const g = c.root;
    if (!g || g.waitKind !== 'chan-send' || g.leaked || c.severity === 'info') return c;
    // A sender that has waited a minute or more is not waiting for a loop that is delivering.
    if (g.wait?.stamped || siteCount(c) >= ctx.param(rule, 'maxBusyWaiters', 10)) return c;
    // In a crash, a test timeout or a deadlock report nothing is delivering any more.
    if (!LIVE.has(ctx.analysis.snapshot.context?.kind)) return c;
    const pkg = sitePackage(g);
    if (pkg === undefined) return c;
    const busy = loopsOf(ctx.analysis, pkg, ['running', 'runnable'], ctx.param(rule, 'maxRelays', 2)).filter((b) => !sameSite(b, g));
    if (!busy.length) return c;
    const b = busy[0];
    return {
      ...c,
      severity: 'info',
      variant: c.variant ?? 'info',
      facts: [
        ...c.facts,
        `${shortFunc(b.blockingSite!.func)}, a loop of the same code (${num(b.count)} goroutine${b.count === 1 ? '' : 's'}), is ${b.waitKind} at ${siteText(b.blockingSite)}: a receiver busy delivering, so nobody-receives is not claimed from one snapshot`,
      ],
    };
  },
};
