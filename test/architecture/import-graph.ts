/** The relative imports between the files of src/, as a graph, and the two checks made on it. */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** An import written in `from`: the specifier and the file it names. */
export interface ImportEdge {
  readonly spec: string;
  readonly to: string;
  readonly lazy: boolean;
}

export function tsFiles(dir: string): string[] {
  return readdirSync(dir).sort().flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The file an import specifier names: `./x.js` → `./x.ts`, a folder → its index.ts. */
function target(from: string, spec: string): string {
  const p = resolve(dirname(from), spec).replace(/\.js$/, '.ts');
  return !existsSync(p) && existsSync(join(p.replace(/\.ts$/, ''), 'index.ts')) ? join(p.replace(/\.ts$/, ''), 'index.ts') : p;
}

/** Relative imports and re-exports of each file (`import type` included: a type loop is a loop too). */
export function importGraph(files: readonly string[]): Map<string, ImportEdge[]> {
  const graph = new Map<string, ImportEdge[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const edges: ImportEdge[] = [];
    for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b(?:[^'";]*?\bfrom)?\s*['"](\.[^'"]+)['"]/g)) edges.push({ spec: m[1], to: target(file, m[1]), lazy: false });
    for (const m of text.matchAll(/import\(\s*['"](\.[^'"]+)['"]\s*\)/g)) edges.push({ spec: m[1], to: target(file, m[1]), lazy: true });
    graph.set(file, edges);
  }
  return graph;
}

/**
 * The import loops among `nodes` (edges to other files ignored): each strongly connected group of
 * two or more files (or one file importing itself), as its files sorted. Tarjan's algorithm.
 */
export function importLoops(nodes: readonly string[], next: (n: string) => readonly string[]): string[][] {
  const inside = new Set(nodes);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const loops: string[][] = [];
  let counter = 0;
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next(v)) {
      if (!inside.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || next(v).includes(v)) loops.push(group.sort());
  };
  for (const n of nodes) if (!index.has(n)) visit(n);
  return loops;
}
