/**
 * Leaked locks: for a lock with waiters and no visible holder, the functions that can leave between
 * Lock and Unlock without a defer, ranked timer callback > error branch > other exits; a function
 * that releases on every path, one with a deferred Unlock and a lock helper are never named.
 */
import { describe, expect, it } from 'vitest';
import { explainWithSource } from '../../src/source/index.js';
import { caseAt, fixture, markers } from './helpers.js';

const fx = fixture('leaked-lock', 'store.go');
const m = markers(fx.path);

describe('a lock with waiters and no holder', () => {
  it('names the early exits that leave it locked, the timer callback first', async () => {
    const { finding, analyses } = caseAt({ file: fx.printed, line: m.WAIT[0], waitKind: 'mutex', func: 'example.com/store.(*Store).Get' });
    const r = await explainWithSource([finding], analyses, { sourceDir: fx.dir });
    const causes = r.findings[0].causeLocations ?? [];
    expect(causes.map((c) => c.kind)).toEqual(['lock-leaked', 'lock-leaked', 'lock-leaked']);
    expect(causes.map((c) => c.line).sort((a, b) => a - b)).toEqual([m.LEAKTIMER[0], m.LEAKERR[0], m.LEAKPANIC[0]].sort((a, b) => a - b));
    // Ranked: the timer callback, then the error branch; the surest first.
    expect(causes[0]).toMatchObject({ line: m.LEAKTIMER[0], confidence: 'medium' });
    expect(causes[0].message).toMatch(/in a timer callback/);
    expect(causes[1]).toMatchObject({ line: m.LEAKERR[0] });
    expect(causes[1].message).toMatch(/in an error branch/);
    expect(causes[2].message).toMatch(/panics here/);
    expect(causes[0].excerpt).toMatch(/s\.mu\.Lock\(\)/);
  });

  it('a visible holder (a goroutine inside the critical section): no leak is claimed', async () => {
    const { finding, analyses } = caseAt({ file: fx.printed, line: m.WAIT[0], waitKind: 'mutex', func: 'example.com/store.(*Store).Get' });
    const holder = { ...analyses[0].groups[0], id: 'g2', waitKind: 'chan-send' as const, frames: [{ func: 'example.com/store.(*Store).Put', pkg: 'example.com/store', file: fx.printed, line: m.LEAKERR[0] - 1, inlined: false, origin: 'user' as const, index: 0 }] };
    const r = await explainWithSource([finding], [{ ...analyses[0], groups: [analyses[0].groups[0], holder] }], { sourceDir: fx.dir });
    expect((r.findings[0].causeLocations ?? []).filter((c) => c.kind === 'lock-leaked')).toEqual([]);
  });
});
