/**
 * Channel findings: find the operation at the blocking site by what the runtime says the goroutine
 * waits on, and hand it to the send (send.ts), receive (receive.ts) or select (select.ts) explanation.
 */
import { receiveAt, sendAt } from '../patterns/channel-ops.js';
import type { Site, SiteResult } from './cause.js';
import { explainReceive } from './receive.js';
import { explainForever, explainSelect } from './select.js';
import { explainSend, explainSendAt } from './send.js';

/** Analyse the channel operation at a blocking site. */
export function explainChannelSite(s: Site): SiteResult {
  const root = s.file.root;
  switch (s.waitKind) {
    case 'chan-send':
      return explainSendAt(s);
    case 'chan-receive': {
      const r = receiveAt(root, s.line);
      return r ? explainReceive(s, r) : { causes: [], warnings: [], found: false };
    }
    case 'select':
      return explainSelect(s);
    case 'blocked-forever':
      return explainForever(s);
    default: {
      const send = sendAt(root, s.line);
      if (send) return explainSend(s, send);
      const r = receiveAt(root, s.line);
      if (r) return explainReceive(s, r);
      return explainSelect(s);
    }
  }
}
