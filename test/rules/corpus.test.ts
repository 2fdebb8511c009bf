/**
 * Precision on real dumps (../shared/corpus): SOURCES.tsv's last column says what a leak inspector
 * should conclude. Healthy files get no error-level finding; "not a leak" crash and race files get
 * their crash/race finding and no leak error; "suspect" files a warning, never an error; the
 * goroutineleak profile its certain leak. The stuck goroutines of tests/ (test timeouts, deadlocks,
 * leak reports) are asserted one by one in deadlocks-corpus.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isInputError } from '../../src/read/index.js';
import type { Finding } from '../../src/rules/index.js';
import { CORPUS, corpusAvailable, corpusFiles } from '../helpers/paths.js';
import { errorsOf, findingsOf, summary } from './e2e.js';

function conclusions(): Map<string, string> {
  const out = new Map<string, string>();
  if (!corpusAvailable()) return out;
  const rows = readFileSync(join(CORPUS, 'SOURCES.tsv'), 'utf8').split('\n').slice(1);
  for (const row of rows) {
    const cols = row.split('\t');
    if (cols.length > 1) out.set(cols[0], cols[cols.length - 1]);
  }
  return out;
}

const HEALTHY = /^(no leak|no obvious leak|not clearly a leak|proportional, probably not a leak|possible lock contention.*too small to call a leak|not a goroutine profile)/i;
const NOT_A_LEAK = /^not a leak/i;
const LEAK_CATEGORIES = new Set<Finding['category']>(['leak', 'resource', 'contention', 'deadlock']);

/** Read, analyze and diagnose; a file the readers refuse (the NEGATIVE control) gives no findings. */
async function all(file: string): Promise<Finding[]> {
  try {
    return (await findingsOf(join(CORPUS, file))).flat();
  } catch (e) {
    if (isInputError(e)) return [];
    throw e;
  }
}

describe.skipIf(!corpusAvailable())('corpus precision', () => {
  const concl = conclusions();
  const files = corpusFiles();

  it('knows the conclusion of every corpus file', () => {
    for (const f of files) expect(concl.has(f), f).toBe(true);
  });

  for (const file of files) {
    const c = concl.get(file) ?? '';
    if (HEALTHY.test(c)) {
      it(`${file}: no error or warning finding (${c.slice(0, 60)})`, async () => {
        const fs = await all(file);
        expect(fs.filter((f) => f.severity !== 'info'), summary(fs)).toEqual([]);
      });
    } else if (NOT_A_LEAK.test(c)) {
      it(`${file}: no leak error; its crash or race is named (${c.slice(0, 60)})`, async () => {
        const fs = await all(file);
        expect(errorsOf(fs).filter((f) => LEAK_CATEGORIES.has(f.category)), summary(fs)).toEqual([]);
        if (/concurrent map writes/.test(c)) {
          expect(fs.find((f) => f.ruleId === 'core/map-crash')?.severity, summary(fs)).toBe('error');
        }
        if (file.startsWith('race/')) expect(fs.filter((f) => f.ruleId === 'core/race'), summary(fs)).toHaveLength(1);
        if (/; crash$/.test(c)) expect(fs.some((f) => f.category === 'crash'), summary(fs)).toBe(true);
      });
    } else if (/^suspect/i.test(c) || /^LEAK-like/.test(c)) {
      it(`${file}: a warning, not an error (${c.slice(0, 60)})`, async () => {
        const fs = await all(file);
        expect(errorsOf(fs), summary(fs)).toEqual([]);
        expect(fs.some((f) => f.severity === 'warning'), summary(fs)).toBe(true);
      });
    } else if (/^LEAK:/.test(c) && file.startsWith('leakprofile/')) {
      it(`${file}: the certain leak (${c.slice(0, 60)})`, async () => {
        const fs = await all(file);
        const leaked = fs.filter((f) => f.ruleId === 'core/leaked');
        expect(leaked, summary(fs)).toHaveLength(1);
        expect(leaked[0]).toMatchObject({ severity: 'error', confidence: 'certain', location: { line: 11 }, evidence: { goroutines: 3 } });
        expect(errorsOf(fs)).toHaveLength(1);
      });
    }
  }

  it('suspects the 75 gRPC ClientConns of cortex (warning)', async () => {
    const fs = await all('binary/cortex-355-grpc-conns.pb.gz');
    expect(fs.find((f) => f.ruleId === 'core/grpc-client-conns')).toMatchObject({ severity: 'warning', evidence: { goroutines: 300 } });
  });

  it('says that the ~1000-per-consumer NATS groups scale together (info)', async () => {
    const fs = await all('debug1/natsjsm-7046-windows-paths.txt');
    const p = fs.filter((f) => f.ruleId === 'core/proportional');
    expect(p[0].evidence.groups.map((g) => g.count)).toEqual([1004, 1001, 1001, 1000, 1000]);
  });
});
