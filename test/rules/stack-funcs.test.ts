/**
 * The rules' set of functions on the stacks of an analysis (`stackFuncs`) comes from the frames the
 * analysis classified when `analyze` made it (analyze's `stackFunctions`), not from a pass over every
 * frame of every group: it must be that set, on every sample and corpus dump, at both levels.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze, stackFunctions } from '../../src/analyze/index.js';
import type { Analysis } from '../../src/analyze/types.js';
import { stackFuncs } from '../../src/rules/frames.js';
import { CORPUS, SAMPLES, corpusAvailable, filesUnder } from '../helpers/paths.js';
import { snapshotsOf } from '../helpers/snapshots.js';

const framesFuncs = (a: Analysis) => new Set(a.groups.flatMap((g) => g.frames.map((f) => f.func)));

describe('stack functions of an analysis', () => {
  it('are the functions of every frame of every group', async () => {
    // Dumps in every format the reader takes, not the samples' expectations and manifests.
    const dumps = /^(?!expected|dumps\.json|package).*\.(txt|pb\.gz|json|jsonl|log)$/;
    const paths = ['servers', 'deadlocks', 'apiproxy-leak', 'go-versions'].flatMap((d) => filesUnder(join(SAMPLES, d), dumps));
    if (corpusAvailable()) paths.push(...filesUnder(CORPUS, dumps));
    let n = 0;
    for await (const { snapshot: s } of snapshotsOf(paths)) {
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
    expect(n).toBeGreaterThan(50);
  });
});
