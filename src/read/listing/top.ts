/**
 * `go tool pprof -top` / `-top -cum` (`flat flat% sum% cum cum% name` per function), and the same
 * numbers as people paste them into an issue: columns re-spaced, the header lost, the listing cut, or
 * only `count function` pairs in a markdown list (`- 113097 \`runtime.chansend1\``, one count per
 * line, several functions sharing it: `- 111935 each for \`a\`, \`b\` and \`c\``). A lone count is a
 * cumulative count (what `-top -cum` sorts by, and what people quote). No stacks: infer.ts guesses them.
 */
import { parseCount, readHeaderLine, type ListingHeader } from './header.js';
import { parseCell } from './cells.js';
import type { ListingBody } from './types.js';
import { inferChains, type FunctionTotal } from './infer.js';

const ROW = /^\s*(\S+)\s+([\d.]+)%\s+([\d.]+)%\s+(\S+)\s+([\d.]+)%\s+(\S.*)$/;
const COLUMNS = /^\s*flat\s+flat%\s+sum%\s+cum\s+cum%\s*$/;
/** `- 113097 \`runtime.chansend1\``, `113097 runtime.chansend1`, `* 244,377 runtime.gopark (total)`. */
const LOOSE = /^\s*(?:[-*+•]\s+|\d+[.)]\s+)?(\d[\d,]*)\s+(.*)$/;
/** A function name as pprof prints it (package path, receiver, closures, generics). */
const FUNC = /^(?:[\w.\-~]+\/)*[\w\-~]+(?:\.[\w.*()[\]\-,~]+)+$/;

export function readTop(lines: readonly string[], h: ListingHeader): ListingBody {
  const totals = new Map<string, FunctionTotal>();
  const body: ListingBody = { records: [], warnings: [], lines: false, cut: false };
  let last: string[] = [];
  let prose = 0;
  const put = (t: FunctionTotal): void => {
    const had = totals.get(t.func);
    if (!had || t.cum >= had.cum) totals.set(t.func, t);
  };
  lines.forEach((line, i) => {
    if (line.trim() === '' || COLUMNS.test(line)) {
      last = [];
      return;
    }
    if (readHeaderLine(line, h)) return;
    let m = ROW.exec(line);
    if (m) {
      const c = parseCell(m[6]);
      const flat = parseCount(m[1]);
      const cum = parseCount(m[4]);
      if (c && Number.isFinite(flat) && Number.isFinite(cum)) {
        // With -lines a function has a row per line (disjoint goroutines): summed, as the chains keep functions only.
        const had = c.line > 0 ? totals.get(c.func) : undefined;
        if (had) totals.set(c.func, { ...had, flat: (had.flat ?? 0) + flat, cum: had.cum + cum, inline: had.inline && c.inline });
        else put({ func: c.func, flat, cum, inline: c.inline });
        last = [];
        return;
      }
    }
    m = LOOSE.exec(line);
    if (m) {
      const names = functionNames(m[2]);
      const cum = parseCount(m[1]);
      if (names.length > 0 && Number.isFinite(cum)) {
        const shared = names.map((n) => n.func);
        for (const n of names) put({ func: n.func, cum, inline: n.inline, loose: shared });
        last = shared;
        return;
      }
    }
    // A continuation of a list item (`  \`watch.func1\``): more functions sharing its count.
    if (last.length > 0 && /^\s+\S/.test(line)) {
      const names = functionNames(line);
      const cum = totals.get(last[0])!.cum;
      if (names.length > 0) {
        last = last.concat(names.map((n) => n.func));
        for (const n of names) put({ func: n.func, cum, inline: n.inline, loose: last });
        for (const f of last) put({ ...totals.get(f)!, loose: last });
        return;
      }
    }
    last = [];
    if (totals.size === 0) {
      // Text before the listing (the sentence that introduced a paste): skipped, said once below.
      prose++;
      return;
    }
    if (i === lines.length - 1 || lines.slice(i + 1).every((l) => l.trim() === '')) body.cut = true;
    body.warnings.push({ severity: 'warning', code: 'unparsed-line', line: i + 1, message: `line ${i + 1} is not part of a -top listing: ${JSON.stringify(line.trim().slice(0, 80))}` });
  });
  if (prose > 0) body.warnings.push({ severity: 'info', code: 'listing-preamble', message: `${prose} lines of text before the listing were skipped` });
  qualifyShortNames(totals);
  inferChains([...totals.values()], h, body);
  return body;
}

/** The functions named in a loose row: its backquoted names, else its first word. */
function functionNames(text: string): { func: string; inline: boolean }[] {
  const quoted = [...text.matchAll(/`([^`]+)`(\s*\(inline\))?/g)];
  const cells = quoted.length > 0 ? quoted.map((q) => `${q[1]}${q[2] ?? ''}`) : [text.replace(/\s*\((?!inline\))[^)]*\)\s*$/, '')];
  const out: { func: string; inline: boolean }[] = [];
  for (const t of cells) {
    const c = parseCell(t);
    if (c && FUNC.test(c.func)) out.push({ func: c.func, inline: c.inline });
  }
  return out;
}

/**
 * A name quoted short (`listAndWatch.func3` next to `proxy.(*Store).listAndWatch`): completed from a
 * listed function whose last element it starts with, else from the package and receiver of the
 * qualified names quoted with it. Names pprof printed are never changed (they carry a package).
 */
function qualifyShortNames(totals: Map<string, FunctionTotal>): void {
  for (const t of [...totals.values()]) {
    const pkg = t.loose ? /^(\w+)\./.exec(t.func)?.[1] : undefined;
    const module = pkg ? WELL_KNOWN[pkg] : undefined;
    if (module && !totals.has(`${module}${t.func.slice(pkg!.length)}`)) {
      totals.delete(t.func);
      totals.set(`${module}${t.func.slice(pkg!.length)}`, { ...t, func: `${module}${t.func.slice(pkg!.length)}` });
    }
  }
  const all = [...totals.values()];
  const qualified = all.filter((t) => t.func.includes('/') || /^[a-z0-9_]+\./.test(t.func) && !/^[a-z]\w*\.func\d/.test(t.func));
  for (const t of all) {
    if (qualified.includes(t) || !t.loose) continue;
    const first = t.func.split('.')[0];
    const base = qualified.find((q) => lastElement(q.func) === first);
    let full: string | undefined = base ? `${base.func}${t.func.slice(first.length)}` : undefined;
    if (!full) {
      const sibling = t.loose.map((s) => totals.get(s)).find((s) => s && qualified.includes(s));
      const prefix = sibling ? sibling.func.slice(0, sibling.func.length - lastElement(sibling.func).length) : '';
      if (prefix) full = `${prefix}${t.func}`;
    }
    if (full && !totals.has(full)) {
      totals.delete(t.func);
      totals.set(full, { ...t, func: full });
    }
  }
}

/** Packages quoted by their last element that are not the program's own: the x/sync ones. */
const WELL_KNOWN: Record<string, string> = {
  errgroup: 'golang.org/x/sync/errgroup',
  semaphore: 'golang.org/x/sync/semaphore',
  singleflight: 'golang.org/x/sync/singleflight',
};

/** `proxy.(*Store).listAndWatch` → `listAndWatch`. */
function lastElement(func: string): string {
  const i = Math.max(func.lastIndexOf('.'), func.lastIndexOf(')'));
  return func.slice(i + 1);
}
