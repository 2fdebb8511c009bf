/**
 * `go tool pprof -raw`: `PeriodType: goroutine count`, `Samples:`, the sample type line
 * (`goroutine/count`), one line per sample (`   90: 1 2 3 4`, location ids innermost first) with its
 * labels on the next line (`resource:[configmaps] subscription:[names]`), then `Locations`
 * (`  2: 0x44901d M=1 runtime.goparkunlock /…/proc.go:369:0 s=0` and, for inlined calls, the
 * caller's lines below it), then `Mappings`. Exact stacks with file:line, as the profile holds them.
 */
import type { Frame } from '../../model/dump.js';
import { FrameTable } from '../../model/builder.js';
import { readHeaderLine, type ListingHeader } from './header.js';
import { cellFrame, parseCell, type Cell } from './cells.js';
import type { ListingBody } from './types.js';

const SAMPLE = /^\s*(\d+):((?:\s+\d+)*)\s*$/;
const LOCATION = /^\s*(\d+):\s+(0x[0-9a-fA-F]+)(?:\s+M=\d+)?\s*(.*)$/;
const LABELS = /([^\s:[\]]+):\[([^\]]*)\]/g;

export function readRaw(lines: readonly string[], h: ListingHeader): ListingBody {
  const samples: { count: number; ids: number[]; labels?: Record<string, string> }[] = [];
  const locations = new Map<number, { address: string; cells: Cell[] }>();
  const body: ListingBody = { records: [], warnings: [], lines: false, cut: false };
  let section: 'head' | 'samples' | 'locations' | 'mappings' = 'head';
  let lastLocation: { address: string; cells: Cell[] } | undefined;
  lines.forEach((line, i) => {
    const t = line.trim();
    if (t === '') return;
    if (t === 'Samples:') {
      section = 'samples';
      return;
    }
    if (t === 'Locations') {
      section = 'locations';
      return;
    }
    if (t === 'Mappings') {
      section = 'mappings';
      return;
    }
    if (section === 'mappings') return;
    if (section === 'head') {
      readHeaderLine(line, h);
      return;
    }
    if (section === 'samples') {
      const m = SAMPLE.exec(line);
      if (m) {
        samples.push({ count: Number(m[1]), ids: m[2].trim() === '' ? [] : m[2].trim().split(/\s+/).map(Number) });
        return;
      }
      if (/^[\w.]+\/[\w.]+(?:\s+[\w.]+\/[\w.]+)*$/.test(t)) {
        // The sample type line: `goroutine/count`.
        h.type ??= t.split('/')[0];
        h.present = true;
        return;
      }
      const labels = [...t.matchAll(LABELS)];
      if (labels.length > 0 && samples.length > 0) {
        samples[samples.length - 1].labels = Object.fromEntries(labels.map((l) => [l[1], l[2]]));
        return;
      }
    } else {
      const m = LOCATION.exec(line);
      if (m) {
        lastLocation = { address: m[2], cells: [] };
        locations.set(Number(m[1]), lastLocation);
        const c = parseCell(m[3]);
        if (c) lastLocation.cells.push(c);
        return;
      }
      const c = parseCell(line);
      if (lastLocation && c && /^\s/.test(line)) {
        lastLocation.cells.push(c);
        return;
      }
    }
    body.warnings.push({ severity: 'warning', code: 'unparsed-line', line: i + 1, message: `line ${i + 1} is not part of a -raw listing: ${JSON.stringify(t.slice(0, 80))}` });
  });

  const table = new FrameTable();
  let missing = 0;
  for (const s of samples) {
    const frames: Frame[] = [];
    let partial = false;
    for (const id of s.ids) {
      const loc = locations.get(id);
      if (!loc) {
        partial = true;
        missing++;
        continue;
      }
      if (loc.cells.length === 0) frames.push(table.frame(loc.address, '', '', 0, false));
      // pprof lists a location's inlined callees first and the physical frame last.
      loc.cells.forEach((c, k) => {
        if (c.line > 0) body.lines = true;
        frames.push(cellFrame(table, c, k < loc.cells.length - 1));
      });
    }
    body.records.push({ count: s.count, frames, ...(s.labels ? { labels: s.labels } : {}), ...(partial ? { partial } : {}) });
  }
  const ended = section as string;
  if (missing > 0) {
    body.cut = ended !== 'mappings';
    body.warnings.push({ severity: 'warning', code: 'missing-locations', message: `${missing} location ids of the samples are not listed under Locations (the listing was cut?): those frames are missing` });
  } else if (ended !== 'mappings' && ended !== 'locations') body.cut = samples.length > 0;
  return body;
}
