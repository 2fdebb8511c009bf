/**
 * Is this text a `go tool pprof` listing, and which? Decided on the first chunk, before any reader
 * runs. Anything a goroutine dump prints (`goroutine N [`, `profile: total N`, debug=1's
 * `N @ 0x…`, a race report) rules a listing out, so dumps keep their readers; a listing is then told
 * by its own marks: `-raw`'s `PeriodType:`/`Samples:`, the `flat flat% sum% cum cum%` columns (with
 * `calls calls% + context` for `-tree`/`-peek`), `-traces`' `-----------+-----` separators, or rows
 * of those columns and `count function` pairs even when the header and column titles were lost.
 */
export type ListingKind = 'top' | 'traces' | 'raw' | 'tree';

/** Marks of a goroutine dump or another text leakscope reads (never a listing). */
const DUMP = /goroutine \d+ (?:\[|gp=)|\bprofile: total \d+|^\s*\d+ @(?: 0x[0-9a-fA-F]+)+\s*$|WARNING: DATA RACE|^\s*#\t0x[0-9a-f]+\t/m;
const TREE_COLUMNS = /flat\s+flat%\s+sum%\s+cum\s+cum%\s+calls\s+calls%/;
const TOP_COLUMNS = /^\s*flat\s+flat%\s+sum%\s+cum\s+cum%\s*$/m;
const TREE_NODE = /^\s*\d[\d.,]*[kKmM]?\s+[\d.]+%\s+[\d.]+%\s+\d[\d.,]*[kKmM]?\s+[\d.]+%\s+\|\s*\S/m;
const TOP_ROW = /^\s*\d[\d.,]*[kKmM]?\s+[\d.]+%\s+[\d.]+%\s+\d[\d.,]*[kKmM]?\s+[\d.]+%\s+[^\s|]/gm;
const SEPARATOR = /^\s*-{3,}\+-{3,}\s*$/m;
const TRACE_COUNT = /^\s*\d[\d,]*\s+(?:[\w.\-~]+\/)*[\w\-~]+\.\S/m;
/** A loose `count function` row naming a function where goroutines park. */
const LOOSE_PARK = /^\s*(?:[-*+•]\s+|\d+[.)]\s+)?\d[\d,]*\s+`?(?:runtime\.(?:gopark|chansend1|chanrecv[12]|selectgo|semacquire1?|netpollblock)|sync\.\(\*(?:WaitGroup|Mutex|RWMutex|Cond)\)\.\w+)\b/m;
const LOOSE_ROW = /^\s*(?:[-*+•]\s+|\d+[.)]\s+)?\d[\d,]*\s+`?(?:[\w.\-~]+\/)*[\w\-~]+\.[\w.*()\-]+/gm;

/** The text holds a goroutine dump (or another text leakscope reads): never a listing. */
export function looksLikeDump(head: string): boolean {
  return DUMP.test(head);
}

export function sniffListing(head: string): ListingKind | undefined {
  if (DUMP.test(head)) return undefined;
  if (/^PeriodType:\s*\S+/m.test(head) || (/^Samples:\s*$/m.test(head) && /^\s*\d+:(?: \d+)+\s*$/m.test(head))) return 'raw';
  if (TREE_COLUMNS.test(head) || (TREE_NODE.test(head) && SEPARATOR.test(head))) return 'tree';
  if (TOP_COLUMNS.test(head) || (head.match(TOP_ROW)?.length ?? 0) >= 2) return 'top';
  if (SEPARATOR.test(head) && TRACE_COUNT.test(head)) return 'traces';
  if (LOOSE_PARK.test(head) && (head.match(LOOSE_ROW)?.length ?? 0) >= 2) return 'top';
  return undefined;
}
