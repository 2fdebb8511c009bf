/**
 * core/sql-db-leak on the real report-api dumps (samples/servers/report-api; what each dump holds:
 * test/rules/servers.test.ts): the handles' goroutines start in database/sql, so with the source the
 * calls that open a handle per call and drop it are searched in the checkout; a handle closed, or
 * kept for later, is no cause.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze, explainWithSource, readDump, runRules } from '../../src/index.js';
import { escalateGrowth } from '../../src/rules/growth.js';
import { SAMPLES } from '../helpers/paths.js';

const SOURCE = join(SAMPLES, 'servers', 'report-api');
const RULE = 'core/sql-db-leak';

async function analysisOf(file: string) {
  return analyze((await readDump(join(SOURCE, 'dumps', file))).snapshots[0]);
}

async function causes(dir: string): Promise<string[]> {
  const a = await analysisOf('leaking-60.debug2.txt.gz');
  const { findings } = await explainWithSource(runRules(a), [a], { sourceDir: dir });
  return (findings.find((f) => f.ruleId === RULE)?.causeLocations ?? []).map((c) => `${c.kind}@${c.line} ${c.function}`);
}

function edited(edit: (src: string) => string): string {
  const src = readFileSync(join(SOURCE, 'main.go'), 'utf8');
  const out = edit(src);
  expect(out).not.toBe(src);
  const dir = mkdtempSync(join(tmpdir(), 'leakscope-sqldb-'));
  writeFileSync(join(dir, 'main.go'), out);
  return dir;
}

describe('core/sql-db-leak', () => {
  it('grows into an error across a series, with the counts', async () => {
    const series = [await analysisOf('leaking-12.debug2.txt.gz'), await analysisOf('leaking-60.debug2.txt.gz')];
    const f = escalateGrowth(runRules(series[1]), series).find((x) => x.ruleId === RULE);
    expect(f?.severity).toBe('error');
    expect(f?.evidence.facts).toContain('grew across 2 snapshots: 12 → 60 open database handles (sql.DB): handles are opened and never closed');
  });
});

describe('core/sql-db-leak with the source', () => {
  it('points at the handler that gets a handle from the helper on every call; not at start-up, where it is kept', async () => {
    // main.go:80 balance calls openLedger (sql.Open at 73); serve's call (line 114) keeps it in a.shared.
    expect(await causes(SOURCE)).toEqual(['opened-per-call@80 (*api).balance']);
  });

  it('nothing where the handler closes the handle', async () => {
    const dir = edited((s) => s.replace('if db, err = openLedger(); err != nil {', 'if db, err = openLedger(); err == nil { defer db.Close() } else {'));
    expect(await causes(dir)).toEqual([]);
  });

  it('the sql.Open itself, where the handler opens the handle directly', async () => {
    // (On the same line: the dump's lines stay where they are.)
    const dir = edited((s) => s.replace('if db, err = openLedger(); err != nil {', 'if db, err = sql.Open("ledger", "file:ledger.db"); err != nil {'));
    const got = await causes(dir);
    expect(got).toEqual(['opened-per-call@80 (*api).balance']);
  });
});
