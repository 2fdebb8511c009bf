/**
 * Inside a stage the imports are one-way too. No stage folder of src/ has an import loop, and
 * src/source/ is a stack of layers whose names say the order (see LAYERS): a file imports only from
 * its own layer or the ones below it, and each flow/ file takes the shared types from flow/types.ts.
 * src/read/ is layered the same way, by file (READ_LAYERS): the one path (pipeline.ts) calls the
 * readers below it, the strategies (in parts, on threads, an archive's files) call the path, and only
 * the stage's door (index.ts) chooses among them; nothing inside read/ re-enters through index.ts.
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

/** src/read/ from the bottom up, file by file; a new file must be placed here. */
const READ_LAYERS: readonly (readonly [layer: string, files: readonly string[]])[] = [
  // The formats' readers and what they share: text and protobuf in, snapshot builders out.
  ['formats', ['errors', 'labels', 'lines', 'frame-match-wasm', 'frame-match', 'context', 'excerpt', 'frame', 'leakrecord', 'unwrap', 'debug1', 'race', 'traceback', 'text', 'pprof']],
  // go tool pprof's text listings (-top, -traces, -raw, -tree/-peek), one reader per format.
  ['listings', ['listing/types', 'listing/header', 'listing/cells', 'listing/sniff', 'listing/infer', 'listing/top', 'listing/traces', 'listing/raw', 'listing/tree']],
  // Where bytes come from and how they are undone: files, stdin, URLs, gzip, archives.
  ['sources', ['stream-chunks', 'small-gzip', 'source', 'decompress', 'archive']],
  // A format's reader fed by a byte stream, the options of reading, and what reading one input teaches the next.
  ['inputs', ['options', 'read-cache', 'text-input', 'pprof-input', 'listing/index']],
  // The one path: open → gunzip → sniff → the format's reader.
  ['path', ['pipeline']],
  // Ways of using the path: one file in parts, several on worker threads, the files of an archive.
  ['strategies', ['chunked', 'bundle', 'worker-messages', 'worker', 'parallel']],
  ['door', ['index']],
];
const READ = `${SRC}/read`;

function readLayerOf(file: string): number {
  const name = relative(READ, file).replace(/\.ts$/, '');
  return READ_LAYERS.findIndex(([, files]) => files.includes(name));
}

describe('src/read/ layers', () => {
  const files = all.filter((f) => f.startsWith(`${READ}/`));

  it('every file is in a layer, and every listed file exists', () => {
    expect(files.filter((f) => readLayerOf(f) < 0).map(rel)).toEqual([]);
    const listed = READ_LAYERS.flatMap(([, names]) => names.map((n) => `${READ}/${n}.ts`));
    expect(listed.filter((f) => !files.includes(f)).map(rel)).toEqual([]);
  });

  it('no import runs up a layer (lazy imports included): a strategy never re-enters the path through the door', () => {
    const up: string[] = [];
    for (const f of files) {
      for (const e of graph.get(f)!) {
        if (!e.to.startsWith(`${READ}/`)) continue;
        if (readLayerOf(e.to) > readLayerOf(f)) up.push(`${rel(f)} imports ${e.spec} (${READ_LAYERS[readLayerOf(f)][0]} → ${READ_LAYERS[readLayerOf(e.to)][0]})`);
      }
    }
    expect(up).toEqual([]);
  });

  it('no file of src/read/ imports index.ts, and only index.ts and the strategies import the path', () => {
    const into = (target: string) => files.filter((f) => next(f).includes(`${READ}/${target}.ts`)).map((f) => relative(READ, f)).sort();
    expect(into('index')).toEqual([]);
    expect(into('pipeline')).toEqual(['bundle.ts', 'index.ts', 'worker.ts', 'parallel.ts'].sort());
  });
});
