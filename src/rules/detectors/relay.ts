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
 *   goroutines (the consumers' loop) and is parked elsewhere in others (IO, a lock…), else, when every
 *   consumer is stuck, the package's own loops blocked writing to peers. Required: without it nothing
 *   shows that the relay waits on a consumer.
 *
 * A consumer waiting for a lock comes with the lock's likely holder (frame arguments, else a parked
 * method of the lock's owner type).
 *
 * A relay parked in a select (a send case beside a done case) is found by wait times instead
 * (`selectRelays`): from stack shapes alone it is a loop waiting for work.
 *
 * `stalledRelayDetector` reports that set (found once per analysis); `behindRelayDetector` and
 * `inStalledRelay` keep core/blocked-send and the wait-for rules from saying of the loop and its
 * senders that nobody receives; `busyReceiverDetector` keeps a few senders waiting beside a loop of
 * theirs that is running (a relay delivering) at info: the normal wait of a busy receiver.
 */
import { packageOfFunc } from '../../analyze/origin.js';
import type { Analysis, AnalyzedGroup, SiteFrame, WaitGraph } from '../../analyze/types.js';
import { candidate, siteCount, type Detector } from '../candidate.js';
import { num, receiverType, sameSite, shortFunc, siteText, startedByGo, userEntry, writesToPeers } from '../frames.js';
import { holdsFor, otherReferences, refIndex } from '../waits/graph.js';

/**
 * Default `maxRelays` (goroutines of a relay loop at most) and `minSenders` (goroutines behind it at
 * least): the rules' params when not set, and what the wait-for rules and the series' counter use.
 */
const MAX_RELAYS = 2;
const MIN_SENDERS = 2;

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
  const entry = loopEntry(g);
  return entry !== undefined && startedByGo(g, entry);
}

/**
 * Parked in a loop of the goroutine's entry: the site within MAX_LOOP_DEPTH calls of its outermost
 * user frame, whoever called that (`go`, or a library calling back, as net/http calls a handler).
 */
function loopEntry(g: AnalyzedGroup): SiteFrame | undefined {
  const site = g.blockingSite;
  const entry = userEntry(g);
  if (!site || !entry || site.origin !== 'user' || entry.index - site.index > MAX_LOOP_DEPTH) return undefined;
  for (let i = site.index; i <= entry.index; i++) if (g.frames[i].origin !== 'user') return undefined;
  // A test function is run by the test runner, not a loop of the program's.
  return g.frames.some((f) => f.func === 'testing.tRunner') ? undefined : entry;
}

/** Parked a minute or more (debug=2 and signal dumps print it). */
function parkedLong(g: AnalyzedGroup): boolean {
  return (g.wait?.max ?? 0) >= 1;
}

/** Kinds of dump taken of a live process (a profile, a signal dump): the moment is not a failure. */
const LIVE = new Set([undefined, 'profile', 'signal']);

/** More loops than this parked in one package are one-off goroutines, not a hub's loop and its peers. */
const MAX_LOOPS_PER_PACKAGE = 4;

/**
 * What a loop is doing: parked in a plain send (a relay), in a select (a relay whose send has a done
 * case beside it, or a loop waiting for work), or running (a receiver busy delivering).
 */
type LoopState = 'sending' | 'selecting' | 'busy';

const STATE_KINDS: Record<LoopState, readonly string[]> = { sending: ['chan-send'], selecting: ['select'], busy: ['running', 'runnable'] };

/**
 * The loops in `state` of at most `max` goroutines in all (counted by their entry function, wherever
 * parked), by package: the relays, or busy receivers, of each package. A per-connection loop (one
 * writer per client) is many goroutines, most of them idle elsewhere; a package with more than
 * MAX_LOOPS_PER_PACKAGE such loops holds one-off goroutines, not a hub's loop. One pass over the
 * groups per analysis and state: rules ask per candidate, and a dump may hold 20,000 groups.
 */
function fewLoops(a: Analysis, state: LoopState, max: number): ReadonlyMap<string, AnalyzedGroup[]> {
  let memo = loopMemo.get(a);
  if (!memo) loopMemo.set(a, (memo = new Map()));
  const key = `${state}/${max}`;
  const known = memo.get(key);
  if (known) return known;
  const kinds = STATE_KINDS[state];
  const found = a.groups.filter((g) => g.count <= max && kinds.includes(g.waitKind) && inOwnLoop(g));
  const entries = new Set(found.map((g) => userEntry(g)!.func));
  const running = new Map<string, number>();
  if (entries.size) {
    for (const g of a.groups) {
      const e = userEntry(g)?.func;
      if (e !== undefined && entries.has(e)) running.set(e, (running.get(e) ?? 0) + g.count);
    }
  }
  const out = new Map<string, AnalyzedGroup[]>();
  for (const g of found) {
    if (running.get(userEntry(g)!.func)! > max) continue;
    const pkg = sitePackage(g)!;
    const l = out.get(pkg);
    if (l) l.push(g);
    else out.set(pkg, [g]);
  }
  for (const [pkg, loops] of out) if (loops.length > MAX_LOOPS_PER_PACKAGE) out.delete(pkg);
  memo.set(key, out);
  return out;
}

const loopMemo = new WeakMap<Analysis, Map<string, Map<string, AnalyzedGroup[]>>>();

/** Channel addresses each group's goroutines wait on (debug=2 and crash dumps, when printed). */
function channelsByGroup(waits: WaitGraph | undefined): Map<AnalyzedGroup, Set<number>> {
  const out = new Map<AnalyzedGroup, Set<number>>();
  for (const w of waits?.waiters ?? []) {
    if ((w.on !== 'chan-send' && w.on !== 'chan-receive') || w.object?.identity !== 'seen') continue;
    const s = out.get(w.group);
    if (s) s.add(w.object.addr);
    else out.set(w.group, new Set([w.object.addr]));
  }
  return out;
}

interface Consumer {
  readonly func: string;
  /** Groups idle at the consumers' receive. */
  readonly idle: AnalyzedGroup[];
  /** Groups of the same function parked elsewhere: the consumers that stopped taking. */
  readonly stuck: AnalyzedGroup[];
}

const LOCK_KINDS = new Set(['mutex', 'rwmutex']);
const MAX_HOLDERS_BY_TYPE = 2;

/**
 * Of stuck consumers waiting for a lock: its likely holders, parked themselves. From frame arguments
 * (debug=2 and crash dumps): the groups whose frames at or above their own wait reference the lock's
 * object. Else by type: the one or two parked groups running a method of the lock's owner type (more
 * would be a guess among many).
 */
function lockHolders(a: Analysis, stuck: readonly AnalyzedGroup[]): { holders: AnalyzedGroup[]; byType: boolean } {
  const locks = stuck.filter((g) => LOCK_KINDS.has(g.waitKind));
  if (!locks.length) return { holders: [], byType: false };
  const parked = (g: AnalyzedGroup) => !stuck.includes(g) && g.waitKind !== 'running' && g.waitKind !== 'runnable' && !LOCK_KINDS.has(g.waitKind);
  const out: AnalyzedGroup[] = [];
  const waits = a.waits;
  if (waits) {
    const idx = refIndex(waits.waiters);
    for (const w of waits.waiters) {
      if (!locks.includes(w.group) || !w.object || w.object.identity === 'type') continue;
      for (const h of otherReferences(w.object, w, idx)) if (!out.includes(h.group) && parked(h.group) && holdsFor(h, w.object)) out.push(h.group);
    }
  }
  if (out.length) return { holders: out, byType: false };
  // Register arguments print as `0x0?` (Go 1.17+): no address ties the holder. A method of the
  // lock's owner type parked elsewhere is the likely one.
  const types = new Set(locks.map((g) => g.blockingSite && receiverType(g.blockingSite.func)).filter((t): t is string => !!t));
  if (!types.size) return { holders: [], byType: false };
  const holders = a.groups.filter((g) => parked(g) && g.frames.some((f) => f.origin === 'user' && types.has(receiverType(f.func) ?? '')));
  return holders.length <= MAX_HOLDERS_BY_TYPE ? { holders, byType: true } : { holders: [], byType: false };
}

/**
 * What makes a consumer: the waits its idle goroutines park in, where it loops, and which of its
 * goroutines parked elsewhere count as stuck. A plain relay's consumers loop in goroutines of their
 * own, idle at a receive; a select relay, found by wait times, asks a minute's wait of its stuck
 * consumers, and takes handlers (loops net/http calls) idle in a select too.
 */
interface ConsumerShape {
  readonly idleKinds: ReadonlySet<string>;
  readonly inLoop: (g: AnalyzedGroup) => boolean;
  readonly stuck: (g: AnalyzedGroup) => boolean;
}

const PLAIN_CONSUMER: ConsumerShape = { idleKinds: new Set(['chan-receive']), inLoop: inOwnLoop, stuck: () => true };
const SELECT_CONSUMER: ConsumerShape = { idleKinds: new Set(['chan-receive', 'select']), inLoop: (g) => loopEntry(g) !== undefined, stuck: parkedLong };

/**
 * Each package's consumer loop (a function idle at a receive in its own loop in some goroutines) that
 * is parked elsewhere in others, the one with the most such goroutines; else, where none is, the
 * package's own loops blocked writing to peers. One pass over the groups. `relayFuncs` are not
 * consumers.
 */
function stuckConsumers(a: Analysis, relayFuncs: ReadonlySet<string>, shape = PLAIN_CONSUMER): Map<string, Consumer> {
  const idle = new Map<string, AnalyzedGroup[]>();
  for (const g of a.groups) {
    const s = g.blockingSite;
    if (!shape.idleKinds.has(g.waitKind) || !s || relayFuncs.has(s.func) || !shape.inLoop(g)) continue;
    const l = idle.get(s.func);
    if (l) l.push(g);
    else idle.set(s.func, [g]);
  }
  const stuck = new Map<string, AnalyzedGroup[]>();
  for (const g of idle.size ? a.groups : []) {
    if (!STUCK_KINDS.has(g.waitKind) || !shape.stuck(g)) continue;
    const f = g.frames.find((x) => x.origin === 'user' && idle.has(x.func));
    if (!f) continue;
    const l = stuck.get(f.func);
    if (l) l.push(g);
    else stuck.set(f.func, [g]);
  }
  const out = new Map<string, Consumer>();
  for (const [func, gs] of stuck) {
    const loops = idle.get(func)!;
    const pkg = sitePackage(loops[0])!;
    const best = out.get(pkg);
    if (!best || count(gs) > count(best.stuck)) out.set(pkg, { func, idle: loops, stuck: gs });
  }
  // Every consumer stuck, none idle (each client stopped reading): the package's own loops blocked
  // writing to peers are the consumers.
  const writers = new Map<string, AnalyzedGroup[]>();
  for (const w of writesToPeers(a).groups) {
    const g = w.group;
    const pkg = shape.inLoop(g) && shape.stuck(g) && !relayFuncs.has(g.blockingSite!.func) ? sitePackage(g) : undefined;
    if (pkg === undefined || out.has(pkg)) continue;
    const key = `${pkg}\u0000${g.blockingSite!.func}`;
    const l = writers.get(key);
    if (l) l.push(g);
    else writers.set(key, [g]);
  }
  for (const gs of writers.values()) {
    const pkg = sitePackage(gs[0])!;
    const best = out.get(pkg);
    if (!best || (!best.idle.length && count(gs) > count(best.stuck))) out.set(pkg, { func: gs[0].blockingSite!.func, idle: [], stuck: gs });
  }
  return out;
}

function count(gs: readonly AnalyzedGroup[]): number {
  return gs.reduce((n, g) => n + g.count, 0);
}

function at(g: AnalyzedGroup): string {
  return `${num(g.count)} at ${siteText(g.blockingSite)}`;
}

/** What a stuck consumer is doing, in words. */
const DOING: Readonly<Record<string, string>> = {
  io: 'waiting for IO', syscall: 'in a system call', mutex: 'waiting for a lock', rwmutex: 'waiting for a lock',
  cond: 'waiting on a Cond', semaphore: 'waiting on a semaphore', waitgroup: 'waiting on a WaitGroup',
};

/**
 * The consumer in words: the title's `: its consumer main.(*client).writePump is blocked writing to a
 * peer that stopped reading (main.go:86)` and the explanation's sentences.
 */
function stuckText(a: Analysis, c: Consumer, holders: readonly AnalyzedGroup[], byType: boolean): { brief: string; detail: string } {
  const writers = new Set(writesToPeers(a).groups.filter((w) => w.kind === 'socket-write').map((w) => w.group));
  const n = count(c.stuck);
  const top = c.stuck.reduce((x, y) => (y.count > x.count ? y : x));
  const writing = c.stuck.every((g) => writers.has(g));
  const doing = writing ? 'blocked writing to a peer that stopped reading' : DOING[top.waitKind] ?? `parked in ${top.waitKind}`;
  const sites = c.stuck.map((g) => `${g.waitKind === 'io' && writers.has(g) ? 'a socket write' : g.waitKind} at ${siteText(g.blockingSite)}`);
  const held = holders.length
    ? ` The lock it waits for is likely held by ${holders.map((h) => `${shortFunc(h.blockingSite?.func ?? h.frames[0].func)}, parked in ${h.waitKind} at ${siteText(h.blockingSite)}`).join('; ')} (${byType ? 'a method of the lock\'s owner type' : 'its frames reference the lock\'s object'}), blocked while it holds it.`
    : '';
  return {
    brief: `: its consumer ${shortFunc(c.func)} is ${doing} (${siteText(top.blockingSite)})`,
    detail:
      (c.idle.length
        ? ` The consumers' loop, ${shortFunc(c.func)}, waits for work in ${num(count(c.idle))} goroutines (${c.idle.map((g) => siteText(g.blockingSite)).join(', ')})` +
          ` but is ${doing} in ${num(n)} (${sites.join('; ')})`
        : ` The consumers' loop, ${shortFunc(c.func)}, is ${doing} in all its ${num(n)} goroutine${n === 1 ? '' : 's'} (${sites.join('; ')})`) +
      `: ${n === 1 ? 'that consumer has stopped taking messages, and its full queue' : 'those consumers have stopped taking messages, and the full queue of one of them'} is what the loop waits on.${held}`,
  };
}

/** A relay found stalled: the loop, the senders waiting behind it, the consumer that stopped taking. */
interface StalledRelay {
  readonly relay: AnalyzedGroup;
  readonly senders: AnalyzedGroup[];
  readonly consumer: Consumer;
  /** Parked in a select (found by wait times), not a plain send. */
  readonly selecting?: boolean;
}

/**
 * The stalled relays of an analysis, once per analysis and thresholds: the rule reports them and
 * core/blocked-send asks whether its senders wait behind one.
 */
function stalledRelays(a: Analysis, maxRelays: number, minSenders: number): StalledRelay[] {
  let memo = relayMemo.get(a);
  if (!memo) relayMemo.set(a, (memo = new Map()));
  const key = `${maxRelays}/${minSenders}`;
  const known = memo.get(key);
  if (known) return known;
  const out: StalledRelay[] = [];
  memo.set(key, out);
  if (a.byWaitKind.select) out.push(...selectRelays(a, maxRelays, minSenders));
  if (!a.byWaitKind['chan-send']) return out;
  const relaysByPkg = fewLoops(a, 'sending', maxRelays);
  if (!relaysByPkg.size) return out;
  // The packages' senders, in one pass.
  const sendersByPkg = new Map<string, AnalyzedGroup[]>();
  for (const g of a.groups) {
    const pkg = g.waitKind === 'chan-send' ? sitePackage(g) : undefined;
    if (pkg === undefined || !relaysByPkg.has(pkg)) continue;
    const l = sendersByPkg.get(pkg);
    if (l) l.push(g);
    else sendersByPkg.set(pkg, [g]);
  }
  const channels = channelsByGroup(a.waits);
  let consumers: Map<string, Consumer> | undefined;
  for (const [pkg, relays] of relaysByPkg) {
    for (const relay of relays) {
      const own = channels.get(relay);
      // Another small loop of the package parked sending counts as a sender: in an excerpt (a few
      // goroutines pasted in a report) the senders may be as few as the loop's own goroutines.
      const senders = sendersByPkg.get(pkg)!.filter((g) => {
        if (g === relay || sameSite(g, relay)) return false;
        // Debug=2: goroutines sending on the relay's own channel are beside it, not behind it.
        const theirs = own && channels.get(g);
        return !theirs || ![...theirs].some((ch) => own.has(ch));
      });
      const n = count(senders);
      if (n < minSenders || n <= relay.count) continue;
      consumers ??= stuckConsumers(a, new Set([...relaysByPkg.values()].flat().map((r) => r.blockingSite!.func)));
      const consumer = consumers.get(pkg);
      if (!consumer) break;
      out.push({ relay, senders: senders.sort((x, y) => y.count - x.count), consumer });
    }
  }
  return out;
}

const relayMemo = new WeakMap<Analysis, Map<string, StalledRelay[]>>();

/**
 * Relays parked in a select: `select { case q <- m: case <-done: }`, the idiom for a delivery that
 * gives up when the consumer leaves. A consumer stuck writing to a peer that stopped reading without
 * hanging up never leaves, and the select waits as a plain send would. But a loop waiting for work
 * parks in a select too, and its senders may be selects: from stack shapes alone a stalled relay is
 * a busy idle loop. Wait times tell them apart: the loop, its senders and the stuck consumer have all
 * waited a minute or more (an idle loop has no sender waiting on it for a minute; one delivering
 * under load moves within it). Without wait times (debug=0/1, waits under a minute) nothing is said.
 */
function selectRelays(a: Analysis, maxRelays: number, minSenders: number): StalledRelay[] {
  const out: StalledRelay[] = [];
  if (!a.groups.some(parkedLong)) return out;
  const loopsByPkg = fewLoops(a, 'selecting', maxRelays);
  let consumers: Map<string, Consumer> | undefined;
  for (const [pkg, loops] of loopsByPkg) {
    const relays = loops.filter(parkedLong);
    if (!relays.length) continue;
    consumers ??= stuckConsumers(a, new Set([...loopsByPkg.values()].flat().map((r) => r.blockingSite!.func)), SELECT_CONSUMER);
    const consumer = consumers.get(pkg);
    if (!consumer) continue;
    const theirs = new Set([...consumer.idle, ...consumer.stuck]);
    for (const relay of relays) {
      const senders = a.groups.filter(
        (g) =>
          (g.waitKind === 'chan-send' || g.waitKind === 'select') &&
          parkedLong(g) &&
          !theirs.has(g) &&
          !relays.includes(g) &&
          !sameSite(g, relay) &&
          sitePackage(g) === pkg &&
          !g.frames.some((f) => f.origin === 'user' && f.func === consumer.func),
      );
      const n = count(senders);
      if (n < minSenders || n <= relay.count) continue;
      out.push({ relay, senders: senders.sort((x, y) => y.count - x.count), consumer, selecting: true });
    }
  }
  return out;
}

export const stalledRelayDetector: Detector = {
  description: 'a loop parked in a plain send to a consumer queue whose consumer is stuck elsewhere, with the senders waiting behind it; `variant: select` for one parked in a select, when it, its senders and the consumer all waited a minute or more',
  vars: ['senders', 'relayFunc', 'senderSites', 'consumer', 'consumerBrief'],
  find(ctx, rule) {
    const a = ctx.analysis;
    return stalledRelays(a, ctx.param(rule, 'maxRelays', MAX_RELAYS), ctx.param(rule, 'minSenders', MIN_SENDERS)).map(({ relay, senders, consumer, selecting }) => {
      const site = relay.blockingSite as SiteFrame;
      const { holders, byType } = lockHolders(a, consumer.stuck);
      const words = stuckText(a, consumer, holders, byType);
      const senderSites = senders.map((g) => `${at(g)} (${shortFunc(g.blockingSite!.func)})`).join(', ');
      return candidate(rule, relay, {
        consequences: senders,
        related: [...consumer.stuck, ...holders],
        confidence: 'medium',
        ...(selecting ? { variant: 'select' } : {}),
        vars: {
          senders: num(count(senders)),
          relayFunc: shortFunc(site.func),
          senderSites,
          consumer: words.detail,
          consumerBrief: words.brief,
        },
        facts: [
          `the loop: ${shortFunc(site.func)}, ${num(relay.count)} goroutine${relay.count === 1 ? '' : 's'} parked in ${selecting ? 'a select' : 'a plain chan send'} at ${siteText(site)}`,
          `waiting to send to it: ${senderSites}`,
          `its consumers: ${shortFunc(consumer.func)} waits for work in ${num(count(consumer.idle))} and is parked elsewhere in ${num(count(consumer.stuck))}${consumer.idle.length ? '' : ' (blocked writing to peers)'}`,
          ...holders.map((h) => `likely holder of the lock the consumer waits for: ${shortFunc(h.blockingSite?.func ?? h.frames[0].func)} (${h.waitKind} at ${siteText(h.blockingSite)}), ${byType ? 'by receiver type' : 'from frame arguments'}`),
          selecting
            ? 'the roles are read from stack shapes in one package and wait times (the loop, its senders and the stuck consumer all parked a minute or more: no dump prints the cases of a select); the source would confirm that the loop\'s select sends to the consumer\'s queue'
            : 'the roles are read from stack shapes in one package (no dump prints who receives a channel); the source would confirm which channel the loop receives',
        ],
      });
    });
  },
};

/** Goroutines waiting behind stalled relays (default thresholds): what grows when consumers keep stalling. */
export function relaySenders(a: Analysis): number {
  return stalledRelays(a, MAX_RELAYS, MIN_SENDERS).reduce((n, r) => n + count(r.senders), 0);
}

/** The stuck consumers of stalled relays (default thresholds): their writes are the relay finding's to name. */
export function relayConsumers(a: Analysis): ReadonlySet<AnalyzedGroup> {
  return new Set(stalledRelays(a, MAX_RELAYS, MIN_SENDERS).flatMap((r) => r.consumer.stuck));
}

/**
 * `g` is a stalled relay's loop or one of the senders behind it (default thresholds): the wait-for
 * rules do not say of its channel that nobody alive serves it (the relay lives; it waits for its
 * consumer), core/stalled-relay explains it.
 */
export function inStalledRelay(a: Analysis, g: AnalyzedGroup): boolean {
  return stalledRelays(a, MAX_RELAYS, MIN_SENDERS).some((r) => r.relay === g || r.senders.includes(g));
}

/**
 * On a send: senders waiting behind a stalled relay (the relay's thresholds are this rule's params,
 * `maxRelays` and `minSenders`) are no send nobody receives: info, naming the relay
 * (core/stalled-relay reports them as its consequences).
 */
export const behindRelayDetector: Detector = {
  description: 'senders waiting behind a stalled relay (a loop parked on a consumer\'s full queue): info, never "nobody receives"',
  refine(ctx, rule, c) {
    const g = c.root;
    if (!g || g.waitKind !== 'chan-send' || g.leaked || c.severity === 'info') return c;
    const r = stalledRelays(ctx.analysis, ctx.param(rule, 'maxRelays', MAX_RELAYS), ctx.param(rule, 'minSenders', MIN_SENDERS)).find((x) => x.senders.includes(g));
    if (!r) return c;
    return {
      ...c,
      severity: 'info',
      variant: c.variant ?? 'info',
      facts: [...c.facts, `they wait for ${shortFunc(r.relay.blockingSite!.func)}, itself parked sending at ${siteText(r.relay.blockingSite)} to a consumer that stopped taking (core/stalled-relay)`],
    };
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
    const busy = (fewLoops(ctx.analysis, 'busy', ctx.param(rule, 'maxRelays', MAX_RELAYS)).get(pkg) ?? []).filter((b) => !sameSite(b, g));
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
