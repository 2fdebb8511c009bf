/**
 * What `go tool pprof` prints before a text listing (`File:`, `Build ID:`, `Type:`, `Time:`,
 * `Duration:`, `Active filters:`, `Showing nodes accounting for N, P% of T total`,
 * `Dropped N nodes (cum <= X)`, `Showing top N nodes out of M`) and the `-raw` preamble
 * (`PeriodType: goroutine count`, `Period:`, `Time: 2026-11-30 06:59:13.38 +0000 UTC`). Go 1.19/1.23
 * print `Time: Nov 30, 2026 at 6:59am (UTC)`, Go 1.26 `Time: 2026-11-30 06:59:21 UTC`.
 */

/** The header lines read so far. */
export interface ListingHeader {
  /** At least one header line was seen. */
  present: boolean;
  program?: string;
  /** `Type:` / `PeriodType:` sample type (`goroutine`, `goroutineleak`, `inuse_space`, …). */
  type?: string;
  capturedAt?: string;
  /** `of T total`. */
  total?: number;
  /** `Showing nodes accounting for N`. */
  shown?: number;
  droppedNodes?: number;
  droppedBelow?: number;
  droppedEdges?: number;
  /** `Showing top N nodes out of M`. */
  topNodes?: { shown: number; of: number };
  /** `Active filters:` and the filter lines under it (focus=, ignore=, hide=, …). */
  filters: string[];
  /** `Duration:` of a delta profile. */
  duration?: string;
}

export function newHeader(): ListingHeader {
  return { present: false, filters: [] };
}

/** A count as pprof prints it: `244377`, `244,377`, `1.5k` (scaled units are rounded). */
export function parseCount(s: string): number {
  const m = /^(-?[\d,]*\.?\d+)([kKmMgG]?)$/.exec(s.trim());
  if (!m) return NaN;
  const n = Number(m[1].replace(/,/g, ''));
  const scale = { '': 1, k: 1e3, K: 1e3, m: 1e6, M: 1e6, g: 1e9, G: 1e9 }[m[2]] ?? 1;
  return Math.round(n * scale);
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** `Nov 30, 2026 at 6:59am (UTC)` or `2026-11-30 06:59:21[.nnn] [+0000] UTC` → ISO; undefined for other zones. */
export function parseListingTime(s: string): string | undefined {
  let m = /^(\w{3})\w* (\d{1,2}), (\d{4}) at (\d{1,2}):(\d\d)(am|pm) \(UTC\)$/i.exec(s);
  if (m) {
    const month = MONTHS.indexOf(m[1].toLowerCase());
    if (month < 0) return undefined;
    let hour = Number(m[4]) % 12;
    if (m[6].toLowerCase() === 'pm') hour += 12;
    return iso(Date.UTC(Number(m[3]), month, Number(m[2]), hour, Number(m[5])));
  }
  m = /^(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(\.\d+)?(?: ([+-])(\d\d):?(\d\d))?(?: UTC)?$/.exec(s);
  if (!m || (!/UTC$/.test(s) && m[8] === undefined)) return undefined;
  const ms = m[7] ? Math.floor(Number(m[7]) * 1000) : 0;
  const offset = m[8] ? (m[8] === '-' ? -1 : 1) * (Number(m[9]) * 60 + Number(m[10])) : 0;
  return iso(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), ms) - offset * 60_000);
}

function iso(t: number): string | undefined {
  return Number.isFinite(t) ? new Date(t).toISOString() : undefined;
}

/** Reads `line` into `h` when it is a header line; false otherwise. `inFilters`: the line follows `Active filters:`. */
export function readHeaderLine(line: string, h: ListingHeader): boolean {
  const t = line.trim();
  let m: RegExpExecArray | null;
  if ((m = /^File:\s*(.*)$/.exec(t))) h.program = m[1];
  else if (/^Build ID:/.test(t) || /^Period:\s*\S+$/.test(t) || /^Samples:$/.test(t)) {
    // nothing to keep
  } else if ((m = /^Type:\s*(\S+)$/.exec(t))) h.type = m[1];
  else if ((m = /^PeriodType:\s*(\S+)(?:\s+\S+)?$/.exec(t))) h.type = m[1];
  else if ((m = /^Time:\s*(.+)$/.exec(t))) {
    const at = parseListingTime(m[1]);
    if (at) h.capturedAt = at;
  } else if ((m = /^Duration:\s*(.+)$/.exec(t))) h.duration = m[1];
  else if (/^Active filters:$/.test(t)) h.filters.push('');
  else if (h.filters.length > 0 && (m = /^((?:focus|ignore|hide|show|tagfocus|tagignore|tagshow|taghide|show_from|prune_from)\s*=.*)$/.exec(t))) h.filters.push(m[1]);
  else if ((m = /^Showing nodes accounting for (\S+), [\d.]+% of (\S+) total$/.exec(t))) {
    h.shown = parseCount(m[1]);
    h.total = parseCount(m[2]);
  } else if ((m = /^Dropped (\d+) nodes? \(cum <= (\S+)\)$/.exec(t))) {
    h.droppedNodes = Number(m[1]);
    h.droppedBelow = parseCount(m[2]);
  } else if ((m = /^Dropped (\d+) edges? \(freq <= (\S+)\)$/.exec(t))) h.droppedEdges = Number(m[1]);
  else if ((m = /^Showing top (\d+) nodes out of (\d+)$/.exec(t))) h.topNodes = { shown: Number(m[1]), of: Number(m[2]) };
  else return false;
  h.present = true;
  return true;
}
