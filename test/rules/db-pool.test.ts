/**
 * core/db-pool-exhausted on the real orders-api dumps (samples/servers/orders-api; what each dump
 * holds: test/rules/servers.test.ts), changed one fact at a time: goroutines in database calls make it
 * a saturated pool (info), watchers of open Rows are counted, and a goroutine dialing a new connection
 * inside (*DB).conn is not waiting for one.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze, explainWithSource, readDump, readDumpFrom, runRules } from '../../src/index.js';
import type { Analysis, AnalyzedGroup, SiteFrame } from '../../src/analyze/types.js';
import type { Finding } from '../../src/rules/types.js';
import { SAMPLES } from '../helpers/paths.js';

async function exhausted(): Promise<Analysis> {
  const dump = await readDump(join(SAMPLES, 'servers', 'orders-api', 'dumps', 'exhausted.debug2.txt.gz'));
  return analyze(dump.snapshots[0]);
}

const waiting = (a: Analysis) => a.groups.find((g) => g.blockingSite?.func === 'main.(*api).orders')!;

/** A copy of `g` whose frame `at` is replaced by `func` (id and key made distinct), with `count` goroutines. */
function variant(g: AnalyzedGroup, at: number, func: string, count: number, insert = false): AnalyzedGroup {
  const f: SiteFrame = { ...g.frames[at], func, pkg: func.replace(/\.[^/]*$/, '') };
  const frames = insert ? [...g.frames.slice(0, at), f, ...g.frames.slice(at)] : g.frames.map((x, i) => (i === at ? f : x));
  return { ...g, id: `${g.id}-${func}`, key: `${g.key}\n${func}`, count, frames: frames.map((x, i) => ({ ...x, index: i })), blockingSite: g.blockingSite ? { ...g.blockingSite, index: g.blockingSite.index + (insert ? 1 : 0) } : undefined };
}

const pool = (fs: Finding[]) => fs.filter((f) => f.ruleId === 'core/db-pool-exhausted');
const connAt = (g: AnalyzedGroup) => g.frames.findIndex((f) => f.func === 'database/sql.(*DB).conn');

describe('core/db-pool-exhausted', () => {
  it('the leak: 8 wait and no goroutine is in a database call', async () => {
    const [f] = pool(runRules(await exhausted()));
    expect(f).toMatchObject({ severity: 'warning', location: { func: 'main.(*api).orders', line: 75 } });
    expect(f.evidence.facts).toContain('no goroutine of the dump is in a database call or further in the waiting function: the connections in use are held by values never closed (Rows, Tx, Conn)');
  });

  it('goroutines in database calls make it a saturated pool: info, with the calls counted', async () => {
    const a = await exhausted();
    const w = waiting(a);
    // Three handlers inside a query (database/sql.(*DB).queryDC where the waiters have (*DB).conn).
    const busy = variant(w, connAt(w), 'database/sql.(*DB).queryDC', 3);
    const [f] = pool(runRules({ ...a, groups: [...a.groups, busy], waits: undefined }));
    expect(f).toMatchObject({ severity: 'info', title: '8 goroutines wait for a database connection at main.go:75 while 3 may hold one' });
    expect(f.evidence.facts.some((x) => x.startsWith('3 goroutines may hold connections (in database calls, or further in main.(*api).orders): 3 at main.(*api).orders'))).toBe(true);
  });

  it('handlers of the same function past their query (iterating rows in the program\'s code) may hold connections: info', async () => {
    const a = await exhausted();
    const w = waiting(a);
    // Two handlers parked writing their answer: no database/sql frame, the waiters' function on the stack.
    const answering = { ...variant(w, connAt(w), 'net/http.(*response).Write', 2), waitKind: 'io' as const };
    const [f] = pool(runRules({ ...a, groups: [...a.groups, answering], waits: undefined }));
    expect(f).toMatchObject({ severity: 'info', title: '8 goroutines wait for a database connection at main.go:75 while 2 may hold one' });
  });

  it('open Rows whose context is watched are counted, and still a leak', async () => {
    const a = await exhausted();
    const w = waiting(a);
    // database/sql's own goroutine per open Rows with a context: the runtime's select, then awaitDone.
    const v = variant(w, connAt(w), 'database/sql.(*Rows).awaitDone', 4);
    const watchers = { ...v, frames: v.frames.slice(0, connAt(w) + 1), blockingSite: undefined };
    const [f] = pool(runRules({ ...a, groups: [...a.groups, watchers], waits: undefined }));
    expect(f.severity).toBe('warning');
    expect(f.evidence.facts).toContain('4 open Rows/Tx wait for their context (database/sql awaitDone)');
    expect(f.explanation).toMatch(/4 goroutines of database\/sql watch the context of an open `Rows` or `Tx`/);
  });

  it('a goroutine dialing a new connection inside (*DB).conn is not waiting for one', async () => {
    const a = await exhausted();
    const w = waiting(a);
    const dialing = variant(w, connAt(w), 'example.com/driver.(*Connector).Connect', w.count, true);
    const groups = a.groups.map((g) => (g === w ? dialing : g));
    expect(pool(runRules({ ...a, groups, waits: undefined }))).toEqual([]);
  });
});

describe('core/db-pool-exhausted in an excerpt', () => {
  it('two waiting handlers cut from the real dump: the pool at its limit, no claim about what is not shown', async () => {
    const text = gunzipSync(readFileSync(join(SAMPLES, 'servers', 'orders-api', 'dumps', 'exhausted.debug2.txt.gz'))).toString('utf8');
    const cut = text.split(/\n\n+/).filter((b) => b.includes('database/sql.(*DB).conn(')).slice(0, 2);
    expect(cut).toHaveLength(2);
    const dump = await readDumpFrom('pasted.txt', cut.join('\n\n') + '\n');
    expect(dump.snapshots[0].context?.kind).toBe('excerpt');
    const fs = runRules(analyze(dump.snapshots[0]));
    const [f] = pool(fs);
    expect(f).toMatchObject({ severity: 'warning', title: '2 goroutines wait for a database connection at main.go:75: the pool is at its limit' });
    expect(f.evidence.facts).toContain('the dump is an excerpt: it shows no goroutine in a database call, but what it does not show is unknown');
    // The wait-for rules leave the pool's waits to it.
    expect(fs.filter((x) => x.ruleId === 'core/stuck-wait')).toEqual([]);
  });
});

describe('core/db-pool-exhausted with the source', () => {
  const SOURCE = join(SAMPLES, 'servers', 'orders-api');

  it('points at the returns that leave the rows open (not at the error check after Query)', async () => {
    const a = await exhausted();
    const { findings } = await explainWithSource(runRules(a), [a], { sourceDir: SOURCE });
    const [f] = pool(findings);
    expect((f.causeLocations ?? []).map((c) => `${c.kind}@${c.line}`)).toEqual(['left-open@85', 'left-open@90']);
    expect(f.causeLocations![1].message).toMatch(/^This return leaves rows \(the rows Query opened at line 75\) open/);
    expect(f.causeLocations![1].message).toMatch(/Defer rows\.Close\(\) right after checking the error/);
  });

  it('nothing when the rows are handed to another function (it may close them)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leakscope-pool-'));
    const src = readFileSync(join(SOURCE, 'main.go'), 'utf8');
    const line = src.split('\n').find((l) => l.includes('rows, err := a.db.Query('))!;
    writeFileSync(join(dir, 'main.go'), src.replace(line, `${line}; track(rows)`));
    const a = await exhausted();
    const { findings } = await explainWithSource(runRules(a), [a], { sourceDir: dir });
    expect(pool(findings)[0].causeLocations ?? []).toEqual([]);
  });

  it('nothing when the rows are closed by defer (the same source, the defer added on the Query line)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leakscope-pool-'));
    const src = readFileSync(join(SOURCE, 'main.go'), 'utf8');
    const line = src.split('\n').find((l) => l.includes('rows, err := a.db.Query('))!;
    const edited = src.replace(line, `${line}; defer rows.Close()`);
    expect(edited).not.toBe(src);
    writeFileSync(join(dir, 'main.go'), edited);
    const a = await exhausted();
    const { findings } = await explainWithSource(runRules(a), [a], { sourceDir: dir });
    expect(pool(findings)[0].causeLocations ?? []).toEqual([]);
  });
});
