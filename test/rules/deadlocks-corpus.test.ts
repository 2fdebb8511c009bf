/**
 * The real test timeouts, runtime deadlocks and leak-checker reports of ../shared/corpus/tests/: where
 * SOURCES.tsv's last column names the stuck goroutine, a warning or error names its site; where it says
 * the culprit is cut off or that only background goroutines are visible, no deadlock/leak finding
 * blames the test runner, `t.Parallel` or a helper loop. The sites below are read off that column.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/rules/index.js';
import { CORPUS, corpusAvailable } from '../helpers/paths.js';
import { findingsOf, summary } from './e2e.js';

interface Site {
  readonly file: string;
  readonly line: number;
}

/** Culprit sites per file: every one must be named by a warning or error. */
const CULPRITS: Record<string, Site[]> = {
  'suture-66-fatal-deadlock-in-go-test.txt': [{ file: 'suture_test.go', line: 571 }],
  'btlet-11-deadlock-elided-paths-shell-prompt.txt': [{ file: 'btsniffer.go', line: 21 }],
  'githound-73-deadlock-workerpool-chan-send-excerpt.txt': [{ file: 'worker_pool.go', line: 77 }],
  'weavescope-363-test-timeout-chan-send-go1.4-excerpt.txt': [{ file: 'resolver_test.go', line: 56 }, { file: 'resolver_test.go', line: 34 }],
  'golang-19476-sync-test-timeout-waitgroup-386-excerpt.txt': [{ file: 'waitgroup_test.go', line: 165 }],
  'goleak-blog-verifynone-go-test-v.txt': [{ file: 'main.go', line: 24 }],
  'goleak-blog-verifytestmain-after-pass.txt': [{ file: 'main.go', line: 24 }],
  'autonity-442-goleak-chan-send-nested-indent-author-cut.txt': [{ file: 'worker.go', line: 346 }],
  'tracee-4044-goleak-new-format-wait-minutes-excerpt.txt': [{ file: 'exec.go', line: 141 }],
  'bintest-10-leaktest-per-test-leaks-html-wrapped-excerpt.txt': [{ file: 'mock.go', line: 69 }],
};

/** Culprits named by goroutine id only (their stacks are cut before any frame of the program's). */
const CULPRIT_IDS: Record<string, number> = {
  'pion-webrtc-612-unexpected-routines-custom-checker-excerpt.txt': 151,
  'tchannel-207-found-leaked-goroutine-in-state-go1.6-excerpt.txt': 1306,
};

/** Only background goroutines are visible (runner, alarm, t.Parallel waiters, helper loops). */
const BACKGROUND_ONLY = [
  'boulder-6577-test-timeout-actions-log-links-excerpt.txt',
  'gdt-37-test-timeout-running-tests-after-app-log-excerpt.txt',
  'akash-933-test-timeout-masked-go-path-excerpt.txt',
];

const BLAME = new Set(['leak', 'deadlock', 'contention']);
const serious = (fs: Finding[]) => fs.filter((f) => f.severity !== 'info');

function names(f: Finding, s: Site): boolean {
  const at = (file: string, line: number) => line === s.line && file.replace(/\\/g, '/').endsWith(`/${s.file}`);
  if (f.location && at(f.location.file, f.location.line)) return true;
  return f.evidence.groups.some((g) => g.role === 'root' && g.site !== undefined && at(g.site.file, g.site.line));
}

async function all(file: string): Promise<Finding[]> {
  return (await findingsOf(join(CORPUS, 'tests', file))).flat();
}

const present = (f: string) => corpusAvailable() && existsSync(join(CORPUS, 'tests', f));

describe('corpus tests/: the stuck goroutine of each real test timeout, deadlock and leak report', () => {
  for (const [file, sites] of Object.entries(CULPRITS)) {
    it.skipIf(!present(file))(`${file}: ${sites.map((s) => `${s.file}:${s.line}`).join(', ')}`, async () => {
      const fs = await all(file);
      for (const s of sites) expect(serious(fs).some((f) => names(f, s)), `${s.file}:${s.line}\n${summary(fs)}`).toBe(true);
      // The test runner is never the root of a leak, deadlock or contention finding.
      for (const f of fs.filter((x) => x.category !== undefined && BLAME.has(x.category))) {
        for (const g of f.evidence.groups.filter((x) => x.role === 'root')) expect(g.site?.func ?? '', summary(fs)).not.toMatch(/^testing\./);
      }
    });
  }

  for (const [file, id] of Object.entries(CULPRIT_IDS)) {
    it.skipIf(!present(file))(`${file}: goroutine ${id}`, async () => {
      const fs = await all(file);
      const hit = serious(fs).find((f) => f.explanation.includes(`oroutine ${id} `) || f.evidence.facts.some((x) => x.includes(`goroutine ${id} `)));
      expect(hit, summary(fs)).toBeDefined();
    });
  }

  for (const file of BACKGROUND_ONLY) {
    it.skipIf(!present(file))(`${file}: background only, nobody blamed`, async () => {
      const fs = await all(file);
      const blamed = serious(fs).filter((f) => f.category !== undefined && BLAME.has(f.category) && f.evidence.groups.some((g) => g.role === 'root'));
      expect(blamed, summary(fs)).toEqual([]);
      // … and it says where the culprit is: in the part of the dump that was cut off.
      const timeout = fs.find((f) => f.ruleId === 'core/test-timeout');
      expect(timeout?.evidence.facts.some((x) => /probably in the missing part/.test(x)), summary(fs)).toBe(true);
    });
  }
});
