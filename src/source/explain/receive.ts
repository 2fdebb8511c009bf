/**
 * Blocked receives: nothing sends or closes; a producer path returns without either; a ranged
 * channel nobody closes; a sender that gives up while the receive cannot.
 */
import { ChannelTracer } from '../flow/tracer.js';
import type { ChanOp } from '../flow/types.js';
import { anchorIn, makeOrigin, opAt } from '../patterns/channel-ops.js';
import { isCancelRecv, isTimerRecv, receiverLoop } from '../patterns/exits.js';
import { contains, endLineOf, kids, lineOf, type Node } from '../syntax/parser.js';
import { ancestors, funcName, ownDescendants, runsBefore, statementsOf } from '../syntax/tree.js';
import type { FuncInfo } from '../workspace/package.js';
import { at, cause, lower, type Cause, type Site, type SiteResult } from './cause.js';
import { madeAt, nilCauses } from './channel-shared.js';

/** Exits of producer `fn` that neither sent nor closed (closed only, when the receiver ranges). */
function producerGaps(fn: FuncInfo, ops: ChanOp[], needClose: boolean): Node[] | 'none' {
  const covering = ops.filter((o) => (needClose ? o.kind === 'close' : o.kind === 'send' || o.kind === 'close')).map((o) => anchorIn(o, fn.file.rel, fn.node)).filter((n): n is Node => !!n);
  if (covering.some((n) => ancestors(n, fn.node).some((a) => a.type === 'defer_statement'))) return [];
  const body = fn.node.childForFieldName('body');
  if (!body) return [];
  const exits: Node[] = ownDescendants(fn.node, 'return_statement');
  const last = statementsOf(body).at(-1);
  const gaps = exits.filter((e) => !covering.some((a) => runsBefore(a, e, fn.node) || sentInCase(a, e)));
  const endCovered = !!last && (last.type === 'return_statement' || covering.some((a) => runsBefore(a, last, fn.node) || contains(last, a)));
  if (!endCovered && last?.type !== 'for_statement') gaps.push(body);
  return covering.length === 0 && needClose ? 'none' : gaps;
}

function sentInCase(a: Node, e: Node): boolean {
  const cc = ancestors(e).find((x) => x.type === 'communication_case');
  return !!cc && contains(cc.childForFieldName('communication') ?? cc, a);
}

export function explainReceive(s: Site, r: Node): SiteResult {
  const range = r.type === 'for_statement';
  const chExpr = range ? kids(r).find((k) => k.type === 'range_clause')!.childForFieldName('right')! : r.childForFieldName('operand')!;
  const flow = new ChannelTracer(s.ws, s.hint).trace(s.file, chExpr);
  const blocked = opAt(flow, s.pkg, s.file, r, range ? 'range' : 'recv');
  const sends = flow.ops.filter((o) => o.kind === 'send');
  const closes = flow.ops.filter((o) => o.kind === 'close');
  const looping = range || !!receiverLoop(blocked);
  const causes: Cause[] = [];
  const where = `the receive at ${at(s.file, r)}`;
  const nil = nilCauses(s, flow, where);
  if (nil) return { causes: nil, warnings: [], found: true };
  const make = makeOrigin(flow);
  if (sends.length === 0 && closes.length === 0) {
    const esc = flow.escapes[0];
    if (esc) causes.push(cause('no-sender', esc.file, esc.node, `No code in this package sends on or closes the channel; it leaves the package here (${esc.why}).`, 'low'));
    else if (make?.file && make.node) causes.push(cause('no-sender', make.file, make.node, `Nothing sends on or closes this channel: ${where} can never complete.`, lower('high', make.exact && blocked.exact)));
    return { causes, warnings: [], found: true };
  }
  // Producers: the functions that send (a function that only closes is a closer, judged by the sends).
  const producers = new Map<string, FuncInfo>();
  for (const o of sends) producers.set(o.fn.key, o.fn);
  if (looping && closes.length === 0) {
    for (const p of producers.values()) {
      // A channel kept in a struct field usually feeds long-lived workers that are meant to run forever.
      const conf = flow.fields ? 'low' : flow.escapes.length === 0 ? 'high' : 'medium';
      causes.push(cause('never-closed', p.file, p.node, `Nothing closes the channel${madeAt(flow)}, so the loop receiving from it (${at(s.file, r)}) never ends. Close it when ${funcName(p.node)} is done sending (defer close(…)).`, lower(conf, sends.every((o) => o.exact)), p.node));
    }
  } else {
    for (const p of producers.values()) {
      const gaps = producerGaps(p, flow.ops, looping);
      if (gaps === 'none') continue;
      for (const g of gaps) {
        const line = g.type === 'block' ? endLineOf(g) : lineOf(g);
        const what = looping ? 'without closing the channel' : 'without sending on or closing the channel';
        causes.push(cause('producer-returns', p.file, line, `This path of ${funcName(p.node)} ends ${what}${madeAt(flow)}: ${where} waits forever. Close the channel on every path (defer close(…)) or send a result or error before returning.`, lower('high', sends.concat(closes).some((o) => o.fn.key === p.key && o.exact)), p.node));
      }
    }
  }
  // Senders that give up (cancellation/timeout in their select) while this receive cannot.
  const givingUp = sends.filter((o) => o.select && kids(o.select).some((c) => {
    const comm = c.childForFieldName('communication');
    const rv = comm?.type === 'receive_statement' ? comm.childForFieldName('right') : undefined;
    return !!rv && (isCancelRecv(rv) || isTimerRecv(rv));
  }));
  if (givingUp.length > 0 && blocked.select === undefined) {
    causes.push(cause('no-cancel-case', s.file, r, `This receive has no ctx.Done()/done case, but its sender (${at(givingUp[0].file, givingUp[0].node)}) gives up on cancellation or a timeout: select on cancellation here too.`, 'medium', blocked.fn.node));
  }
  return { causes, warnings: [], found: true };
}
