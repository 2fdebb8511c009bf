/**
 * How receiving code stops receiving: the exits of a receiver loop (`return`, `break`, `goto`,
 * `panic`, labelled `continue` to an outer loop), classified as closed-channel exits, cancellation,
 * timeouts, non-blocking `default` cases or early exits (error paths); and whether something still
 * drains the channel after such an exit.
 */
import type { ChanOp } from '../flow/types.js';
import { contains, kids, walk, type Node } from '../syntax/parser.js';
import { resolve } from '../syntax/scope.js';
import { ancestors, breakTarget, calleeText, exprList, FUNC_TYPES, labelled, labelTarget, unparen, upParens } from '../syntax/tree.js';
import { anchorIn } from './channel-ops.js';

export type ExitKind = 'early' | 'cancel' | 'timeout' | 'nonblocking' | 'closed';

export interface LoopExit {
  readonly node: Node;
  readonly how: 'return' | 'break' | 'goto' | 'continue' | 'panic';
  readonly kind: ExitKind;
}

const CANCEL_NAME = /(^|[._])(done|quit|stop|stopc|stopch|cancel|cancelled|canceled|closing|closed|close|exit|shutdown|die|dying|kill|term|terminate|abort)(ch|chan|c)?$/i;

/** `<-ctx.Done()`, `<-done`, `<-s.quit`…: a receive that signals cancellation. */
export function isCancelRecv(recv: Node): boolean {
  const e = unparen(recv.type === 'unary_expression' ? recv.childForFieldName('operand')! : recv);
  if (e.type === 'call_expression') return /(^|\.)Done$/.test(calleeText(e));
  return CANCEL_NAME.test(e.text.replace(/\(\)$/, ''));
}

/** `<-time.After(d)`, `<-t.C`, `<-time.Tick(d)`, `<-clock.After(d)`: a receive that is a timeout. */
export function isTimerRecv(recv: Node): boolean {
  const e = unparen(recv.type === 'unary_expression' ? recv.childForFieldName('operand')! : recv);
  if (e.type === 'call_expression') return /(^|\.)(After|Tick)$/.test(calleeText(e));
  return e.type === 'selector_expression' && e.childForFieldName('field')?.text === 'C';
}

/** The loop that keeps receiving: the range loop itself, or the innermost `for` around a receive. */
export function receiverLoop(op: ChanOp): Node | undefined {
  if (op.kind === 'range') return op.node;
  for (const a of ancestors(op.node)) {
    if (FUNC_TYPES.has(a.type)) return undefined;
    if (a.type === 'for_statement') return a;
  }
  return undefined;
}

/** Keys of the `ok` variables of `v, ok := <-c` receives among `ops`. */
export function okBindings(ops: ChanOp[]): Set<string> {
  const out = new Set<string>();
  for (const op of ops) {
    if (op.kind !== 'recv') continue;
    const holder = upParens(op.node).parent;
    const st = holder?.type === 'expression_list' ? holder.parent : holder;
    if (!st || (st.type !== 'short_var_declaration' && st.type !== 'assignment_statement' && st.type !== 'receive_statement')) continue;
    const left = exprList(st.childForFieldName('left'));
    const ok = left[1];
    if (ok?.type === 'identifier') {
      const b = resolve(op.file.rel, ok);
      if (b) out.add(b.key);
    }
  }
  return out;
}

function mentionsOk(rel: string, cond: Node, ok: Set<string>): boolean {
  let hit = false;
  walk(cond, (n) => {
    if (n.type === 'identifier' && ok.has(resolve(rel, n)?.key ?? '')) hit = true;
    return !hit;
  });
  return hit;
}

/** Classify an exit by what guards it between the exit and the loop. */
function classify(rel: string, exit: Node, loop: Node, ok: Set<string>): ExitKind {
  for (const a of ancestors(exit, loop)) {
    if (a.type === 'default_case' && a.parent?.type === 'select_statement') return 'nonblocking';
    if (a.type === 'communication_case') {
      const comm = a.childForFieldName('communication');
      const recv = comm?.type === 'receive_statement' ? comm.childForFieldName('right') : undefined;
      if (recv && isTimerRecv(recv)) return 'timeout';
      if (recv && isCancelRecv(recv)) return 'cancel';
      if (comm?.type === 'receive_statement' && comm.childForFieldName('left') && mentionsOkIn(rel, a, exit, ok)) return 'closed';
    }
    if (a.type === 'if_statement') {
      const cond = a.childForFieldName('condition');
      if (cond && mentionsOk(rel, cond, ok)) return 'closed';
      if (cond && /\.Err\(\)|\.Done\(\)/.test(cond.text)) return 'cancel';
    }
  }
  return 'early';
}

/** An `if` between the exit and the case that tests the receive's ok flag. */
function mentionsOkIn(rel: string, scope: Node, exit: Node, ok: Set<string>): boolean {
  return ancestors(exit, scope).some((a) => a.type === 'if_statement' && !!a.childForFieldName('condition') && mentionsOk(rel, a.childForFieldName('condition')!, ok));
}

/** Every way out of `loop` (within its own function), with how and why. */
export function loopExits(rel: string, loop: Node, ok: Set<string>): LoopExit[] {
  const out: LoopExit[] = [];
  const body = loop.childForFieldName('body');
  if (!body) return out;
  const add = (node: Node, how: LoopExit['how']) => out.push({ node, how, kind: classify(rel, node, loop, ok) });
  const fn = ancestors(loop).find((a) => FUNC_TYPES.has(a.type));
  walk(body, (n) => {
    if (n.type === 'func_literal') return false;
    switch (n.type) {
      case 'return_statement':
        add(n, 'return');
        break;
      case 'break_statement':
      case 'continue_statement': {
        const label = kids(n).find((k) => k.type === 'label_name')?.text;
        if (label) {
          const lab = fn ? labelled(fn, label) : undefined;
          const target = lab ? labelTarget(lab) : undefined;
          const leaves = target && target.startIndex !== loop.startIndex && contains(target, loop);
          if ((n.type === 'break_statement' && target?.startIndex === loop.startIndex) || leaves) add(n, n.type === 'break_statement' ? 'break' : 'continue');
        } else if (n.type === 'break_statement' && breakTarget(n)?.startIndex === loop.startIndex) add(n, 'break');
        break;
      }
      case 'goto_statement': {
        const label = kids(n).find((k) => k.type === 'label_name')?.text;
        const lab = fn && label ? labelled(fn, label) : undefined;
        if (lab && !contains(loop, lab)) add(n, 'goto');
        break;
      }
      case 'call_expression': {
        const callee = calleeText(n);
        if ((callee === 'panic' || callee === 'runtime.Goexit') && n.parent?.type === 'expression_statement') add(n, 'panic');
        break;
      }
    }
    return true;
  });
  return out;
}

/**
 * Does something still receive from the channel after `exit` leaves `loop`? A receive in a `defer`
 * or a `go` statement of the same function, one after the loop (for break/goto), or one just before
 * the exit in its own block (drain, then return). `receives` are the channel's receive/range ops.
 */
export function drainedAfter(rel: string, exit: LoopExit, loop: Node, receives: ChanOp[]): boolean {
  const fn = ancestors(loop).find((a) => FUNC_TYPES.has(a.type));
  if (!fn) return false;
  for (const r of receives) {
    const anchor = anchorIn(r, rel, fn);
    if (!anchor || anchor.startIndex === loop.startIndex) continue;
    if (contains(loop, anchor)) {
      // a drain just before the exit, in the branch that exits
      const block = exit.node.parent;
      if (block && contains(block, anchor) && anchor.endIndex <= exit.node.startIndex && !contains(anchor, exit.node)) return true;
      continue;
    }
    const wrapped = ancestors(anchor, fn).some((a) => a.type === 'defer_statement' || a.type === 'go_statement');
    if (wrapped) return true;
    if (exit.how !== 'return' && exit.how !== 'panic' && anchor.startIndex > loop.endIndex) return true;
  }
  return false;
}
