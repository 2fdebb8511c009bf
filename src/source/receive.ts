/**
 * Blocked receives (nothing sends or closes; a producer path returns without either; a ranged
 * channel nobody closes), selects (each case's channel; no cancellation case; `select {}`) and nil
 * channels.
 */
import { contains, endLineOf, kids, lineOf, type Node } from './go-parser.js';
import { at, cause, lower, type Cause, type Site, type SiteResult } from './causes.js';
import { explainChannelSite, explainSend, madeAt, makeOrigin, nilCauses, opAt, receiveAt } from './channels.js';
import { isCancelRecv, isTimerRecv, receiverLoop } from './exits.js';
import { ChannelTracer, type ChanOp } from './flow.js';
import type { FuncInfo } from './package.js';
import { ancestors, funcName, nodesAtLine, ownDescendants, runsBefore, statementsOf } from './syntax.js';


/** The node of `op` (or of the call that hands the channel down) inside `fn`'s file and body. */
function anchorIn(op: ChanOp, fn: FuncInfo): Node | undefined {
  return [{ file: op.file, node: op.node }, ...[...op.trail].reverse()].find((a) => a.file.rel === fn.file.rel && contains(fn.node, a.node))?.node;
}

/** Exits of producer `fn` that neither sent nor closed (closed only, when the receiver ranges). */
function producerGaps(fn: FuncInfo, ops: ChanOp[], needClose: boolean): Node[] | 'none' {
  const covering = ops.filter((o) => (needClose ? o.kind === 'close' : o.kind === 'send' || o.kind === 'close')).map((o) => anchorIn(o, fn)).filter((n): n is Node => !!n);
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
  const blocked = opAt(flow, s, r, range ? 'range' : 'recv');
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

export function explainSelect(s: Site): SiteResult {
  const sel = nodesAtLine(s.file.root, s.line, new Set(['select_statement']))[0];
  if (!sel) return { causes: [], warnings: [], found: false };
  const cases = kids(sel).filter((k) => k.type === 'communication_case' || k.type === 'default_case');
  if (cases.length === 0) return forever(s, sel);
  const causes: Cause[] = [];
  let cancel = false;
  const live = cases.filter((c) => c.type === 'communication_case');
  for (const c of live) {
    const comm = c.childForFieldName('communication')!;
    if (comm.type === 'send_statement') {
      causes.push(...explainChannelSite({ ...s, line: lineOf(comm), waitKind: 'chan-send' }).causes.map((x) => (live.length > 1 ? { ...x, confidence: lower(x.confidence, false) } : x)));
      continue;
    }
    const rv = comm.childForFieldName('right');
    if (rv && (isCancelRecv(rv) || isTimerRecv(rv))) {
      cancel = true;
      continue;
    }
    const r = rv ? receiveAt(rv, lineOf(rv)) : undefined;
    if (r) causes.push(...explainReceive(s, r).causes.map((x) => (live.length > 1 ? { ...x, confidence: lower(x.confidence, false) } : x)));
  }
  if (cancel) {
    // The select can still leave through its cancellation/timeout case: any cause here is less sure.
    return { causes: causes.map((x) => ({ ...x, confidence: lower(x.confidence, false) })), warnings: [], found: true };
  }
  const fn = ancestors(sel).find((a) => a.type.endsWith('_declaration') || a.type === 'func_literal');
  const msg = `This select has no ctx.Done()/done or timeout case: nothing can release it once its channels go quiet.`;
  causes.push(cause('no-cancel-case', s.file, sel, msg, causes.length > 0 ? 'medium' : 'low', fn));
  return { causes, warnings: [], found: true };
}

function forever(s: Site, sel: Node): SiteResult {
  const fn = ancestors(sel).find((a) => a.type === 'function_declaration' || a.type === 'method_declaration' || a.type === 'func_literal');
  const name = fn?.type === 'function_declaration' ? fn.childForFieldName('name')?.text : '';
  const intended = name === 'main' || name === 'init';
  const msg = intended
    ? `select {} parks this goroutine forever on purpose (in ${name}).`
    : `select {} blocks this goroutine forever: nothing can ever wake it. Wait on a ctx.Done()/done channel instead so it can end.`;
  return { causes: [cause('empty-select', s.file, sel, msg, intended ? 'low' : 'high', fn)], warnings: [], found: true };
}

export function explainForever(s: Site): SiteResult {
  const sel = nodesAtLine(s.file.root, s.line, new Set(['select_statement']))[0];
  if (sel && kids(sel).length === 0) return forever(s, sel);
  const send = nodesAtLine(s.file.root, s.line, new Set(['send_statement']))[0];
  if (send) return explainSend(s, send);
  const r = receiveAt(s.file.root, s.line);
  if (r) return explainReceive(s, r);
  return sel ? explainSelect(s) : { causes: [], warnings: [], found: false };
}
