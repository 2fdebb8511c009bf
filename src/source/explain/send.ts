/**
 * Blocked sends: follow the channel (flow/tracer.ts) to its receivers and judge them: a receiver loop
 * that exits before the channel is closed, a receiver that gives up on cancellation or a timeout, a
 * one-shot receive of several sends, a receiver that returns before it receives, or no receiver.
 */
import { ChannelTracer } from '../flow/tracer.js';
import type { ChannelFlow, ChanOp } from '../flow/types.js';
import { anchorIn, makeOrigin, opAt, repeated, sendAt } from '../patterns/channel-ops.js';
import { drainedAfter, isCancelRecv, isTimerRecv, loopExits, okBindings, receiverLoop } from '../patterns/exits.js';
import { contains, kids, lineOf, type Node } from '../syntax/parser.js';
import { ownDescendants } from '../syntax/tree.js';
import { at, cause, lower, type Cause, type Site, type SiteResult } from './cause.js';
import { madeAt, nilCauses } from './channel-shared.js';

/** Analyse the send at the site's line (found: false when there is none). */
export function explainSendAt(s: Site): SiteResult {
  const send = sendAt(s.file.root, s.line);
  return send ? explainSend(s, send) : { causes: [], warnings: [], found: false };
}

export function explainSend(s: Site, send: Node): SiteResult {
  const tracer = new ChannelTracer(s.ws, s.hint);
  const flow = tracer.trace(s.file, send.childForFieldName('channel')!);
  const nil = nilCauses(s, flow, `the send at ${at(s.file, send)}`);
  if (nil) return { causes: nil, warnings: [], found: true };
  const blocked = opAt(flow, s.pkg, s.file, send, 'send');
  const bare = blocked.select === undefined;
  const recvs = flow.ops.filter((o) => o.kind === 'recv' || o.kind === 'range');
  const ok = okBindings(recvs);
  const make = makeOrigin(flow);
  const unbuffered = make?.capacity === '' || make?.capacity === '0';
  const causes: Cause[] = [];
  let gaveUp = false;
  let cancelled = false;
  const where = `the send at ${at(s.file, send)}`;
  // A send in a select with a receive or default case of its own has a way out when its receiver
  // gives up (a done channel the receiver closes, a context): whatever holds it, it is not that it
  // "has no matching case".
  const wayOut = !bare && kids(blocked.select!).some((c) => c.type === 'default_case' || c.childForFieldName('communication')?.type === 'receive_statement');

  for (const r of recvs) {
    const loop = receiverLoop(r);
    if (loop) {
      for (const e of loopExits(r.file.rel, loop, ok)) {
        if (e.kind === 'closed' || drainedAfter(r.file.rel, e, loop, recvs)) continue;
        gaveUp = true;
        const from = lineOf(e.node) - lineOf(loop) <= 6 ? lineOf(loop) : undefined;
        const fn = r.fn.node;
        if (e.kind === 'early' || e.kind === 'nonblocking') {
          const base = e.how === 'panic' || e.kind === 'nonblocking' ? 'medium' : 'high';
          causes.push(cause('consumer-exit', r.file, e.node, `The loop receiving from the channel (${at(r.file, loop)}) exits here (${e.how}) before the channel is closed, and nothing drains it afterwards: ${where}${madeAt(flow)} then blocks forever. Keep receiving until the channel is closed (continue instead of ${e.how}), or drain it before leaving.`, lower(base, r.exact && blocked.exact), fn, from));
        } else {
          if (wayOut) continue;
          cancelled ||= e.kind === 'cancel';
          causes.push(cause('receiver-gives-up', r.file, e.node, `The receiver stops here on ${e.kind === 'cancel' ? 'cancellation' : 'a timeout'} (${e.how}) while ${where} cannot: it has no matching case.`, lower('medium', r.exact), fn, from));
        }
      }
      continue;
    }
    if (r.select) {
      for (const c of kids(r.select)) {
        if (contains(c, r.node)) continue;
        const comm = c.childForFieldName('communication');
        const rv = comm?.type === 'receive_statement' ? comm.childForFieldName('right') : undefined;
        if (c.type === 'default_case' || (rv && (isTimerRecv(rv) || isCancelRecv(rv)))) {
          gaveUp = true;
          const timer = !!rv && isTimerRecv(rv);
          cancelled ||= !!rv && !timer;
          const what = c.type === 'default_case' ? 'when no value is ready (default case)' : timer ? 'after a timeout' : 'on cancellation';
          const conf = timer && unbuffered ? 'high' : 'medium';
          causes.push(cause('receiver-gives-up', r.file, c, `The receiver stops waiting ${what}; ${where}${madeAt(flow)} then has no reader and blocks forever.`, lower(conf, r.exact && blocked.exact), r.fn.node, lineOf(r.select)));
          if (unbuffered && make?.file && make.node) {
            causes.push(cause('unbuffered-result', make.file, make.node, `The channel is unbuffered, so a send after the reader gave up can never complete. A buffer for every send (e.g. make(chan T, 1) for one result) lets the sender finish.`, lower('medium', make.exact), undefined));
          }
        }
      }
    }
    causes.push(...oneShot(s, r, flow, blocked));
  }

  if (recvs.length === 0) {
    const esc = flow.escapes[0];
    if (esc) causes.push(cause('no-receiver', esc.file, esc.node, `No code in this package receives from the channel; it leaves the package here (${esc.why}), so its receiver is outside the analysed source.`, 'low'));
    else if (make?.file && make.node) causes.push(cause('no-receiver', make.file, make.node, `Nothing in the package receives from this channel: ${where} can never complete.`, lower('high', make.exact && blocked.exact)));
  }
  if (gaveUp && bare) {
    causes.push(cause('no-cancel-case', s.file, send, `This send has no ctx.Done()/done case: once its receiver has stopped receiving it can never complete. Select on cancellation too (select { case c <- v: case <-ctx.Done(): }).`, cancelled ? 'high' : 'medium', blocked.fn.node));
  }
  return { causes, warnings: [], found: true };
}

/** A receive that takes one value (not in a loop): several senders, or a return before it. */
function oneShot(s: Site, r: ChanOp, flow: ChannelFlow, blocked: ChanOp): Cause[] {
  const out: Cause[] = [];
  const sends = flow.ops.filter((o) => o.kind === 'send');
  const make = makeOrigin(flow);
  const cap = make?.capacity ?? '';
  if (sends.length > 1 || sends.some(repeated)) {
    const conf = cap === '' || cap === '0' ? 'high' : 'medium';
    out.push(cause('single-receive', r.file, r.node, `Only one value is received here, but ${sends.length > 1 ? `${sends.length} sends` : 'a send repeated in a loop'} can happen${madeAt(flow)}: every other sender blocks forever. Buffer the channel for all senders or keep receiving.`, lower(conf, r.exact && blocked.exact), r.fn.node));
  }
  // The receiving function returns before it reaches the receive, after the sender started.
  const fn = r.fn.node;
  const starts = sends.map((o) => anchorIn(o, r.file.rel, fn)).filter((n): n is Node => !!n && n.startIndex < r.node.startIndex);
  if (starts.length > 0) {
    const first = Math.min(...starts.map((n) => n.startIndex));
    for (const ret of ownDescendants(fn, 'return_statement')) {
      if (ret.startIndex > first && ret.endIndex <= r.node.startIndex && !starts.some((st) => contains(st, ret))) {
        out.push(cause('receiver-returns-early', r.file, ret, `This return leaves before the receive at ${at(r.file, r.node)}, after the sender was started: ${at(s.file, blocked.node)} then has no reader.`, lower('high', r.exact), fn));
      }
    }
  }
  return out;
}
