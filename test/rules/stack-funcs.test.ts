/**
 * The rules' set of functions on the stacks of an analysis (`stackFuncs`) comes from the frames the
 * analysis classified when `analyze` made it (analyze's `stackFunctions`), not from a pass over every
 * frame of every group: it must be that set, on every sample and corpus dump, at both levels.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze, stackFunctions } from '../../src/analyze/index.js';
import type { Analysis } from '../../src/analyze/types.js';
import { readDump } from '../../src/read/index.js';
import { stackFuncs } from '../../src/rules/frames.js';
import { CORPUS, SAMPLES, corpusAvailable } from '../helpers/paths.js';

function files(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...files(p));
    else if (/\.(txt|pb\.gz|json|jsonl|log)$/.test(e) && !/expected|dumps\.json|package/.test(e)) out.push(p);
  }
  return out;
}

const framesFuncs = (a: Analysis) => new Set(a.groups.flatMap((g) => g.frames.map((f) => f.func)));

describe('stack functions of an analysis', () => {
  it('are the functions of every frame of every group', async () => {
    const paths = [...files(join(SAMPLES, 'servers')), ...files(join(SAMPLES, 'deadlocks')), ...files(join(SAMPLES, 'apiproxy-leak')), ...files(join(SAMPLES, 'go-versions'))];
    if (corpusAvailable()) paths.push(...files(CORPUS));
    let n = 0;
    for (const p of paths) {
      const dump = await readDump(p).catch(() => undefined);
      for (const s of dump?.snapshots ?? []) {
        for (const level of ['exact', 'functions'] as const) {
          const a = analyze(s, { level });
          const want = framesFuncs(a);
          expect(stackFunctions(a)).toEqual(want);
          expect(stackFuncs(a)).toEqual(want);
          // An analysis analyze did not make (here a copy) gets the pass over its frames.
          const copy = { ...a };
          expect(stackFunctions(copy)).toBeUndefined();
          expect(stackFuncs(copy)).toEqual(want);
          n++;
        }
      }
    }
    expect(n).toBeGreaterThan(50);
  });
});
