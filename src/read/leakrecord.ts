/**
 * The goroutine records of leak checkers, which print a line of their own before (or instead of) the
 * runtime's `goroutine N [state]:` header:
 *
 * - go.uber.org/goleak, older: `[Goroutine 19 in state chan send, with F on top of the stack:` then the
 *   runtime's header and stack, then `]`;
 * - goleak, newer: ` Goroutine 13 in state chan send, 1 minutes, with F on top of the stack:` then the
 *   stack WITHOUT a header: the record line is the only header the goroutine has;
 * - tchannel-go's verifier: `Found leaked goroutine: Goroutine 1306 in state IO wait:` then the header.
 */

export interface LeakRecord {
  /** Where the record starts in the line (its `[` when it has one). */
  readonly offset: number;
  /** It opens goleak's list (`[Goroutine …`), which a `]` line closes. */
  readonly opensList: boolean;
  readonly id: number;
  /** The state as a header would print it (`chan send, 1 minutes`); '' when the line was cut inside it. */
  readonly status: string;
}

const RECORD = /(\[?)Goroutine (\d+) in state /;

export function parseLeakRecord(line: string): LeakRecord | undefined {
  const k = line.indexOf('Goroutine ');
  if (k < 0) return undefined;
  const m = RECORD.exec(line.slice(k > 0 && line.charCodeAt(k - 1) === 91 ? k - 1 : k));
  if (!m || m.index !== 0) return undefined;
  const offset = m[1] ? k - 1 : k;
  // Only text a report puts before a record: start of line, a log prefix ending in a blank or `: `.
  if (offset > 0 && !/[\s:]$/.test(line.slice(0, offset))) return undefined;
  const rest = line.slice(offset + m[0].length);
  const w = rest.indexOf(', with ');
  let status: string;
  if (w >= 0) status = rest.slice(0, w);
  else if (/:\s*$/.test(rest)) status = rest.replace(/:\s*$/, '');
  else status = '';
  return { offset, opensList: m[1] === '[', id: parseInt(m[2], 10), status };
}

/** The runtime header the record stands for: `goroutine 13 [chan send, 1 minutes]:`. */
export function recordHeader(r: LeakRecord): string {
  return `goroutine ${r.id} [${r.status}]:`;
}
