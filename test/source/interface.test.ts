/**
 * A channel passed to an interface method: followed into the implementation when exactly one type of
 * the checkout (test code left out for a call outside it) has the interface's methods; otherwise the
 * candidates are named and none is picked.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { AnalyzedGroup } from '../../src/analyze/types.js';
import { explainWithSource } from '../../src/source/index.js';
import { analyze } from '../../src/analyze/index.js';
import { readDump } from '../../src/read/index.js';
import { runRules } from '../../src/rules/index.js';
import { caseAt, FIXTURES, findingAt, fixture, markers } from './helpers.js';

const stuck = (name: string) => {
  const fx = fixture(name, 'reader.go');
  const m = markers(fx.path);
  const f = findingAt({ file: fx.printed, line: m.BLOCKED[0], waitKind: 'chan-send', func: 'fixture.produce.func1' });
  return { fx, m, f };
};

describe('interface calls on the path', () => {
  it('one implementation (and one in test code): its early return is the cause', async () => {
    const { fx, m, f } = stuck('interface-reader');
    const r = await explainWithSource([f], [], { sourceDir: fx.dir });
    const causes = r.findings[0].causeLocations ?? [];
    expect(causes.map((c) => c.line)).toContain(m.CAUSE[0]);
    expect(causes.every((c) => !c.file.endsWith('_test.go'))).toBe(true);
    expect(r.warnings.join('\n')).not.toMatch(/not certain/);
  });

  it('two implementations: none is picked, and the note names both (not the test one)', async () => {
    const { fx, f } = stuck('interface-readers');
    const r = await explainWithSource([f], [], { sourceDir: fx.dir });
    const causes = r.findings[0].causeLocations ?? [];
    expect(causes.every((c) => !c.file.endsWith('_test.go'))).toBe(true);
    expect(causes.some((c) => c.kind === 'consumer-exit')).toBe(false);
    const note = r.warnings.find((w) => w.includes('not certain'));
    expect(note).toMatch(/^source: the code behind interface reader \(read, called at reader\.go:34\) is not certain: 2 implementations in the checkout: /);
    expect(note).toMatch(/stopper\.read \(reader\.go:12\)/);
    expect(note).toMatch(/drainer\.read \(other\.go:6\)/);
    expect(note).not.toMatch(/fake/);
  });

  it('two implementations, one running in the dump: that one is followed', async () => {
    const fx = fixture('interface-readers', 'reader.go');
    const m = markers(fx.path);
    const { finding, analyses } = caseAt({ file: fx.printed, line: m.BLOCKED[0], waitKind: 'chan-send', func: 'fixture.produce.func1' });
    const reader = { ...analyses[0].groups[0], id: 'g2', waitKind: 'chan-receive' as const, frames: [{ func: 'fixture.stopper.read', pkg: 'fixture', file: fx.printed, line: 13, inlined: false, origin: 'user' as const, index: 0 }] } as AnalyzedGroup;
    const r = await explainWithSource([finding], [{ ...analyses[0], groups: [analyses[0].groups[0], reader] }], { sourceDir: fx.dir });
    expect((r.findings[0].causeLocations ?? []).map((c) => c.line)).toContain(m.CAUSE[0]);
    expect(r.warnings.join('\n')).not.toMatch(/not certain/);
  });

  it('a real Go 1.19 dump (fixtures/iface-real, regenerate.sh): the reader is not running, two implementations: said, none picked', async () => {
    const dir = join(FIXTURES, 'iface-real');
    const d = await readDump(join(dir, 'goroutine.debug2.txt'));
    const analyses = d.snapshots.map((s) => analyze(s));
    const findings = analyses.flatMap((a) => runRules(a));
    const r = await explainWithSource(findings, analyses, { sourceDir: dir });
    expect(r.warnings.join('\n')).toMatch(/interface sink \(consume, called at main\.go:49\) is not certain: 2 implementations in the checkout: stopper\.consume \(main\.go:19\), drainer\.consume \(main\.go:30\)/);
    const causes = r.findings.flatMap((f) => f.causeLocations ?? []);
    expect(causes.some((c) => c.line === 19 || c.line === 22 || c.line === 30)).toBe(false);
  });
});
