/**
 * A small offset (comment lines added above a function since the build) is re-aligned when every
 * frame of that function fits at one offset; said so, and the causes keep their confidence.
 * Anything else keeps the "does not match" note (mismatch.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { explainWithSource } from '../../src/source/index.js';
import { findingAt, fixture } from './helpers.js';

describe('re-aligning a small offset', () => {
  it('two comment lines above emit: the send at dump line 19 is re-aligned by +2, the early return stays high', async () => {
    const fx = fixture('realigned-consumer', 'consumer.go');
    const f = findingAt({ file: fx.printed, line: 19, waitKind: 'chan-send', func: 'fixture.emit', callers: [{ func: 'fixture.produce.func1', file: fx.printed, line: 12 }] });
    const r = await explainWithSource([f], [], { sourceDir: fx.dir });
    const notes = r.warnings.join('\n');
    expect(notes).not.toMatch(/does not match/);
    expect(notes).toMatch(/re-aligned consumer\.go by \+2 lines in emit \(dump line 19 → 21\)/);
    const out = r.findings[0];
    expect(out.causeLocations?.[0]).toMatchObject({ line: 28, kind: 'consumer-exit', confidence: 'high' });
    expect(out.evidence.facts.join('\n')).toMatch(/re-aligned consumer\.go by \+2/);
    expect(out.confidence).toBe(f.confidence);
  });

  it('no offset fits (the blank line of the original fixture): the mismatch stands', async () => {
    const fx = fixture('early-return-consumer', 'consumer.go');
    const f = findingAt({ file: fx.printed, line: 19, waitKind: 'chan-send', func: 'fixture.emit', callers: [{ func: 'fixture.produce.func1', file: fx.printed, line: 17 }] });
    const r = await explainWithSource([f], [], { sourceDir: fx.dir });
    expect(r.warnings.join('\n')).toMatch(/does not match the dump at consumer\.go \(line 17 is blank/);
    expect(r.warnings.join('\n')).not.toMatch(/re-aligned/);
  });

  it('a blocking line with neither the operation nor a call (`}`) is re-aligned too when one offset fits', async () => {
    const fx = fixture('realigned-consumer', 'consumer.go');
    // dump line 22 is the closing `}` of emit here: the send is one line above.
    const f = findingAt({ file: fx.printed, line: 22, waitKind: 'chan-send', func: 'fixture.emit', callers: [{ func: 'fixture.produce.func1', file: fx.printed, line: 12 }] });
    const r = await explainWithSource([f], [], { sourceDir: fx.dir });
    expect(r.warnings.join('\n')).toMatch(/re-aligned consumer\.go by -1 line in emit \(dump line 22 → 21\)/);
    expect(r.findings[0].causeLocations?.[0]).toMatchObject({ line: 28, kind: 'consumer-exit', confidence: 'high' });
  });
});
