/**
 * `go tool pprof -traces`: each sample as its labels, then `count   innermost-frame` and the caller
 * frames one per line, closed by `-----------+------…`. Exact stacks; file:line only with `-lines`.
 * Pasted without indentation it still reads: a frame line never starts with a count followed by blanks.
 */
import { FrameTable } from '../../model/builder.js';
import { parseCount, readHeaderLine, type ListingHeader } from './header.js';
import { SEPARATOR, cellFrame, parseCell } from './cells.js';
import type { ListingBody, ListingRecord } from './types.js';

const COUNT_LINE = /^\s*(\d[\d,.]*[kKmMgG]?)\s+(\S.*)$/;
/** `  resource:  configmaps` (pprof right-aligns the key to 10 columns). */
const LABEL_LINE = /^\s*([^\s:]+):\s+(.*)$/;

export function readTraces(lines: readonly string[], h: ListingHeader): ListingBody {
  const table = new FrameTable();
  const records: ListingRecord[] = [];
  const body: ListingBody = { records, warnings: [], lines: false, cut: false };
  let labels: Record<string, string> | undefined;
  let cur: ListingRecord | undefined;
  let sawSeparator = false;
  const close = (): void => {
    if (cur) records.push(cur);
    cur = undefined;
    labels = undefined;
  };
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    if (SEPARATOR.test(line)) {
      close();
      sawSeparator = true;
      return;
    }
    if (!cur && !sawSeparator && readHeaderLine(line, h)) return;
    const m = COUNT_LINE.exec(line);
    const count = m ? parseCount(m[1]) : NaN;
    if (m && Number.isSafeInteger(count) && !/^\d+:/.test(line.trim())) {
      // A new sample even without the separator before it (a paste that lost it).
      const keep = labels;
      close();
      const c = parseCell(m[2]);
      if (!c) return;
      cur = { count, frames: [cellFrame(table, c)], ...(keep ? { labels: keep } : {}) };
      if (c.line > 0) body.lines = true;
      return;
    }
    const l = LABEL_LINE.exec(line);
    if (l && !l[1].includes('.')) {
      // Labels open the next sample (a function name always has a '.').
      if (cur) close();
      labels = { ...(labels ?? {}), [l[1]]: l[2].trim() };
      return;
    }
    const c = parseCell(line);
    if (cur && c) {
      cur.frames.push(cellFrame(table, c));
      return;
    }
    body.warnings.push({ severity: 'warning', code: 'unparsed-line', line: i + 1, message: `line ${i + 1} is not part of a -traces listing: ${JSON.stringify(line.trim().slice(0, 80))}` });
  });
  if (cur) {
    // Every sample ends with a separator: without one the paste was cut inside this stack.
    cur.partial = true;
    body.cut = true;
    close();
  }
  return body;
}
