/**
 * Channel findings: find the operation at the blocking site, follow its channel through the package
 * (flow.ts) and judge the other ends. This file handles blocked sends; receive.ts blocked receives,
 * selects and nil channels.
 */
import { contains, kids, lineOf, type Node } from './go-parser.js';
import { at, cause, lower, type Cause, type Site, type SiteResult } from './causes.js';
import { drainedAfter, isCancelRecv, isTimerRecv, loopExits, okBindings, receiverLoop } from './exits.js';
import { ChannelTracer, type ChanOp, type ChannelFlow, type Origin } from './flow.js';
import { ancestors, FUNC_TYPES, nodesAtLine, ownDescendants } from './syntax.js';
import { explainReceive, explainSelect, explainForever } from './receive.js';

const SEND = new Set(['send_statement']);

/** Analyse the channel operation at a blocking site. */
export function explainChannelSite(s: Site): SiteResult {
  const root = s.file.root;
  switch (s.waitKind) {
    case 'chan-send': {
      const send = nodesAtLine(root, s.line, SEND)[0];
      return send ? explainSend(s, send) : none();
    }
    case 'chan-receive': {
      const r = receiveAt(root, s.line);
      return r ? explainReceive(s, r) : none();
    }
    case 'select':
      return explainSelect(s);
    case 'blocked-forever':
      return explainForever(s);
    default: {
      const send = nodesAtLine(root, s.line, SEND)[0];
      if (send) return explainSend(s, send);
      const r = receiveAt(root, s.line);
      if (r) return explainReceive(s, r);
      return explainSelect(s);
    }
  }
}

function none(): SiteResult {
  return { causes: [], warnings: [], found: false };
}

/** A receive at a line: `<-c` (unary), or the range loop whose `for` is on the line. */
export function receiveAt(root: Node, line: number): Node | undefined {
  const recv = nodesAtLine(root, line, new Set(['unary_expression', 'for_statement'])).filter(
    (n) => (n.type === 'unary_expression' && n.childForFieldName('operator')?.text === '<-') || (n.type === 'for_statement' && lineOf(n) === line && kids(n).some((k) => k.type === 'range_clause')),
  );
  return recv.find((n) => n.type === 'for_statement') ?? recv[0];
}

/** The op of `flow` at `node`, or one made up for it (the blocked op itself may not be a traced use). */
export function opAt(flow: ChannelFlow, s: Site, node: Node, kind: ChanOp['kind']): ChanOp {
  const hit = flow.ops.find((o) => o.file.rel === s.file.rel && o.node.startIndex === node.startIndex && o.kind === kind);
  if (hit) return hit;
  const fnNode = ancestors(node).find((a) => FUNC_TYPES.has(a.type))!;
  return { kind, node, file: s.file, fn: s.pkg.info(s.file, fnNode), exact: true, trail: [] };
}

export function makeOrigin(flow: ChannelFlow): Origin | undefined {
  return flow.origins.find((o) => o.kind === 'make');
}

/** Where the channel was made, for messages. */
export function madeAt(flow: ChannelFlow): string {
  const m = makeOrigin(flow);
  return m?.file && m.node ? ` (created at ${at(m.file, m.node)})` : '';
}

/** Is an op repeated: inside a loop of its function, or in a goroutine started inside a loop? */
export function repeated(op: ChanOp): boolean {
  const chain = [op.node, ...op.trail.map((t) => t.node).reverse()];
  return chain.some((n) => ancestors(n).some((a) => a.type === 'for_statement'));
}

/**
 * The channel is nil: declared without make, a struct literal without the field, or set to nil. When
 * the runtime says so (`(nil chan)` → blocked-forever) any nil origin explains it; otherwise only
 * when every origin is nil.
 */
export function nilCauses(s: Site, flow: ChannelFlow, where: string): Cause[] | undefined {
  const nil = flow.origins.filter((o) => o.kind === 'nil' && o.file && o.node);
  const confirmed = s.waitKind === 'blocked-forever';
  if (nil.length === 0 || (!confirmed && nil.length < flow.origins.length)) return undefined;
  const sure = nil.length === 1 || nil.length === flow.origins.length;
  return nil.map((o) =>
    cause('nil-channel', o.file!, o.node!, `The channel is nil here (${o.node!.type === 'composite_literal' ? 'this literal leaves the field unset' : 'declared without make(chan …) or set to nil'}); every send and receive on a nil channel blocks forever, including ${where}. Create it with make(chan …).`, lower(sure ? 'high' : 'medium', o.exact), ancestors(o.node!).find((a) => FUNC_TYPES.has(a.type))),
  );
}

export function explainSend(s: Site, send: Node): SiteResult {
  const tracer = new ChannelTracer(s.ws, s.hint);
  const flow = tracer.trace(s.file, send.childForFieldName('channel')!);
  const nil = nilCauses(s, flow, `the send at ${at(s.file, send)}`);
  if (nil) return { causes: nil, warnings: [], found: true };
  const blocked = opAt(flow, s, send, 'send');
  const bare = blocked.select === undefined;
  const recvs = flow.ops.filter((o) => o.kind === 'recv' || o.kind === 'range');
  const ok = okBindings(recvs);
  const make = makeOrigin(flow);
  const unbuffered = make?.capacity === '' || make?.capacity === '0';
  const causes: Cause[] = [];
  let gaveUp = false;
  let cancelled = false;
  const where = `the send at ${at(s.file, send)}`;

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
  const starts = sends
    .map((o) => [{ file: o.file, node: o.node }, ...[...o.trail].reverse()].find((a) => a.file.rel === r.file.rel && contains(fn, a.node))?.node)
    .filter((n): n is Node => !!n && n.startIndex < r.node.startIndex);
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
