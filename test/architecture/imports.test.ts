/**
 * The pipeline is one-way: a stage imports only the model and earlier stages. This scans every
 * import in src/ and fails on one that points downstream (e.g. read importing analyze, or the library
 * importing the CLI).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/paths.js';

const SRC = join(REPO, 'src');
const ORDER = ['model', 'read', 'analyze', 'rules', 'source', 'report', 'cli'] as const;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

function stageOf(file: string): string | undefined {
  const first = relative(SRC, file).split(/[\\/]/)[0];
  return (ORDER as readonly string[]).includes(first) ? first : undefined;
}

describe('src/ imports', () => {
  const all = files(SRC);
  it('finds every stage folder', () => {
    for (const s of ORDER) expect(all.some((f) => stageOf(f) === s), s).toBe(true);
  });

  it('never point downstream', () => {
    const bad: string[] = [];
    for (const file of all) {
      const from = stageOf(file);
      if (!from) continue; // src/index.ts: the library re-exports every stage
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b(?:[^'";]*?\bfrom)?\s*['"](\.[^'"]+)['"]/g)) {
        const target = stageOf(resolve(dirname(file), m[1]));
        if (target && ORDER.indexOf(target as (typeof ORDER)[number]) > ORDER.indexOf(from as (typeof ORDER)[number])) {
          bad.push(`${relative(REPO, file)} imports ${m[1]} (${from} → ${target})`);
        }
      }
      for (const m of text.matchAll(/import\(\s*['"](\.[^'"]+)['"]\s*\)/g)) {
        const target = stageOf(resolve(dirname(file), m[1]));
        if (target && ORDER.indexOf(target as (typeof ORDER)[number]) > ORDER.indexOf(from as (typeof ORDER)[number])) {
          bad.push(`${relative(REPO, file)} imports ${m[1]} lazily (${from} → ${target})`);
        }
      }
    }
    expect(bad).toEqual([]);
  });
});
