/**
 * Blocked selects (each case's channel; no cancellation case; `select {}`), and goroutines the
 * runtime reports as blocked forever (`select {}`, or a send or receive on a nil channel).
 */
import { receiveAt, selectAt, sendAt } from '../patterns/channel-ops.js';
import { isCancelRecv, isTimerRecv } from '../patterns/exits.js';
import { kids, lineOf, type Node } from '../syntax/parser.js';
import { ancestors } from '../syntax/tree.js';
import { explainUncalledCancel } from './cancel.js';
import { cause, lower, type Cause, type Site, type SiteResult } from './cause.js';
import { explainReceive } from './receive.js';
import { explainSend, explainSendAt } from './send.js';

export function explainSelect(s: Site): SiteResult {
  const sel = selectAt(s.file.root, s.line);
  if (!sel) return { causes: [], warnings: [], found: false };
  const cases = kids(sel).filter((k) => k.type === 'communication_case' || k.type === 'default_case');
  if (cases.length === 0) return forever(s, sel);
  const causes: Cause[] = [];
  let cancel = false;
  let deadCancel = false;
  const live = cases.filter((c) => c.type === 'communication_case');
  for (const c of live) {
    const comm = c.childForFieldName('communication')!;
    if (comm.type === 'send_statement') {
      causes.push(...explainSendAt({ ...s, line: lineOf(comm), waitKind: 'chan-send' }).causes.map((x) => (live.length > 1 ? { ...x, confidence: lower(x.confidence, false) } : x)));
      continue;
    }
    const rv = comm.childForFieldName('right');
    if (rv && isCancelRecv(rv)) {
      const dead = explainUncalledCancel(s, rv);
      causes.push(...dead);
      if (dead.length === 0) cancel = true;
      else deadCancel = true;
      continue;
    }
    if (rv && isTimerRecv(rv)) {
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
  if (deadCancel) return { causes, warnings: [], found: true };
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
  const sel = selectAt(s.file.root, s.line);
  if (sel && kids(sel).length === 0) return forever(s, sel);
  const send = sendAt(s.file.root, s.line);
  if (send) return explainSend(s, send);
  const r = receiveAt(s.file.root, s.line);
  if (r) return explainReceive(s, r);
  return sel ? explainSelect(s) : { causes: [], warnings: [], found: false };
}
