/**
 * Findings whose count is judged over a series of one process: a backpressure pile-up (or the senders
 * behind a stalled relay, requests waiting for a response, callers waiting for a shared call) that grows from snapshot to snapshot is
 * peers stalling one after another and never cut off, an error whatever its size in the latest snapshot. The count is measured the same way
 * in every snapshot (`counters`).
 */
import type { Analysis } from '../analyze/types.js';
import { chanCallers, coalescedWaiters } from './detectors/coalesced.js';
import { grpcResponseWaits } from './detectors/grpc-wait.js';
import { responseWaits } from './detectors/http-wait.js';
import { relaySenders } from './detectors/relay.js';
import { goroutinesIn, num, writesToPeers } from './frames.js';
import type { Finding } from './types.js';

const STALLED = 'every stalled peer stays stalled and more join';

/** Per rule: what is counted, and what its growth says. */
const COUNTERS: Readonly<Record<string, { count: (a: Analysis) => number; what: string; says: string }>> = {
  'core/backpressure': { count: (a) => writesToPeers(a).producers, what: 'goroutines blocked writing to stalled peers', says: STALLED },
  'core/stalled-relay': { count: relaySenders, what: 'goroutines waiting behind a stalled relay', says: STALLED },
  'core/http-awaiting-response': { count: (a) => responseWaits(a).waiting, what: 'HTTP requests waiting for a response', says: 'the answers do not come and more requests wait' },
  'core/grpc-awaiting-response': { count: grpcResponseWaits, what: 'gRPC calls waiting for a response', says: 'the answers do not come and more calls wait' },
  'core/coalesced-wait': { count: coalescedWaiters, what: 'goroutines waiting for a shared (singleflight) call', says: 'the calls do not return and more callers join' },
  'core/coalesced-chan-wait': { count: chanCallers, what: 'goroutines waiting on DoChan for a shared (singleflight) call', says: 'the calls do not return and more callers join' },
  'core/sql-db-leak': { count: (a) => goroutinesIn(a, SQL_OPENER), what: 'open database handles (sql.DB)', says: 'handles are opened and never closed' },
  'core/fsnotify-watcher-leak': { count: (a) => goroutinesIn(a, FSNOTIFY_READER), what: 'open file watchers (fsnotify)', says: 'watchers are created and never closed' },
};

const SQL_OPENER = 'database/sql.(*DB).connectionOpener';
const FSNOTIFY_READER = 'github.com/fsnotify/fsnotify.(*Watcher).readEvents';


/** Counts along the series that never fall and end higher than they began. */
function grows(counts: readonly number[]): boolean {
  return counts.length >= 2 && counts[counts.length - 1] > counts[0] && counts.every((c, i) => i === 0 || c >= counts[i - 1]);
}

/**
 * `findings` judge the latest snapshot of `series` (oldest first): those of a rule with a counter
 * become errors when the count grew across the series, with the counts as a fact.
 */
export function escalateGrowth(findings: readonly Finding[], series: readonly Analysis[]): Finding[] {
  if (series.length < 2) return [...findings];
  const cache = new Map<string, number[]>();
  return findings.map((f) => {
    const c = COUNTERS[f.ruleId];
    if (!c) return f;
    let counts = cache.get(f.ruleId);
    if (!counts) cache.set(f.ruleId, (counts = series.map(c.count)));
    if (!grows(counts)) return f;
    const fact = `grew across ${series.length} snapshots: ${counts.map(num).join(' → ')} ${c.what}: ${c.says}`;
    return { ...f, severity: 'error', evidence: { ...f.evidence, facts: [...f.evidence.facts, fact] } };
  });
}
