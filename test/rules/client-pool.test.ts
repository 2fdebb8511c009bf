/**
 * core/pool-exhausted on the real session-store (redigo) and quote-pool (puddle) dumps, and
 * core/http-conns-exhausted on catalog-proxy's (an HTTP transport at MaxConnsPerHost)
 * (samples/servers/; what each dump holds: test/rules/servers.test.ts), changed one fact at a time:
 * a goroutine inside a call of the pool's library makes it a saturated pool (info); puddle's helper
 * goroutines (one per waiter, on the pool's Cond) are the library's own, not users; an excerpt says
 * what it cannot see; with the source, the early return before the deferred close is the one named;
 * a dial or a request in flight makes the transport busy, not leaking.
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

const SERVERS = join(SAMPLES, 'servers');

async function analysisOf(rel: string): Promise<Analysis> {
  const dump = await readDump(join(SERVERS, rel));
  return analyze(dump.snapshots[0]);
}

const pool = (fs: Finding[]) => fs.filter((f) => f.ruleId === 'core/pool-exhausted');
const summary = (fs: Finding[]) => fs.map((f) => `${f.severity} ${f.ruleId} ${f.title}`).join('\n');
const REDIGO_WAIT = 'github.com/gomodule/redigo/redis.(*Pool).waitVacantConn';

describe('core/pool-exhausted', () => {
  it('redigo: 8 handlers wait for a connection and no goroutine is in a Redis call', async () => {
    const fs = runRules(await analysisOf('session-store/dumps/exhausted.debug2.txt.gz'));
    const [f, ...more] = pool(fs);
    expect(more).toEqual([]);
    expect(f).toMatchObject({ severity: 'warning', location: { func: 'main.(*api).session', line: 238 } });
    expect(f.explanation).toMatch(/wait in `redis\.\(\*Pool\)\.waitVacantConn`/);
    expect(fs.some((x) => x.ruleId === 'core/db-pool-exhausted')).toBe(false);
  });

  it('redigo: handlers inside a Redis call may hold connections: a saturated pool (info)', async () => {
    const a = await analysisOf('session-store/dumps/exhausted.debug2.txt.gz');
    const w = a.groups.find((g) => g.frames.some((f) => f.func === REDIGO_WAIT))!;
    // Three handlers reading a reply (redigo's conn.readReply where the waiters have waitVacantConn).
    const at = w.frames.findIndex((f) => f.func === REDIGO_WAIT);
    const f0: SiteFrame = { ...w.frames[at], func: 'github.com/gomodule/redigo/redis.(*conn).readReply' };
    const busy: AnalyzedGroup = { ...w, id: `${w.id}-busy`, key: `${w.key}-busy`, count: 3, waitKind: 'io', frames: w.frames.map((f, i) => (i === at ? f0 : f)) };
    const [f] = pool(runRules({ ...a, groups: [...a.groups, busy], waits: undefined }));
    expect(f).toMatchObject({ severity: 'info', title: '8 goroutines wait for a pooled resource at main.go:238 while 3 may hold one' });
    expect(f.evidence.facts.some((x) => x.startsWith("3 goroutines may hold resources (in calls of the pool's library, or further in main.(*api).session)"))).toBe(true);
  });

  it("puddle: each waiter's helper goroutine (on the pool's Cond) is the library's own, not a user", async () => {
    const a = await analysisOf('quote-pool/dumps/exhausted.debug2.txt.gz');
    const helpers = a.groups.filter((g) => g.frames.some((f) => f.func === 'github.com/jackc/puddle.(*Pool).Acquire.func1'));
    expect(helpers.reduce((n, g) => n + g.count, 0)).toBe(8);
    const [f] = pool(runRules(a));
    expect(f).toMatchObject({ severity: 'warning', location: { func: 'main.(*api).quote', line: 144 } });
    expect(f.title).toMatch(/no goroutine uses one/);
  });

  it('puddle without a context: a waiter parked on the Cond itself is a waiter too', async () => {
    const a = await analysisOf('quote-pool/dumps/exhausted.debug2.txt.gz');
    // Acquire(context.Background()) waits in p.cond.Wait() inside Acquire: Cond frames above Acquire.
    const groups = a.groups.map((g) => {
      if (g.blockingSite?.func !== 'main.(*api).quote') return g;
      const acquire = g.frames.findIndex((f) => f.func === 'github.com/jackc/puddle.(*Pool).Acquire');
      const cond = (func: string): SiteFrame => ({ ...g.frames[acquire], func, origin: 'stdlib' });
      return { ...g, waitKind: 'cond' as const, frames: [cond('sync.runtime_notifyListWait'), cond('sync.(*Cond).Wait'), ...g.frames.slice(acquire)] };
    });
    const [f] = pool(runRules({ ...a, groups, waits: undefined }));
    expect(f?.location).toMatchObject({ func: 'main.(*api).quote', line: 144 });
  });
});

/** Goroutine blocks of a real dump matching `re`, the first `n`, pasted as one excerpt. */
async function pasted(rel: string, re: RegExp, n: number): Promise<Finding[]> {
  const raw = readFileSync(join(SERVERS, rel));
  const text = (rel.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8');
  const cut = text.split(/\n\n+/).filter((b) => re.test(b)).slice(0, n);
  expect(cut).toHaveLength(n);
  const dump = await readDumpFrom('pasted.txt', cut.join('\n\n') + '\n');
  expect(dump.snapshots[0].context?.kind).toBe('excerpt');
  return runRules(analyze(dump.snapshots[0]));
}

describe('pools in excerpts: the pool is at its limit, what holds it is not shown (no channel "nothing will complete")', () => {
  it.each([
    ['quote-pool/dumps/exhausted.debug2.txt.gz', /^goroutine \d+ \[select\]:\ngithub\.com\/jackc\/puddle\.\(\*Pool\)\.Acquire\(/, 'core/pool-exhausted', '2 goroutines wait for a pooled resource at main.go:144: the pool is at its limit'],
    ['catalog-proxy/dumps/exhausted.debug2.txt.gz', /net\/http\.\(\*Transport\)\.getConn/, 'core/http-conns-exhausted', '2 HTTP requests wait for a connection at main.go:83: the transport is at its limit for the host'],
  ])('%s: two waiters pasted', async (rel, re, rule, title) => {
    const fs = await pasted(rel, re, 2);
    expect(fs.map((f) => `${f.ruleId}: ${f.title}`)).toEqual([`${rule}: ${title}`]);
  });
});

describe('core/pool-exhausted in an excerpt', () => {
  it('two waiting handlers pasted: the pool is at its limit, what holds it is not shown', async () => {
    const text = gunzipSync(readFileSync(join(SERVERS, 'session-store', 'dumps', 'exhausted.debug2.txt.gz'))).toString('utf8');
    const cut = text.split(/\n\n+/).filter((b) => b.includes('redis.(*Pool).waitVacantConn')).slice(0, 2);
    expect(cut).toHaveLength(2);
    const dump = await readDumpFrom('pasted.txt', cut.join('\n\n') + '\n');
    const fs = runRules(analyze(dump.snapshots[0]));
    const [f] = pool(fs);
    expect(f?.title, summary(fs)).toBe('2 goroutines wait for a pooled resource at main.go:238: the pool is at its limit');
    expect(f.evidence.facts[f.evidence.facts.length - 1]).toMatch(/^the dump is an excerpt: it shows no goroutine in a call of the pool's library/);
    expect(fs.filter((x) => x !== f && x.severity !== 'info'), summary(fs)).toEqual([]);
  });
});

describe('core/pool-exhausted with the source', () => {
  const causes = async (rel: string, sourceDir: string) => {
    const a = await analysisOf(rel);
    const { findings } = await explainWithSource(runRules(a), [a], { sourceDir });
    return (pool(findings)[0].causeLocations ?? []).map((c) => `${c.kind}@${c.line}`);
  };

  it('redigo: the return before `defer conn.Close()` (not the ones that close first, not those after the defer)', async () => {
    expect(await causes('session-store/dumps/exhausted.debug2.txt.gz', join(SERVERS, 'session-store'))).toEqual(['left-open@253']);
  });

  it('puddle: the return that skips Release (not the error check after Acquire, not the paths that Destroy or Release)', async () => {
    expect(await causes('quote-pool/dumps/exhausted.debug2.txt.gz', join(SERVERS, 'quote-pool'))).toEqual(['left-open@164']);
  });

  it('nothing once the close is deferred right after Get', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leakscope-pool-'));
    const src = readFileSync(join(SERVERS, 'session-store', 'main.go'), 'utf8');
    // (Before the line's comment.)
    const edited = src.replace('conn := a.pool.Get()', 'conn := a.pool.Get(); defer conn.Close()');
    expect(edited).not.toBe(src);
    writeFileSync(join(dir, 'main.go'), edited);
    expect(await causes('session-store/dumps/exhausted.debug2.txt.gz', dir)).toEqual([]);
  });
});

describe('core/http-conns-exhausted', () => {
  const conns = (fs: Finding[]) => fs.filter((f) => f.ruleId === 'core/http-conns-exhausted');

  it('8 requests wait for a connection to the host and 4 connections wait for their bodies: the leak', async () => {
    const fs = runRules(await analysisOf('catalog-proxy/dumps/exhausted.debug2.txt.gz'));
    const [f, ...more] = conns(fs);
    expect(more).toEqual([]);
    expect(f).toMatchObject({ severity: 'warning', location: { func: 'main.(*proxy).item', line: 83 } });
    expect(f.evidence.facts).toContain('4 connections wait for their response body to be read or closed (persistConn.readLoop in select)');
    // Their readLoops and writeLoops are the transport's own: no request is said to be in flight.
    expect(f.title).toMatch(/no request uses one/);
  });

  it('a dial in flight (the transport making a connection for a waiter) makes it busy: info', async () => {
    const a = await analysisOf('catalog-proxy/dumps/exhausted.debug2.txt.gz');
    const w = a.groups.find((g) => g.blockingSite?.func === 'main.(*proxy).item')!;
    const dial: SiteFrame = { ...w.frames[0], func: 'net/http.(*Transport).dialConnFor', file: 'net/http/transport.go', line: 1467, origin: 'stdlib' };
    const dialing: AnalyzedGroup = { ...w, id: 'dial', key: 'dial', count: 1, waitKind: 'io', frames: [dial], blockingSite: undefined };
    const [f] = conns(runRules({ ...a, groups: [...a.groups, dialing], waits: undefined }));
    expect(f).toMatchObject({ severity: 'info', title: '8 HTTP requests wait for a connection at main.go:83 while 1 may hold one' });
  });

  it('with the source: the return after the status check, before the deferred Body.Close', async () => {
    const a = await analysisOf('catalog-proxy/dumps/exhausted.debug2.txt.gz');
    const { findings } = await explainWithSource(runRules(a), [a], { sourceDir: join(SERVERS, 'catalog-proxy') });
    const cs = conns(findings)[0].causeLocations ?? [];
    expect(cs.map((c) => `${c.kind}@${c.line}`)).toEqual(['left-open@92']);
    expect(cs[0].message).toMatch(/^This return leaves res \(the response Get opened at line 83\) open: its connection is never given back to the transport/);
    expect(cs[0].message).toMatch(/Defer res\.Body\.Close\(\)/);
  });
});
