/**
 * Handles opened again and again and never closed, on the real report-api (core/sql-db-leak) and
 * live-reload (core/fsnotify-watcher-leak) dumps (samples/servers/; what each dump holds:
 * test/rules/servers.test.ts): the handles' goroutines start in the library, so with the source the
 * calls that open a handle per call and drop it are searched in the checkout; a handle closed, or
 * kept for later, is no cause.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze, explainWithSource, readDump, runRules } from '../../src/index.js';
import { escalateGrowth } from '../../src/rules/growth.js';
import { editedMain } from '../helpers/edited-source.js';
import { SAMPLES } from '../helpers/paths.js';

const SOURCE = join(SAMPLES, 'servers', 'report-api');
const WATCHER = join(SAMPLES, 'servers', 'live-reload');
const RULE = 'core/sql-db-leak';

async function analysisOf(file: string, dir = SOURCE) {
  return analyze((await readDump(join(dir, 'dumps', file))).snapshots[0]);
}

async function causes(src: string, dumps = SOURCE, rule = RULE): Promise<string[]> {
  const a = await analysisOf('leaking-60.debug2.txt.gz', dumps);
  const { findings } = await explainWithSource(runRules(a), [a], { sourceDir: src });
  return (findings.find((f) => f.ruleId === rule)?.causeLocations ?? []).map((c) => `${c.kind}@${c.line} ${c.function}`);
}

function edited(edit: (src: string) => string, from = SOURCE): string {
  return editedMain(from, edit);
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

describe('core/fsnotify-watcher-leak with the source', () => {
  const rule = 'core/fsnotify-watcher-leak';
  it('points at the NewWatcher of the poll handler, which nothing closes', async () => {
    expect(await causes(WATCHER, WATCHER, rule)).toEqual(['opened-per-call@36 (*site).reload']);
  });

  it('nothing once the handler defers its Close', async () => {
    const dir = edited((s) => s.replace('watcher, err := fsnotify.NewWatcher()', 'watcher, err := fsnotify.NewWatcher(); defer func() { if watcher != nil { watcher.Close() } }()'), WATCHER);
    expect(await causes(dir, WATCHER, rule)).toEqual([]);
  });
});
