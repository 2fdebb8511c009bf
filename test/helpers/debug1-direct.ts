/**
 * Reads debug=1 profiles from text straight through Debug1Reader, doing the little the text
 * dispatcher (src/read/text.ts) does for them: find `<name> profile: total N` headers, create the
 * builder, feed the following lines until the reader refuses one. Lets the debug=1 reader be tested on
 * real dumps on its own; readDump-level tests cover the dispatcher.
 */
import { SnapshotBuilder } from '../../src/model/builder.js';
import type { ProfileKind, Snapshot } from '../../src/model/dump.js';
import { Debug1Reader, parseProfileHeader } from '../../src/read/debug1.js';

export function readDebug1Direct(source: string, text: string, truncated = false): Snapshot[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const out: Snapshot[] = [];
  let b: SnapshotBuilder | undefined;
  let r: Debug1Reader | undefined;
  const close = (t: boolean): void => {
    r!.end(t);
    out.push(b!.build());
    r = undefined;
    b = undefined;
  };
  lines.forEach((line, i) => {
    const no = i + 1;
    if (r) {
      if (r.line(line, no)) return;
      close(false);
    }
    const h = parseProfileHeader(line);
    if (h) {
      b = new SnapshotBuilder({ source, index: out.length, format: 'debug1', profile: h.profile as ProfileKind, declaredTotal: h.total, firstLine: no });
      r = new Debug1Reader(b);
    }
  });
  if (r) close(truncated);
  return out;
}
