/**
 * Inside a stage the imports are one-way too. No stage folder of src/ has an import loop, and
 * src/source/ is a stack of layers whose names say the order (see LAYERS): a file imports only from
 * its own layer or the ones below it, and each flow/ file takes the shared types from flow/types.ts.
 */
import { dirname, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/paths.js';
import { importGraph, importLoops, tsFiles } from './import-graph.js';

const SRC = `${REPO}/src`;
const SOURCE = `${SRC}/source`;
/** src/source/ from the bottom up; index.ts (the stage's entry) sits on top of them all. */
const LAYERS = ['syntax', 'workspace', 'flow', 'patterns', 'explain'] as const;

const all = tsFiles(SRC);
const graph = importGraph(all);
const next = (f: string) => (graph.get(f) ?? []).map((e) => e.to);
const rel = (f: string) => relative(REPO, f);

/** A src/source/ file's layer: its position in LAYERS, LAYERS.length for index.ts, -1 for any other place. */
function layerOf(file: string): number {
  const r = relative(SOURCE, file);
  if (r === 'index.ts') return LAYERS.length;
  const folder = r.split(/[\\/]/)[0];
  return r.includes('/') ? (LAYERS as readonly string[]).indexOf(folder) : -1;
}

describe('imports inside a stage', () => {
  it('the loop finder finds loops (a two-file loop, a three-file loop, a self-import) and nothing else', () => {
    const g: Record<string, string[]> = { a: ['b'], b: ['a', 'c'], c: [], d: ['e'], e: ['f'], f: ['d', 'c'], g: ['g'], h: ['a'] };
    expect(importLoops(Object.keys(g), (n) => g[n])).toEqual([['a', 'b'], ['d', 'e', 'f'], ['g']]);
  });

  const stages = [...new Set(all.map((f) => relative(SRC, f).split(/[\\/]/)[0]).filter((s) => !s.endsWith('.ts')))];
  it.each(stages)('src/%s/ has no import loop', (stage) => {
    const files = all.filter((f) => f.startsWith(`${SRC}/${stage}/`));
    expect(importLoops(files, next).map((loop) => loop.map(rel).join(' ↔ '))).toEqual([]);
  });
});

describe('src/source/ layers', () => {
  const files = all.filter((f) => f.startsWith(`${SOURCE}/`));

  it('every file is in a layer folder (or is the entry index.ts)', () => {
    expect(files.filter((f) => layerOf(f) < 0).map(rel)).toEqual([]);
    for (const layer of LAYERS) expect(files.some((f) => f.startsWith(`${SOURCE}/${layer}/`)), layer).toBe(true);
  });

  it('no import runs up a layer', () => {
    const up: string[] = [];
    for (const f of files) {
      for (const e of graph.get(f)!) {
        if (!e.to.startsWith(`${SOURCE}/`)) continue;
        if (layerOf(e.to) > layerOf(f)) up.push(`${rel(f)} imports ${e.spec} (${LAYERS[layerOf(f)] ?? 'index'} → ${LAYERS[layerOf(e.to)] ?? 'index'})`);
      }
    }
    expect(up).toEqual([]);
  });

  it('flow/types.ts is the bottom of flow/: it imports no other flow/ file', () => {
    const types = `${SOURCE}/flow/types.ts`;
    expect(next(types).filter((t) => dirname(t) === dirname(types)).map(rel)).toEqual([]);
  });
});
