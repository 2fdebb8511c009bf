/**
 * The shape of a likely cause found in source, before it becomes a `CauseLocation`, and the blocking
 * site the explanations start from: the bottom of the explain layer.
 */
import type { WaitKind } from '../../model/dump.js';
import type { CallerHint } from '../flow/types.js';
import { lineOf, type GoFile, type Node } from '../syntax/parser.js';
import { funcName } from '../syntax/tree.js';
import type { GoPackage } from '../workspace/package.js';
import type { Workspace } from '../workspace/workspace.js';

/**
 * How sure a cause is:
 * - `high`: the pattern is certain on the traced path, and every link from the blocked operation to
 *   it is unambiguous (the stack or the `go` statement picked the call site, or every call site passes
 *   the same channel; variables, results, struct fields of a known type; packages of the checkout
 *   resolved through go.mod).
 * - `medium`: the same pattern through an ambiguous link (call sites passing different channels, a
 *   method matched by name only, a field of unknown owner type), an exit by `panic` or a `default`
 *   case, or a contributing factor (a bare send/receive without a cancellation case once the other
 *   side gave up; an unbuffered result channel). A select that still has a cancellation or timeout
 *   case lowers every cause by one level.
 * - `low`: a hint: the channel leaves the checkout (its other end is elsewhere), a never-closed channel
 *   kept in a struct field (usually long-lived workers), `select {}` in main/init, a select without a
 *   cancellation case when nothing else was found.
 */
export type Confidence = 'high' | 'medium' | 'low';

/** What kind of cause: stable ids, also written to `CauseLocation.kind`. */
export type CauseKind =
  /** (a) a receiver loop exits (return/break/goto/panic) before the channel is closed, and nothing drains it. */
  | 'consumer-exit'
  /** the receiver stops on cancellation or a timeout while the sender cannot. */
  | 'receiver-gives-up'
  /** (b) a bare send / receive / select with no ctx.Done() or done case. */
  | 'no-cancel-case'
  /** (c) an unbuffered channel whose late send has no reader. */
  | 'unbuffered-result'
  /** a one-shot receive while several values are sent. */
  | 'single-receive'
  /** the receiving function returns before it receives. */
  | 'receiver-returns-early'
  /** nothing in the package receives from / sends to the channel. */
  | 'no-receiver'
  | 'no-sender'
  /** (d) a producer path returns without a send or close; or nothing closes a ranged channel. */
  | 'producer-returns'
  | 'never-closed'
  | 'nil-channel'
  /** (e) `select {}`. */
  | 'empty-select'
  /** (f) two functions take the same two locks in opposite order; or a lock taken twice. */
  | 'lock-order'
  | 'lock-reentry'
  /** a caller takes the lock and still holds it at the call that leads to the blocked Lock (double locking). */
  | 'lock-held-at-call'
  /** a select's `case <-x.ctx.Done()` whose CancelFunc nothing calls. */
  | 'never-cancelled'
  /** a function leaves (return, panic, Goexit) between Lock and Unlock without a defer: the lock has no holder. */
  | 'lock-leaked'
  /** a lock taken and still held on the path to a blocking channel operation, Wait or Cond.Wait. */
  | 'lock-held-while-blocked'
  /** the caller released the lock before the call: the source contradicts a double-lock inference. */
  | 'lock-released-before-call'
  /** a function changes what a Cond's waiters test without Signal/Broadcast; or nothing signals at all. */
  | 'missing-signal'
  /** a Signal/Broadcast that a branch or an early return can skip. */
  | 'signal-skipped'
  /** a goroutine path that returns without `wg.Done()`, so `wg.Wait()` never returns. */
  | 'missing-done'
  /** a consumer parked in a network write from a function that sets no write deadline. */
  | 'write-without-deadline'
  /** a path that leaves a pool's value (database/sql Rows, Tx, Conn; a pooled connection) open: its connection is never given back. */
  | 'left-open'
  /** an HTTP request through http.DefaultClient (no timeout) that goroutines wait in for the answer. */
  | 'request-without-timeout'
  /** a call of singleflight's Do that callers wait in for another caller's call, with no way to give up. */
  | 'uncancellable-share'
  /** a call goroutines wait in for a server's answer, given a context without a deadline. */
  | 'call-without-deadline'
  /** the start of an HTTP server that sets no read timeout, while goroutines wait for clients that stopped sending. */
  | 'server-without-read-timeout'
  /** a handle (a *sql.DB) opened on every call outside start-up code and never closed nor kept. */
  | 'opened-per-call';

export interface Cause {
  readonly kind: CauseKind;
  readonly file: GoFile;
  readonly line: number;
  /** First line of the excerpt (context above `line`), when more than the default is useful. */
  readonly from?: number;
  readonly message: string;
  readonly confidence: Confidence;
  readonly func?: string;
}

/** What one blocking site of a finding gives the analyses. */
export interface Site {
  readonly ws: Workspace;
  readonly pkg: GoPackage;
  readonly file: GoFile;
  readonly line: number;
  readonly waitKind: WaitKind;
  readonly hint: CallerHint;
  /** The frames above the blocking one, located in the source (outermost last). */
  readonly stack?: readonly { readonly rel: string; readonly line: number }[];
  /** Blocking sites of other goroutine groups waiting on locks (holders of this lock are among them). */
  readonly peers?: readonly { readonly file: GoFile; readonly line: number }[];
  /** The stacks of the snapshot's other goroutine groups, located in the source (who may hold a lock). */
  readonly others?: readonly (readonly { readonly file: GoFile; readonly pkg: GoPackage; readonly line: number }[])[];
}

export interface SiteResult {
  readonly causes: Cause[];
  readonly warnings: string[];
  /** Whether an operation of the expected kind was found at the site. */
  readonly found: boolean;
}

export function lower(c: Confidence, exact: boolean): Confidence {
  if (exact) return c;
  return c === 'high' ? 'medium' : 'low';
}

export function cause(kind: CauseKind, file: GoFile, node: Node | number, message: string, confidence: Confidence, fn?: Node, from?: number): Cause {
  const line = typeof node === 'number' ? node : lineOf(node);
  return { kind, file, line, message, confidence, func: fn ? funcName(fn) : undefined, from: from !== undefined && from < line ? from : undefined };
}

/** `file:line` for messages. */
export function at(file: GoFile, node: Node | number): string {
  return `${file.rel}:${typeof node === 'number' ? node : lineOf(node)}`;
}

const RANK: Record<Confidence, number> = { high: 0, medium: 1, low: 2 };
/** Contributing factors: listed after the primary causes of the same confidence. */
const SECONDARY = new Set<CauseKind>(['no-cancel-case', 'unbuffered-result']);

/** Dedupe by place (keeping the surer one) and sort: surest first, primary before contributing, then by place. */
export function settle(causes: Cause[]): Cause[] {
  const by = new Map<string, Cause>();
  for (const c of causes) {
    const k = `${c.file.rel}:${c.line}`;
    const prev = by.get(k);
    if (!prev || RANK[c.confidence] < RANK[prev.confidence]) by.set(k, c);
  }
  return [...by.values()].sort((a, b) => RANK[a.confidence] - RANK[b.confidence] || +SECONDARY.has(a.kind) - +SECONDARY.has(b.kind) || (a.file.rel < b.file.rel ? -1 : a.file.rel > b.file.rel ? 1 : a.line - b.line));
}
