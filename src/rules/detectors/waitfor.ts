/**
 * Detectors over the wait-for patterns of a small dump (rules/waits.ts): a self-deadlock (double
 * locking, a recursive RLock behind a writer), a lock-order cycle, a lock held while blocked, and the
 * Cond, WaitGroup, channel and lock waits that nothing will end in a test timeout, a leak report, a
 * runtime deadlock or a long-hung process. Each candidate names both sides and says how it knows.
 */
import type { AnalyzedGroup, Waiter } from '../../analyze/types.js';
import { hex } from '../../analyze/args.js';
import { candidate, type Candidate, type Detector, type ResolvedRule, type RuleContext } from '../candidate.js';
import { consequencesOf } from '../cascade.js';
import { isCoalescedWaiter, isSlotWaiter, readsHttp2Stream, shortFunc, siteText } from '../frames.js';
import {
  goroutineName, groupsOf, identityText, isHarness, objectText, ownText, waitPatterns, where, whoList, writesToPeer,
  type Confidence, type HeldLock, type LockCycle, type StuckWait, type WaitPatterns,
} from '../waits/index.js';
import { contextPhrase, provenStuck } from '../context.js';
import { criticalSectionNote, unseenText } from '../waits/unseen.js';
import type { Severity } from '../types.js';
import { waitsForPool } from './pool-wait.js';
import { awaitsGrpcResponse } from './grpc-wait.js';
import { awaitsResponse } from './http-wait.js';
import { inStalledRelay } from './relay.js';

const CONFIDENCE: Record<Confidence, 'high' | 'medium' | 'low'> = { high: 'high', medium: 'medium', low: 'low' };

function minutes(w: Waiter): string {
  const m = w.detail.waitMinutes;
  return m ? `, waiting ${m} minute${m === 1 ? '' : 's'}` : '';
}

function siteLocation(w: Waiter): Candidate['location'] {
  const f = w.frames[w.site]?.frame;
  return f ? frameLocation(f) : undefined;
}

function frameLocation(f: { readonly file: string; readonly line: number; readonly func: string }): Candidate['location'] {
  return { file: f.file, line: f.line, func: f.func };
}

/** Some of them waited a minute or more. */
function stuckFor(ws: readonly Waiter[]): boolean {
  return ws.some((w) => (w.detail.waitMinutes ?? 0) >= 1);
}

function capitalized(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Consequences of a pattern: queued waiters and the parents and test goroutines waiting behind it. */
function behind(p: WaitPatterns, roots: readonly Waiter[], extra: readonly Waiter[] = []): AnalyzedGroup[] {
  const rootGroups = new Set(roots.map((w) => w.group));
  const ws = [...extra, ...roots.flatMap((r) => p.consequences.get(r) ?? [])];
  return groupsOf(ws).filter((g) => !rootGroups.has(g));
}

/** Every goroutine of the wait-for graph: in an excerpt, all that was pasted. */
function shown(p: WaitPatterns): Waiter[] {
  return [...new Set([...p.stuck.map((s) => s.waiter), ...p.selfLocks.map((s) => s.waiter), ...p.cycles.flatMap((c) => c.members.map((m) => m.waiter))])];
}

function contextFact(p: WaitPatterns): string[] {
  return p.context === 'profile' ? [] : [`context: ${contextPhrase(p.context)}`];
}

function severityOf(c: Confidence, p: WaitPatterns, ws: readonly Waiter[]): Severity {
  if (c !== 'low') return 'error';
  return provenStuck(p.context) || stuckFor(ws) ? 'error' : 'warning';
}

function patternsOf(ctx: RuleContext): WaitPatterns | undefined {
  return waitPatterns(ctx.analysis);
}

export const selfLockDetector: Detector = {
  description: 'double locking: a goroutine waits for a lock its own caller holds (or a recursive RLock behind a queued writer)',
  vars: ['story', 'headline'],
  find(ctx, rule) {
    const p = patternsOf(ctx);
    if (!p) return [];
    return p.selfLocks.map((s) => {
      const w = s.waiter;
      const o = w.object!;
      const recursive = w.on === 'rlock' && s.writers.length > 0;
      const holderSite = `${shortFunc(s.holder.frame.func)} (${siteText(s.holder.frame)})`;
      const headline = recursive
        ? `Recursive RLock behind a waiting writer: ${ownText(w)} read-locks again under ${holderSite}`
        : `Self-deadlock (double locking): ${ownText(w)} waits for a lock its caller ${holderSite} holds`;
      const lockWord = w.on === 'rlock' ? 'RLock' : 'Lock';
      const story = recursive
        ? `Goroutine ${w.detail.id} holds a read lock of ${objectText(o)} taken in ${holderSite} and asks for it again in ${ownText(w)}; ` +
          `a writer (${whoList(s.writers, false).join('; ')}) is queued between the two, and a queued writer blocks new readers: neither can proceed.`
        : `Goroutine ${w.detail.id} waits in ${lockWord} at ${ownText(w)}${minutes(w)} for ${objectText(o)}, the object its caller ${holderSite} works on. ` +
          `The caller took that lock and has not released it, so the goroutine waits for itself; Go's sync locks are not reentrant.`;
      return candidate(rule, w.group, {
        precise: true,
        consequences: behind(p, [w], s.writers),
        variant: recursive ? 'recursive-rlock' : undefined,
        severity: severityOf(s.confidence, p, [w]),
        confidence: CONFIDENCE[s.confidence],
        location: siteLocation(w),
        vars: { story, headline },
        facts: [
          `waits: ${where(w)} [${w.readGroup.state || w.on}]${minutes(w)} for ${objectText(o)} (${identityText(o)})`,
          `holds: ${s.how}`,
          ...whoList(s.writers).map((x) => `writer queued: ${x}`),
          ...contextFact(p),
          `confidence: ${s.confidence}${s.confidence === 'high' ? '' : ' (who holds a lock is never printed; with --source, check that the caller locks before the call)'}`,
        ],
      });
    });
  },
};

function cycleText(c: LockCycle): string {
  return c.members
    .map((m) => {
      const held = m.byType
        ? `a lock of ${shortFunc(m.held.ownerType ?? '')} (inside ${shortFunc(m.holds.frame.func)}, a method of that type: inferred from types)`
        : `${hex(m.held.base)} (referenced in ${shortFunc(m.holds.frame.func)})`;
      return `goroutine ${m.waiter.detail.id} in ${ownText(m.waiter)} holds ${held} and waits for ${objectText(m.waiter.object!)}`;
    })
    .join('; ');
}

/** Lock cycles from addresses (the lock-order rule uses this when the dump printed arguments). */
export function lockCycleCandidates(ctx: RuleContext, rule: ResolvedRule): Candidate[] | undefined {
  const p = patternsOf(ctx);
  if (!p) return undefined;
  return p.cycles.map((c) => {
    const ws = c.members.map((m) => m.waiter);
    const [first, ...rest] = groupsOf(ws);
    const pile = behind(p, ws);
    // The pile-up is the lock waiters behind the cycle; parents waiting in Wait are consequences too, but not queued for these locks.
    const queued = groupsOf(ws.flatMap((w) => p.consequences.get(w) ?? []).filter((x) => x.on === 'lock' || x.on === 'rlock'));
    const sites = [...new Set(ws.map((w) => ownText(w)))];
    return candidate(rule, first, {
      precise: true,
      roots: rest,
      consequences: pile,
      confidence: CONFIDENCE[c.confidence],
      severity: 'error',
      vars: {
        cycle: sites.length === 1
          ? `${ws.length} goroutines in ${sites[0]} each hold a lock another one waits for (goroutines ${ws.map((w) => w.detail.id).sort((a, b) => a - b).join(', ')})`
          : `${sites.join(' and ')} each wait for a lock the other holds`,
        pileup: queued.length ? ` Behind them, ${queued.map((g) => `${g.count} goroutine${g.count === 1 ? '' : 's'} at ${siteText(g.blockingSite)}`).join('; ')} wait for the same locks.` : '',
      },
      facts: [
        `cycle: ${cycleText(c)}`,
        ...c.members.map((m) => `goroutine ${m.waiter.detail.id} waits for ${objectText(m.waiter.object!)} (${identityText(m.waiter.object!)})`),
        'held locks are inferred: each goroutine references the struct of the lock the other waits for, in a frame above its own wait',
        ...contextFact(p),
        `confidence: ${c.confidence}`,
      ],
    });
  });
}

export const heldLockDetector: Detector = {
  description: 'a lock held while blocked: a goroutine waits on a channel, Wait or Cond, or writes to a peer that does not read, inside the critical section of an object others queue to lock',
  vars: ['story', 'headline'],
  find(ctx, rule) {
    const p = patternsOf(ctx);
    if (!p) return [];
    const writes = p.held.filter((h) => writesToPeer(h.blocked));
    return [...heldWriteCandidates(ctx, rule, p, writes), ...p.held.filter((h) => !writes.includes(h)).map((h) => {
      const b = h.blocked;
      const q = h.queued;
      const state = b.readGroup.state || b.on;
      const headline = `Lock held while blocked: ${ownText(b)} waits [${state}] while ${q.length === 1 ? '1 goroutine queues' : `${q.length} goroutines queue`} for its lock at ${[...new Set(q.map((w) => ownText(w)))].join(', ')}`;
      const kids = h.waitsFor;
      const story =
        `Goroutine ${b.detail.id} is blocked [${state}] at ${ownText(b)}${minutes(b)} inside a critical section of ${objectText(h.object)}, ` +
        `and ${whoList(q, false).join('; ')} wait${q.length === 1 ? 's' : ''} to lock it. ` +
        (kids.length
          ? `It waits for ${kids.length === 1 ? 'a goroutine' : `${kids.length} goroutines`} it started, parked themselves (${whoList(kids).join('; ')}): ` +
            `when what they wait for needs the lock (a receiver queued above), the chain closes into a cycle and nothing can proceed.`
          : `If the goroutine that should wake it is among those queued (it needs the lock to send, receive, signal or finish), neither side can ever proceed.`);
      const queued = groupsOf(q).filter((g) => g !== b.group);
      // Behind the queue: whoever waits for the queued goroutines (WaitGroup parents of a pile-up).
      const parents = queued.flatMap((g) => consequencesOf(g, ctx.graph));
      const cons = [...new Set([...queued, ...parents, ...behind(p, [b])])].filter((g) => g !== b.group && !kids.some((k) => k.group === g));
      return candidate(rule, b.group, {
        related: groupsOf(kids).filter((g) => g !== b.group),
        precise: true,
        claimsRelated: true,
        // Every queued goroutine and every parent behind them waits on this one holder.
        goroutines: [b.group, ...cons, ...groupsOf(kids)].reduce((n, g) => n + g.count, 0),
        consequences: cons,
        severity: severityOf(h.confidence, p, [b, ...q]),
        confidence: CONFIDENCE[h.confidence],
        location: siteLocation(b),
        vars: { story, headline },
        facts: [
          `blocked: ${where(b)} [${state}]${minutes(b)}`,
          `holds (inferred): ${h.how}`,
          ...whoList(q).map((x) => `queued: ${x}`),
          ...whoList(kids).map((x) => `waits for: ${x}`),
          ...contextFact(p),
          `confidence: ${h.confidence}`,
        ],
      });
    })];
  },
};

/** Goroutines queued behind holders writing to peers, from which one live snapshot says more than "slow for a moment". */
const PEER_QUEUE_EVIDENCE = 10;

/**
 * Locks held across socket writes to peers that do not read, one candidate per holding stack (the
 * same write of several connections: each holder its own queue): the holders are the root, everything
 * queued for their locks the consequences. One live snapshot cannot tell a peer that stopped from one
 * slow for a moment: info, a warning from 10 queued, an error once they waited a minute or the
 * process is known stuck (a test timeout, a deadlock).
 */
function heldWriteCandidates(ctx: RuleContext, rule: ResolvedRule, p: WaitPatterns, writes: readonly HeldLock[]): Candidate[] {
  const byGroup = new Map<AnalyzedGroup, HeldLock[]>();
  for (const h of writes) {
    const l = byGroup.get(h.blocked.group);
    if (l) l.push(h);
    else byGroup.set(h.blocked.group, [h]);
  }
  return [...byGroup].map(([g, hs]) => {
    const holders = [...new Set(hs.map((h) => h.blocked))];
    const q = [...new Set(hs.flatMap((h) => h.queued))];
    const h = hs[0];
    const state = h.blocked.readGroup.state || h.blocked.on;
    const at = `${shortFunc(h.frame.frame.func)} (${siteText(h.frame.frame)})`;
    const queue = q.length === 1 ? '1 goroutine queues' : `${q.length} goroutines queue`;
    const queuedAt = [...new Set(q.map((w) => ownText(w)))].join(', ');
    const who = holders.length === 1 ? `Goroutine ${h.blocked.detail.id} holds a lock of ${objectText(h.object)}` : `${holders.length} goroutines (${holders.map((b) => b.detail.id).slice(0, 8).join(', ')}) each hold a lock of their own object (${hs.map((x) => objectText(x.object)).slice(0, 3).join(', ')}${hs.length > 3 ? ', …' : ''})`;
    const headline = `Lock held while writing to a peer that does not read: ${at} waits [${state}] while ${queue} for ${holders.length === 1 ? 'its lock' : 'their locks'} at ${queuedAt}`;
    const story =
      `${who} at ${at} while ${holders.length === 1 ? 'it writes' : 'they write'} to a connection whose peer does not read: the socket's send buffer is full and the write waits [${state}]${minutes(h.blocked)} for the peer. ` +
      `${capitalized(whoList(q, false).join('; '))} wait${q.length === 1 ? 's' : ''} to lock ${holders.length === 1 ? 'it' : 'them'}, so each waits for a peer: one client that stops reading stalls everything that needs its lock.`;
    const queued = groupsOf(q).filter((x) => x !== g);
    const parents = queued.flatMap((x) => consequencesOf(x, ctx.graph));
    const cons = [...new Set([...queued, ...parents, ...behind(p, holders)])].filter((x) => x !== g);
    const stuck = provenStuck(p.context) || stuckFor([...holders, ...q]);
    return candidate(rule, g, {
      precise: true,
      claimsRelated: true,
      goroutines: [g, ...cons].reduce((n, x) => n + x.count, 0),
      consequences: cons,
      severity: stuck ? 'error' : q.length >= PEER_QUEUE_EVIDENCE ? 'warning' : 'info',
      confidence: CONFIDENCE[h.confidence],
      location: frameLocation(h.frame.frame),
      variant: 'peer-write',
      vars: { story, headline },
      facts: [
        `blocked: ${holders.length === 1 ? '1 goroutine' : `${holders.length} goroutines`} at ${at} writing to a peer that does not read [${state}]${minutes(h.blocked)}`,
        ...hs.slice(0, 3).map((x) => `holds (inferred): ${x.how}`),
        ...whoList(q).map((x) => `queued: ${x}`),
        ...contextFact(p),
        `confidence: ${h.confidence}`,
      ],
    });
  });
}

const STUCK_TITLES: Record<StuckWait['kind'], string> = {
  cond: 'a condition variable nobody signals',
  waitgroup: 'a WaitGroup that is never done',
  channel: 'a channel operation nothing will complete',
  lock: 'a lock that is never released',
  leftover: 'work still running after its test ended',
};

/** One candidate per group and kind: goroutines of one stack stuck the same way are one finding. */
function stuckCandidates(ctx: RuleContext, rule: ResolvedRule, kinds: ReadonlySet<StuckWait['kind']>): Candidate[] {
  const p = patternsOf(ctx);
  if (!p) return [];
  const byGroup = new Map<AnalyzedGroup, StuckWait[]>();
  for (const s of p.stuck) {
    if (!kinds.has(s.kind)) continue;
    // A relay parked on its consumer's queue, and whoever waits for it, have a receiver alive; a wait
    // for a pool's connection is the pool's (core/*-exhausted say what holds it); errgroup's Go waits
    // for a slot its goroutines hold (core/waitgroup-stuck); a request
    // waits on the network, whose reader an excerpt may not show (core/http-awaiting-response); a
    // caller of singleflight's Do waits for another caller's call (core/coalesced-wait).
    const w = s.waiter.group;
    if (s.kind === 'channel' && (inStalledRelay(ctx.analysis, w) || waitsForPool(w) || awaitsResponse(w) || awaitsGrpcResponse(w) || isSlotWaiter(w))) continue;
    if (s.kind === 'waitgroup' && isCoalescedWaiter(w)) continue;
    // An HTTP/2 body read waits for the peer's DATA, signalled by the connection's reader
    // (core/request-body-stalled for a server's request body).
    if (s.kind === 'cond' && readsHttp2Stream(w)) continue;
    const l = byGroup.get(s.waiter.group);
    if (l) l.push(s);
    else byGroup.set(s.waiter.group, [s]);
  }
  const out: Candidate[] = [];
  for (const [g, ss] of byGroup) {
    const s = ss[0];
    const w = s.waiter;
    const ids = ss.map((x) => x.waiter.detail.id);
    const who = ids.length === 1 ? goroutineName(w) : `${ids.length} goroutines (${ids.slice(0, 8).join(', ')}${ids.length > 8 ? ', …' : ''})`;
    const state = w.readGroup.state || w.on;
    const counter = [...new Set(ss.flatMap((x) => x.stuckCounterparts))];
    const creators = [...new Set(ss.map((x) => x.creator).filter((c): c is Waiter => c !== undefined))];
    // In an excerpt a creator not shown is unknown, not gone.
    const parentGone = !p.partial && w.detail.createdBy !== undefined && creators.length === 0;
    const lines: string[] = [];
    if (p.partial && counter.length === 0 && (s.kind !== 'channel' || creators.length === 0) && s.kind !== 'leftover') {
      lines.push(unseenText(s, shown(p)));
    } else if (s.kind === 'waitgroup') {
      lines.push(counter.length
        ? `It waits for goroutines it started that are stuck themselves: ${whoList(counter).join('; ')}.`
        : 'No goroutine it started is alive any more: `Done` was missed on some path (an early return, a panic without `defer wg.Done()`), or `Add` counted more goroutines than were started.');
    } else if (s.kind === 'cond') {
      lines.push(counter.length
        ? `The goroutines that share its object are stuck elsewhere and cannot signal: ${whoList(counter).join('; ')}.`
        : 'No live goroutine works on the same object: the goroutine meant to `Signal`/`Broadcast` has returned without doing it, or signalled before this one started waiting (a lost wake-up: the condition is not re-checked in a loop under the lock).');
    } else if (s.kind === 'channel') {
      lines.push(parentGone
        ? `Its creator (goroutine ${w.detail.createdBy}) has returned: whoever was to ${w.on === 'chan-send' ? 'receive this value' : w.on === 'chan-receive' ? 'send or close' : 'complete one of its cases'} is gone.`
        : creators.length
          ? `Its creator, ${whoList(creators).join('; ')}, is itself blocked and will not ${w.on === 'chan-send' ? 'receive' : w.on === 'chan-receive' ? 'send or close' : 'act'}.`
          : `No goroutine in the dump is positioned to ${w.on === 'chan-send' ? 'receive from' : w.on === 'chan-receive' ? 'send on or close' : 'serve'} it.`);
    } else if (s.kind === 'leftover') {
      lines.push('It outlived the test that started it: whatever it waits on (a connection, a timer, a process) was not closed or cancelled when the test ended.');
    } else if (s.leaked) {
      lines.push(`The lock was leaked: ${s.leaked}. It was locked and never unlocked: some return path left the critical section without Unlock (an early return, an error path, a callback such as a timer's, a panic recovered above it). Look for a Lock without \`defer Unlock()\` on every path${w.object?.ownerType ? ` in the methods of ${shortFunc(w.object.ownerType)}` : ''}.`);
    } else {
      lines.push('No goroutine in the dump is tied to this lock by its frame arguments: its holder is either one whose frames do not print the object (a closure, an inlined call; look for goroutines inside methods of the same type), or gone: a return path without `Unlock` (no `defer`), a holder that exited or panicked inside the critical section.');
    }
    const headline = s.leaked && !p.partial
      ? `Lock leaked on a return path: ${who} at ${ownText(w)} [${state}] wait${ids.length === 1 ? 's' : ''} for a lock no goroutine holds`
      : `${ids.length === 1 ? 'Goroutine' : `${ids.length} goroutines`} stuck on ${STUCK_TITLES[s.kind]}: ${ownText(w)} [${state}]`;
    const story = `${who.charAt(0).toUpperCase()}${who.slice(1)} ${ids.length === 1 ? 'is' : 'are'} blocked [${state}] at ${ownText(w)}${minutes(w)}: ${s.why}. ${lines.join(' ')}`;
    const confidence = ss.reduce<Confidence>((c, x) => (x.confidence === 'high' ? 'high' : c === 'high' ? c : x.confidence === 'medium' ? 'medium' : c), 'low');
    out.push(candidate(rule, g, {
      precise: true,
      related: groupsOf(counter).filter((x) => x !== g),
      consequences: behind(p, ss.map((x) => x.waiter)),
      // Proven by the runtime, or a lock/Cond/WaitGroup wait of minutes: stuck for sure. A suspect of a
      // test timeout, a leak report or a quiet signal dump: a warning (the harness or timing may share the blame).
      severity: provenStuck(p.context) || (s.leaked && !p.partial) || (s.kind !== 'channel' && (w.detail.waitMinutes ?? 0) >= 1) ? 'error' : 'warning',
      confidence: CONFIDENCE[confidence],
      location: siteLocation(w),
      variant: s.leaked && !p.partial ? 'leaked-lock' : s.kind,
      vars: { story, headline },
      facts: [
        `why stuck: ${s.why}`,
        ...(s.leaked && !p.partial ? [`no holder: ${s.leaked}`] : []),
        ...whoList(counter).map((x) => `counterpart: ${x}`),
        ...(w.readGroup.creator && w.detail.createdBy !== undefined
          ? [`creator: goroutine ${w.detail.createdBy} (${shortFunc(w.readGroup.creator.func)})${parentGone ? ', which has exited' : creators.length ? ', still in the dump' : ', not in the excerpt'}`]
          : []),
        ...(p.partial ? [criticalSectionNote(w)].filter((x): x is string => x !== undefined).map((x) => `inside: ${x}`) : []),
        `confidence: ${confidence}`,
      ],
    }));
  }
  return out;
}

export const stuckWaitDetector: Detector = {
  description: 'Cond, WaitGroup, channel and lock waits nothing will end, in a test timeout, leak report, runtime deadlock or long hang',
  vars: ['story', 'headline'],
  find(ctx, rule) {
    return stuckCandidates(ctx, rule, new Set(['cond', 'waitgroup', 'channel', 'lock', 'leftover']));
  },
};

export { isHarness };
