/** What the channel explanations (send.ts, receive.ts) both say: where the channel was made, and that it is nil. */
import type { ChannelFlow } from '../flow/types.js';
import { makeOrigin } from '../patterns/channel-ops.js';
import { ancestors, FUNC_TYPES } from '../syntax/tree.js';
import { at, cause, lower, type Cause, type Site } from './cause.js';

/** Where the channel was made, for messages. */
export function madeAt(flow: ChannelFlow): string {
  const m = makeOrigin(flow);
  return m?.file && m.node ? ` (created at ${at(m.file, m.node)})` : '';
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
