/**
 * `lock-writer`: a lock pile-up whose likely holder is writing to a peer that does not read. The
 * queued goroutines called Lock in some function; a goroutine parked in a socket write (the peer's
 * receive buffer and its own send buffer full) from a later line of that same function is inside its
 * critical section: the lock waits for that peer. Read from stack shapes alone, so every format
 * tells it (debug=2 links the lock's address exactly: core/lock-held-blocked claims those first).
 */
import type { AnalyzedGroup } from '../../analyze/types.js';
import type { Detector } from '../candidate.js';
import { goroutines, shortFunc, siteText, stateOf, writesToPeers } from '../frames.js';
import { lockWait } from './locks.js';

export const lockWriterDetector: Detector = {
  description: 'a lock pile-up whose likely holder (a goroutine at a later line of the function that called Lock) is blocked writing to a peer that does not read: `variant: peer-write`, the writers as related',
  vars: ['holders', 'holderSite'],
  refine(ctx, _rule, c) {
    const w = c.root && lockWait(c.root);
    if (!w) return c;
    const a = ctx.analysis;
    const writers: AnalyzedGroup[] = [];
    for (const x of writesToPeers(a).groups) {
      if (x.kind !== 'socket-write' || x.group === c.root) continue;
      if (x.group.frames.some((f) => f.func === w.site.func && f.line > w.site.line)) writers.push(x.group);
    }
    if (!writers.length) return c;
    const at = writers[0].frames.find((f) => f.func === w.site.func && f.line > w.site.line)!;
    const n = writers.reduce((s, g) => s + g.count, 0);
    const holderSite = `${shortFunc(at.func)} (${siteText(at)})`;
    return {
      ...c,
      variant: 'peer-write',
      related: [...c.related, ...writers],
      vars: { ...c.vars, holders: goroutines(n), holderSite },
      facts: [
        ...c.facts,
        `likely holder: ${goroutines(n)} at ${holderSite}, a later line of the function that called Lock (${shortFunc(w.site.func)}, ${siteText(w.site)}), blocked writing to a peer that does not read [${stateOf(writers[0]) || writers[0].waitKind}] (matched by stack shape, not by the lock's address)`,
      ],
    };
  },
};
