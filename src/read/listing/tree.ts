/**
 * `go tool pprof -tree` and `-peek REGEX`: one block per function between `------…+-------------`
 * separators: its callers (`   380 35.85% |   runtime.chanrecv`), the function itself
 * (`flat flat% sum% cum cum% | name`), then its callees. No stacks: the chains are rebuilt from the
 * edges, from each parked leaf up to a root, sharing each edge's count out as it goes (exact when
 * every function sits on one call path; where paths cross, the split at the crossing is a guess).
 */
import type { Frame } from '../../model/dump.js';
import { FrameTable } from '../../model/builder.js';
import { parseCount, readHeaderLine, type ListingHeader } from './header.js';
import { SEPARATOR, cellFrame, parseCell, type Cell } from './cells.js';
import type { ListingBody } from './types.js';

const NODE = /^\s*(\S+)\s+[\d.]+%\s+[\d.]+%\s+(\S+)\s+[\d.]+%\s+\|\s*(\S.*)$/;
const EDGE = /^\s*(\S+)\s+[\d.]+%\s+\|\s*(\S.*)$/;
const COLUMNS = /^\s*flat\s+flat%\s+sum%\s+cum\s+cum%/;

interface Node {
  cell: Cell;
  flat: number;
  cum: number;
}
interface Edge {
  caller: string;
  callee: string;
  weight: number;
  /** The callee was inlined into the caller. */
  inline: boolean;
}

export function readTree(lines: readonly string[], h: ListingHeader): ListingBody {
  const nodes = new Map<string, Node>();
  const edges = new Map<string, Edge>();
  const body: ListingBody = { records: [], warnings: [], lines: false, cut: false };
  let block: { before: Cell[]; weights: number[]; node?: string } | undefined;
  let inBody = false;
  const addEdge = (caller: string, callee: string, weight: number, inline: boolean): void => {
    const key = `${caller}\u0000${callee}`;
    if (!edges.has(key)) edges.set(key, { caller, callee, weight, inline });
  };
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    if (SEPARATOR.test(line)) {
      inBody = true;
      if (block && !block.node && block.before.length > 0) body.cut = true;
      block = { before: [], weights: [] };
      return;
    }
    if (COLUMNS.test(line)) return;
    if (!inBody && readHeaderLine(line, h)) return;
    let m = NODE.exec(line);
    if (m && block) {
      const cell = parseCell(m[3]);
      if (!cell) return;
      if (cell.line > 0) body.lines = true;
      const name = key(cell);
      nodes.set(name, { cell, flat: parseCount(m[1]), cum: parseCount(m[2]) });
      block.node = name;
      block.before.forEach((c, k) => addEdge(key(c), name, block!.weights[k], c.inline));
      return;
    }
    m = EDGE.exec(line);
    if (m && block) {
      const cell = parseCell(m[2]);
      const weight = parseCount(m[1]);
      if (!cell || !Number.isFinite(weight)) return;
      if (block.node) addEdge(block.node, key(cell), weight, cell.inline);
      else {
        block.before.push(cell);
        block.weights.push(weight);
      }
      return;
    }
    body.warnings.push({ severity: 'warning', code: 'unparsed-line', line: i + 1, message: `line ${i + 1} is not part of a -tree/-peek listing: ${JSON.stringify(line.trim().slice(0, 80))}` });
  });
  if (block && (block.before.length > 0 || block.node) && lines.filter((l) => l.trim() !== '').length > 0 && !SEPARATOR.test(lastNonBlank(lines))) body.cut = true;
  rebuild(nodes, [...edges.values()], body);
  return body;
}

function key(c: Cell): string {
  return c.line > 0 ? `${c.func} ${c.file}:${c.line}` : c.func;
}

function lastNonBlank(lines: readonly string[]): string {
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i].trim() !== '') return lines[i];
  return '';
}

/**
 * Chains from the edges: from every function with a flat count (where goroutines park: gopark, or the
 * profiler's own frame), walk up the callers, sharing the count among them by what each edge still
 * carries; a function whose callers are used up (or that has none) is where those goroutines start.
 */
function rebuild(nodes: Map<string, Node>, edges: Edge[], body: ListingBody): void {
  const table = new FrameTable();
  const callers = new Map<string, Edge[]>();
  for (const e of edges) {
    const l = callers.get(e.callee) ?? [];
    l.push(e);
    callers.set(e.callee, l);
  }
  const left = new Map<Edge, number>(edges.map((e) => [e, e.weight]));
  const cellOf = (name: string): Cell => nodes.get(name)?.cell ?? parseCell(name)!;
  const emit = (path: { name: string; inline: boolean }[], count: number, partial: boolean): void => {
    const frames: Frame[] = path.map((p) => cellFrame(table, cellOf(p.name), p.inline));
    body.records.push({ count, frames, ...(partial ? { partial } : {}) });
  };
  const walk = (path: { name: string; inline: boolean }[], demand: number, depth: number): void => {
    const top = path[path.length - 1].name;
    const up = (callers.get(top) ?? [])
      .filter((e) => (left.get(e) ?? 0) > 0 && !path.some((p) => p.name === e.caller))
      .sort((a, b) => left.get(b)! - left.get(a)!);
    let rest = demand;
    if (depth < 200) {
      for (const e of up) {
        if (rest <= 0) break;
        const take = Math.min(rest, left.get(e)!);
        left.set(e, left.get(e)! - take);
        const next = path.slice(0, -1).concat({ name: top, inline: e.inline }, { name: e.caller, inline: false });
        walk(next, take, depth + 1);
        rest -= take;
      }
    }
    if (rest > 0) emit(path, rest, false);
  };
  const leaves = [...nodes.entries()].filter(([, n]) => n.flat > 0).sort((a, b) => b[1].flat - a[1].flat);
  for (const [name, n] of leaves) walk([{ name, inline: false }], n.flat, 0);
  if (leaves.length > 0) return;
  // `-peek` of a few functions: no parked leaf is shown. Start from the callees below the shown
  // functions; the frames below them are unknown, so those stacks are partial.
  const before = body.records.length;
  for (const e of edges.filter((x) => !nodes.has(x.callee)).sort((a, b) => b.weight - a.weight)) {
    if ((left.get(e) ?? 0) > 0) walk([{ name: e.callee, inline: false }], left.get(e)!, 0);
  }
  for (let i = before; i < body.records.length; i++) body.records[i].partial = true;
}
