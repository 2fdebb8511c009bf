/**
 * A finding about one site reached by many stacks has one evidence group and one fact per stack,
 * mostly alike. Their parts are shared instead of made per group: the evidence's site object (one
 * per site frame), `describe`'s text (one per site frame, count and state), and the table report's
 * line of a fact (one per run of equal facts); the further roots described alike are one fact. Each must give what making it anew gives: a group seen through a copy of its site frame
 * (which nothing has been made for yet) is described the same, in any order, and a table report
 * prints every fact as it prints it alone.
 */
import { join } from 'node:path';
import { describe as suite, expect, it } from 'vitest';
import { analyze } from '../../src/analyze/index.js';
import type { AnalyzedGroup } from '../../src/analyze/types.js';
import { readDump } from '../../src/read/index.js';
import { renderTable } from '../../src/report/table.js';
import { describe, evidenceGroup } from '../../src/rules/evidence.js';
import { siteOf } from '../../src/rules/frames.js';
import { candidate, finishCandidate } from '../../src/rules/candidate.js';
import { runRules } from '../../src/rules/index.js';
import { builtinRules } from '../../src/rules/packs.js';
import type { Finding } from '../../src/rules/types.js';
import { CORPUS, SAMPLES, corpusAvailable, filesUnder } from '../helpers/paths.js';
import { snapshotsOf } from '../helpers/snapshots.js';

const DUMPS = /^(?!expected|dumps\.json|package).*\.(txt|pb\.gz|json|jsonl|log)$/;

function dumpPaths(): string[] {
  const paths = ['lock-pileup', 'apiproxy-leak', 'deadlocks', 'servers', 'go-versions'].flatMap((d) => filesUnder(join(SAMPLES, d), DUMPS));
  if (corpusAvailable()) paths.push(...filesUnder(join(CORPUS, 'debug2'), DUMPS));
  return paths;
}

/** `g` with its own copy of its site frame: nothing shared was made for that copy. */
function withFreshSite(g: AnalyzedGroup): AnalyzedGroup {
  const s = siteOf(g);
  if (!s) return g;
  const copy = { ...s };
  return { ...g, blockingSite: copy, frames: g.frames.map((f) => (f === s ? copy : f)) };
}

suite('shared evidence of a finding', () => {
  it('describes each group as it describes it at a site frame of its own, in any order', async () => {
    let n = 0;
    for await (const { snapshot: s } of snapshotsOf(dumpPaths())) {
      const a = analyze(s);
      const fresh = a.groups.map((g) => describe(withFreshSite(g)));
      // Forward, backward and forward again: a text kept for another count or state would show.
      expect(a.groups.map((g) => describe(g))).toEqual(fresh);
      expect([...a.groups].reverse().map((g) => describe(g))).toEqual([...fresh].reverse());
      expect(a.groups.map((g) => describe(g))).toEqual(fresh);
      for (const g of a.groups) {
        const e = evidenceGroup(g, 'root');
        const site = siteOf(g);
        expect(e.site).toEqual(site ? { func: site.func, file: site.file, line: site.line } : undefined);
        if (site) expect(evidenceGroup(withFreshSite(g), 'root')).toEqual(e);
      }
      n += a.groups.length;
    }
    expect(n).toBeGreaterThan(1000);
  });

  it('keeps count and state apart at one site frame', async () => {
    const dump = await readDump(join(SAMPLES, 'lock-pileup', 'goroutine.debug2.txt'));
    const a = analyze(dump.snapshots[0]);
    const g = a.groups.find((x) => siteOf(x) && x.count > 1)!;
    const one = { ...g, count: 1 };
    const other = { ...g, states: ['select'], waitKind: 'select' as const };
    const texts = [describe(g), describe(one), describe(g), describe(other), describe(one)];
    expect(texts).toEqual([g, one, g, other, one].map((x) => describe(withFreshSite(x))));
    expect(new Set(texts).size).toBe(3);
    // One site frame, alike groups: one text, one evidence site.
    expect(describe(one)).toBe(describe({ ...one }));
    expect(evidenceGroup(g, 'root').site).toBe(evidenceGroup(one, 'root').site);
  });

  it('prints in a table report every fact of a finding as it prints that fact alone', async () => {
    const findings: Finding[] = [];
    for await (const { snapshot: s } of snapshotsOf(dumpPaths())) findings.push(...runRules(analyze(s)));
    const paths = findings.filter((f) => f.evidence.facts.some((x) => x.startsWith('also at this site, another call path')));
    expect(paths.length).toBeGreaterThan(0);
    // Runs of equal facts, an empty one, control characters and a line break among them.
    const made = { ...findings[0], evidence: { ...findings[0].evidence, facts: ['a', 'a', '', '', 'b\u001b[2J', 'b\u001b[2J', 'c\nd', 'c\nd', 'a'] } };
    const factLines = (f: Finding) => renderTable({ command: 'inspect', analyses: [], findings: [f] }).split('\n').filter((l) => /^ {2}fact /.test(l));
    for (const f of [...paths, made]) {
      const alone = f.evidence.facts.flatMap((x) => factLines({ ...f, evidence: { ...f.evidence, facts: [x] } }));
      expect(factLines(f)).toEqual(alone);
    }
  });

  it('says further roots described alike in one fact, and at most ten descriptions', async () => {
    const dump = await readDump(join(SAMPLES, 'lock-pileup', 'goroutine.debug2.txt'));
    const a = analyze(dump.snapshots[0]);
    const g = a.groups.find((x) => siteOf(x) && x.count > 1)!;
    const rule = builtinRules().find((r) => r.id === 'core/lock-pileup') ?? builtinRules()[0];
    const facts = (roots: AnalyzedGroup[]) => {
      const f = finishCandidate({ ...candidate(rule, g, { roots }), severity: 'warning' }, a);
      // Every root is in the evidence, whatever the facts say.
      expect(f.evidence.groups.length).toBe(roots.length + 1);
      return f.evidence.facts.filter((x) => x.startsWith('also') || x.startsWith('and '));
    };
    const one = { ...g, count: 1 };
    const said = describe(one);
    // Alike roots, together or apart: one fact with their number.
    expect(facts([one])).toEqual([`also at this site, another call path: ${said}`]);
    expect(facts([one, { ...one }, { ...one }])).toEqual([`also at this site, 3 other call paths, each: ${said}`]);
    const two = { ...g, count: 2 };
    expect(facts([one, two, { ...one }])).toEqual([`also at this site, 2 other call paths, each: ${said}`, `also at this site, another call path: ${describe(two)}`]);
    // Twelve descriptions, 1,500 roots: ten said, the rest counted.
    const many = Array.from({ length: 1500 }, (_, i) => ({ ...g, count: 1 + (i % 12) }));
    const said10 = facts(many);
    expect(said10).toHaveLength(11);
    expect(said10[0]).toBe(`also at this site, 125 other call paths, each: ${describe(many[0])}`);
    const rest = many.filter((x) => x.count > 10);
    expect(said10[10]).toBe(`and 250 more call paths at this site (${rest.reduce((n, x) => n + x.count, 0).toLocaleString('en-US')} goroutines), each in the evidence`);
    // Roots elsewhere (both sides of a lock cycle) are said as such.
    const elsewhere = a.groups.filter((x) => siteOf(x) && siteOf(x)!.line !== siteOf(g)!.line).slice(0, 2);
    expect(elsewhere.length).toBe(2);
    expect(facts([elsewhere[0], elsewhere[0]])[0]).toMatch(/^also root, 2 groups, each: /);
  });
});
