/** The deadlock patterns the wait-for graph of a dump shows (rules/waits/), as plain data. */
import type { Waiter, WaitFrame, WaitObject } from '../../analyze/types.js';
import type { DumpContextKind } from '../../model/dump.js';

export type Confidence = 'high' | 'medium' | 'low';

/** A goroutine that waits for a lock it (probably) already holds higher in its own stack. */
export interface SelfLock {
  readonly waiter: Waiter;
  /** The caller frame on the same object: where the lock was (probably) taken. */
  readonly holder: WaitFrame;
  /** Writers queued on the same RWMutex (a recursive RLock behind a pending writer). */
  readonly writers: readonly Waiter[];
  readonly confidence: Confidence;
  readonly how: string;
}

/** Lock waiters each holding (probably) what the next one waits for. */
export interface LockCycle {
  /** In wait order; `byType`: the hold is inferred from being inside a method of the lock's type, no address. */
  readonly members: readonly { readonly waiter: Waiter; readonly holds: WaitFrame; readonly held: WaitObject; readonly byType: boolean }[];
  readonly confidence: Confidence;
}

/** A goroutine blocked (channel, Wait, Cond) inside a critical section others queue for. */
export interface HeldLock {
  readonly blocked: Waiter;
  readonly frame: WaitFrame;
  readonly object: WaitObject;
  readonly queued: readonly Waiter[];
  /** What the blocked goroutine waits for, when the dump shows it: the parked goroutines a WaitGroup counts. */
  readonly waitsFor: readonly Waiter[];
  readonly confidence: Confidence;
  readonly how: string;
}

/** A Cond, WaitGroup or channel wait that nothing will end. */
export interface StuckWait {
  readonly waiter: Waiter;
  readonly kind: 'cond' | 'waitgroup' | 'channel' | 'lock' | 'leftover';
  /** Why it is stuck rather than slow. */
  readonly why: string;
  /** Goroutines it waits for that are alive and stuck themselves (children of a WaitGroup, a Cond's signaller). */
  readonly stuckCounterparts: readonly Waiter[];
  /** The goroutine that created it, alive in the dump (a parent may be the counterpart). */
  readonly creator?: Waiter;
  /**
   * A lock wait in a complete view where no goroutine can be the holder (none references the object,
   * none is inside a method of its type, nothing of the program runs): the lock was leaked on some
   * return path. Why no holder is possible.
   */
  readonly leaked?: string;
  readonly confidence: Confidence;
}

export interface WaitPatterns {
  readonly context: DumpContextKind;
  /** Only part of the dump is there (rules/context.ts partialView): a counterpart not shown is unknown, not absent. */
  readonly partial: boolean;
  readonly selfLocks: readonly SelfLock[];
  readonly cycles: readonly LockCycle[];
  readonly held: readonly HeldLock[];
  readonly stuck: readonly StuckWait[];
  /** Waiters that only wait for others of a pattern (the test runner, a parent in Wait): never roots. */
  readonly consequences: ReadonlyMap<Waiter, readonly Waiter[]>;
}
