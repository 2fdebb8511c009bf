/**
 * A checkout that does not match the dump is said so, per frame (a line past the end, blank, a
 * comment, outside every function), and what the source adds is less sure; a matching one is not.
 */
import { describe, expect, it } from 'vitest';
import { explainWithSource } from '../../src/source/index.js';
import { findingAt, fixture } from './helpers.js';

const fx = fixture('early-return-consumer', 'consumer.go');
const at = (callerLine: number) =>
  findingAt({ file: fx.printed, line: 19, waitKind: 'chan-send', func: 'fixture.emit', callers: [{ func: 'fixture.produce.func1', file: fx.printed, line: callerLine }] });

describe('source that does not match the dump', () => {
  it('a matching stack: the early return, high confidence, no mismatch note', async () => {
    const r = await explainWithSource([at(12)], [], { sourceDir: fx.dir });
    expect(r.warnings.join('\n')).not.toMatch(/does not match/);
    expect(r.findings[0].causeLocations?.[0]).toMatchObject({ line: 26, kind: 'consumer-exit', confidence: 'high' });
  });

  it.each([
    [17, /line 17 is blank/],
    [5, /line 5 is outside any function/],
    [40, /line 40 is past the end/],
  ])('a caller frame at line %i: named, and the cause is one level less sure', async (line, why) => {
    const r = await explainWithSource([at(line)], [], { sourceDir: fx.dir });
    const note = r.warnings.find((w) => w.includes('does not match'));
    expect(note).toMatch(/^source: the source does not match the dump at consumer\.go \(/);
    expect(note).toMatch(why);
    const f = r.findings[0];
    expect(f.causeLocations?.[0]).toMatchObject({ line: 26, confidence: 'medium' });
    expect(f.evidence.facts.join('\n')).toMatch(/the source does not match the dump at consumer\.go .*confidence lowered/);
  });

  it('a comment line', async () => {
    const fx2 = fixture('early-return-consumer', 'consumer.go');
    const f = findingAt({ file: fx2.printed, line: 19, waitKind: 'chan-send', func: 'fixture.emit', callers: [{ func: 'fixture.Consume', file: fx2.printed, line: 26 }] });
    // line 26 is code with a trailing comment: not a comment line
    const r = await explainWithSource([f], [], { sourceDir: fx2.dir });
    expect(r.warnings.join('\n')).not.toMatch(/is a comment/);
  });
});
