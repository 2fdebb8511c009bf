/**
 * The pipeline is one-way: a stage imports only the model and earlier stages. This scans every
 * import in src/ and fails on one that points downstream (e.g. read importing analyze, or the library
 * importing the CLI).
 */
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/paths.js';
import { importGraph, tsFiles } from './import-graph.js';

const SRC = join(REPO, 'src');
const ORDER = ['model', 'read', 'analyze', 'rules', 'source', 'report', 'cli'] as const;

function stageOf(file: string): string | undefined {
  const first = relative(SRC, file).split(/[\\/]/)[0];
  return (ORDER as readonly string[]).includes(first) ? first : undefined;
}

describe('src/ imports', () => {
  const all = tsFiles(SRC);
  it('finds every stage folder', () => {
    for (const s of ORDER) expect(all.some((f) => stageOf(f) === s), s).toBe(true);
  });

  it('never point downstream', () => {
    const bad: string[] = [];
    for (const [file, edges] of importGraph(all)) {
      const from = stageOf(file);
      if (!from) continue; // src/index.ts: the library re-exports every stage
      for (const e of edges) {
        const target = stageOf(e.to);
        if (target && ORDER.indexOf(target as (typeof ORDER)[number]) > ORDER.indexOf(from as (typeof ORDER)[number])) {
          bad.push(`${relative(REPO, file)} imports ${e.spec}${e.lazy ? ' lazily' : ''} (${from} → ${target})`);
        }
      }
    }
    expect(bad).toEqual([]);
  });
});
