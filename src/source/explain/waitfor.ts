/**
 * Source checks of the wait-for findings (rules/waits.ts): the pattern the rules inferred from a dump
 * (a double lock, a lock-order cycle, a lock held while blocked, a Cond nobody signals) is looked up
 * again for the finding's root group, its goroutines' frames are located in the checkout, and the
 * matching check says what the source shows.
 */
import type { Analysis, Waiter, WaitOn } from '../../analyze/types.js';
import type { Finding } from '../../rules/types.js';
import { waitPatterns, type WaitPatterns } from '../../rules/waits/index.js';
import type { Workspace } from '../workspace/workspace.js';
import type { Cause } from './cause.js';
import { explainCondWait } from './cond.js';
import type { Confirmation, LocatedFrame, LocatedStack } from './confirm.js';
import { confirmHeldLock } from './held-lock.js';
import { confirmLockCycle } from './lock-cycle.js';
import { confirmSelfLock } from './self-lock.js';

export const WAIT_FOR_RULES = new Set(['core/double-lock', 'core/lock-order', 'core/lock-held-blocked', 'core/stuck-wait']);

export interface WaitForCheck {
  /** Cause lines found for the finding (listed before the generic ones of its blocking site). */
  readonly causes: Cause[];
  /** What the source says about the inference, for the finding's confidence (absent: nothing to say). */
  readonly confirmation?: Confirmation;
}

const WHAT: Partial<Record<WaitOn, string>> = {
  'chan-send': 'channel send', 'chan-receive': 'channel receive', select: 'select', waitgroup: 'WaitGroup Wait', cond: 'Cond.Wait',
};

export class WaitForChecks {
  private readonly patterns = new Map<Analysis, WaitPatterns | undefined>();

  constructor(private readonly ws: Workspace) {}

  check(f: Finding, analysis: Analysis): WaitForCheck | undefined {
    if (!WAIT_FOR_RULES.has(f.ruleId)) return undefined;
    if (!this.patterns.has(analysis)) this.patterns.set(analysis, waitPatterns(analysis));
    const p = this.patterns.get(analysis);
    if (!p) return undefined;
    const roots = new Set(f.evidence.groups.filter((g) => g.role === 'root').map((g) => g.id));
    const isRoot = (w: Waiter) => roots.has(w.group.id);
    switch (f.ruleId) {
      case 'core/double-lock': {
        const s = p.selfLocks.find((x) => isRoot(x.waiter));
        if (!s) return undefined;
        const c = confirmSelfLock(this.stack(s.waiter), s.holder.index - s.waiter.site);
        return { causes: c.causes, confirmation: c };
      }
      case 'core/lock-order': {
        const cycle = p.cycles.find((c) => c.members.some((m) => isRoot(m.waiter)));
        if (!cycle) return undefined;
        const c = confirmLockCycle(cycle.members.map((m) => ({ id: m.waiter.detail.id, stack: this.stack(m.waiter) })));
        return { causes: c.causes, confirmation: c };
      }
      case 'core/lock-held-blocked': {
        const h = p.held.find((x) => isRoot(x.blocked));
        if (!h) return undefined;
        const queued = h.queued.map((q) => this.stack(q)[0]).filter((q): q is LocatedFrame => !!q);
        const c = confirmHeldLock(this.stack(h.blocked), queued, WHAT[h.blocked.on] ?? 'blocking call', h.blocked.on === 'cond');
        return { causes: c.causes, confirmation: c };
      }
      default: {
        const s = p.stuck.find((x) => isRoot(x.waiter));
        if (!s || s.kind !== 'cond') return undefined;
        const site = this.stack(s.waiter)[0];
        return site ? { causes: explainCondWait(site) } : undefined;
      }
    }
  }

  /** The goroutine's frames from its blocking site outwards, located in the checkout (the program's own frames only). */
  private stack(w: Waiter): LocatedStack {
    return w.frames.slice(w.site).map((wf) => {
      if (wf.origin !== 'user' || !wf.frame.file) return undefined;
      const loc = this.ws.index.locate(wf.frame.file, wf.frame.pkg);
      const file = loc && this.ws.file(loc.rel);
      const pkg = file && this.ws.pkgOf(file);
      return file && pkg && wf.frame.line >= 1 && wf.frame.line <= file.lines.length ? { file, pkg, line: wf.frame.line, func: wf.frame.func } : undefined;
    });
  }
}
