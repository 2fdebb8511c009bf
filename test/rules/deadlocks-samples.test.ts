/**
 * Acceptance on samples/deadlocks (our own programs, Go 1.19, 1.23, 1.24 and 1.26, test timeouts, leak
 * reports and SIGQUIT dumps): every stuck site of expected.json is named by a warning or error of the
 * leak, deadlock or contention categories (at least one of them as a root), the test runner and the
 * goroutines listed as consequences are never a root, each such finding says with what confidence it
 * knows, and the healthy programs get no warning at all in those categories.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/rules/index.js';
import { SAMPLES } from '../helpers/paths.js';
import { findingsOf, summary } from './e2e.js';

interface Site {
  readonly function: string;
  readonly file: string;
  readonly line: number;
}

interface DeadlockCase {
  readonly case: string;
  readonly taxonomy: string;
  readonly verdict: 'deadlock' | 'leak' | 'healthy';
  readonly files: { readonly path: string; readonly kind: string }[];
  readonly stuck: Site[];
  readonly consequences?: Site[];
}

const ROOT = join(SAMPLES, 'deadlocks');
const BLAME = new Set<Finding['category']>(['leak', 'deadlock', 'contention']);

function cases(): DeadlockCase[] {
  if (!existsSync(ROOT)) return [];
  return readdirSync(ROOT)
    .filter((d) => existsSync(join(ROOT, d, 'expected.json')))
    .map((d) => JSON.parse(readFileSync(join(ROOT, d, 'expected.json'), 'utf8')) as DeadlockCase);
}

const blaming = (fs: Finding[]) => fs.filter((f) => f.severity !== 'info' && f.category !== undefined && BLAME.has(f.category));

/** `f` names the site: as its location, or as a group of its evidence (any role, or roots only). */
function names(f: Finding, s: Site, rootsOnly: boolean): boolean {
  if (f.location?.func === s.function && f.location.line === s.line) return true;
  return f.evidence.groups.some((g) => (!rootsOnly || g.role === 'root') && g.site?.func === s.function && g.site.line === s.line);
}

describe('samples/deadlocks: the stuck sites, never the harness', () => {
  const all = cases();
  it('the taxonomy is there (24 buggy programs, 5 healthy ones)', () => {
    expect(all.filter((c) => c.verdict !== 'healthy').length).toBeGreaterThanOrEqual(20);
    expect(all.filter((c) => c.verdict === 'healthy').length).toBeGreaterThanOrEqual(5);
  });

  for (const c of all) {
    for (const file of c.files) {
      it(`${c.case}/${file.path} (${c.taxonomy})`, async () => {
        const fs = (await findingsOf(join(ROOT, c.case, file.path))).flat();
        const found = blaming(fs);
        if (c.verdict === 'healthy') {
          expect(found, summary(fs)).toEqual([]);
          return;
        }
        for (const s of c.stuck) expect(found.some((f) => names(f, s, false)), `${s.function}:${s.line}\n${summary(fs)}`).toBe(true);
        expect(c.stuck.some((s) => found.some((f) => names(f, s, true))), `no stuck site is a root\n${summary(fs)}`).toBe(true);
        const stuckFuncs = new Set(c.stuck.map((s) => s.function));
        const notRoots = (c.consequences ?? []).filter((k) => !stuckFuncs.has(k.function)).map((k) => k.function);
        for (const f of found) {
          for (const g of f.evidence.groups.filter((x) => x.role === 'root')) {
            expect(g.site?.func ?? '', `${f.ruleId}\n${summary(fs)}`).not.toMatch(/^testing\./);
            expect(notRoots, `${g.site?.func} is a consequence, not a root (${f.ruleId})`).not.toContain(g.site?.func);
          }
        }
        // How it knows: the findings from the wait-for graph state their confidence and evidence.
        for (const f of found.filter((x) => ['core/double-lock', 'core/lock-order', 'core/lock-held-blocked', 'core/stuck-wait'].includes(x.ruleId))) {
          expect(f.confidence, f.title).toBeDefined();
          expect(f.evidence.facts.some((x) => x.startsWith('confidence: ')), f.title).toBe(true);
        }
      });
    }
  }
});

describe('the two bugs of ledger-transfer are two findings, not one invented cycle', () => {
  for (const file of ['go1.19', 'go1.23', 'go1.24', 'go1.26'].flatMap((v) => [`${v}/test-timeout.txt`, `${v}/sigquit.txt`])) {
    it.skipIf(!existsSync(join(ROOT, 'ledger-transfer', file)))(file, async () => {
      const fs = blaming((await findingsOf(join(ROOT, 'ledger-transfer', file))).flat());
      const cycle = fs.filter((f) => f.ruleId === 'core/lock-order');
      const self = fs.filter((f) => f.ruleId === 'core/double-lock');
      expect(cycle, summary(fs)).toHaveLength(1);
      expect(self, summary(fs)).toHaveLength(1);
      expect(cycle[0].location?.func).toBe('example.com/deadlocks/ledger-transfer.Transfer');
      expect(cycle[0].evidence.groups.every((g) => g.site?.func !== 'example.com/deadlocks/ledger-transfer.(*Cache).Get')).toBe(true);
      expect(self[0].location?.func).toBe('example.com/deadlocks/ledger-transfer.(*Cache).Get');
      expect(self[0].title).toMatch(/Refresh/);
    });
  }
});
