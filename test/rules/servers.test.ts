/**
 * Real servers nobody here wrote (Debian's caddy, rclone, influxdb; grpc-feed on Debian's grpc-go),
 * run on 127.0.0.1 and dumped through their own /debug/pprof and by signal (samples/servers/<server>/,
 * each with the regenerate.sh that made its dumps and a dumps.json saying what each dump holds):
 * - a stalled-peer pile-up (clients that stopped reading) is named by core/backpressure at warning or
 *   above, with the number of blocked producers and the code producing into them; across the growing
 *   series (check/report: latestFindings with the series) it is an error;
 * - healthy and signal dumps get no warning at all (accept loops, listeners, signal and lifetime
 *   waiters of a process minutes old are not stuck);
 * - gRPC connections are counted per side: a server's accepted transports are no client connections;
 * - a database/sql pool exhausted by connections never given back (Rows left open) is named by
 *   core/db-pool-exhausted at the handlers waiting for a connection, in every format (debug=1 too),
 *   a redigo or puddle pool exhausted by connections never closed or released by core/pool-exhausted,
 *   and an HTTP transport at MaxConnsPerHost whose responses were never closed by core/http-conns-exhausted;
 * - HTTP requests waiting for a server that stopped answering are named by core/http-awaiting-response
 *   (info in one snapshot, a warning once they waited a minute), with whether they carry a timeout;
 * - a lock held across a socket write to a client that stopped reading, with goroutines queued for it,
 *   names the writer (core/lock-held-blocked by the lock's address in debug=2 and signal dumps;
 *   core/lock-pileup's likely holder by stack shape in debug=0/1);
 * - tasks of an errgroup with SetLimit stuck sending are named, with the goroutines waiting in its Go
 *   for a free slot as their consequences (not as a send nobody receives), in every format;
 * - unary gRPC calls waiting for a server that stopped answering are named by core/grpc-awaiting-response
 *   (info in one snapshot, a warning once they waited a minute);
 * - callers of singleflight's Do waiting for calls stuck on such a server are named by
 *   core/coalesced-wait at the calls, with the callers as consequences (not as goroutines waiting for
 *   children they started); info in one snapshot, a warning once they waited a minute;
 * - a relay stalled by a peer (one loop hands every message to every client's queue with a plain
 *   send, one client stopped reading) is named by core/stalled-relay at the relay's send, with the
 *   senders waiting behind it as its consequences and the consumer parked writing as related; no
 *   finding says of those senders that nobody receives;
 * - HTTP requests whose clients stopped sending (a body, or the headers) are named once a read has
 *   waited a minute (core/request-body-stalled at the handler's read, core/request-headers-stalled);
 *   without wait times (debug=0/1) a stopped upload looks like one in flight, and nothing loud is said;
 * - database handles opened per request and never closed are counted by their goroutines
 *   (core/sql-db-leak): info for a few, a warning, an error for hundreds or when they grew.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze, grpcConnections, peerWrites, readDump, runRules } from '../../src/index.js';
import type { Analysis } from '../../src/analyze/types.js';
import { escalateGrowth } from '../../src/rules/growth.js';
import type { Finding } from '../../src/rules/types.js';
import { SAMPLES } from '../helpers/paths.js';

interface DumpExpectation {
  file: string;
  /** `hidden`: debug=1 of a stalled process, whose wait states are not printed: nothing loud is said. */
  state: 'healthy' | 'stalled' | 'signal' | 'relay' | 'hidden' | 'pool' | 'awaiting' | 'grpc-awaiting' | 'coalesced' | 'heldwrite' | 'heldwrite-unlinked' | 'slots' | 'unsent' | 'unclosed';
  /** Goroutines blocked writing to stalled peers (producers), exactly. */
  stalled?: number;
  /** The clients that stopped reading (the script's N): the count never exceeds it. */
  stalledClients?: number;
  /** The producing function named by the finding. */
  producer?: string;
  grpc?: { client: number; server: number };
  /** Warnings of other rules this dump is known to get (documented in dumps.json's note). */
  knownWarnings?: string[];
  /** `relay`: the relay's blocked function, the goroutines waiting to send to it and theirs, its consumer parked writing. */
  relay?: { func: string; senders: number; senderFuncs: string[]; writer: string; severity?: 'warning' | 'error' };
  /**
   * `pool`: the site whose goroutines wait for a pooled connection, how many, and the rule that names
   * them (core/db-pool-exhausted for database/sql, the default; core/pool-exhausted for other client
   * pools; core/http-conns-exhausted for an HTTP transport at MaxConnsPerHost).
   */
  pool?: { func: string; line: number; waiting: number; rule?: 'core/db-pool-exhausted' | 'core/pool-exhausted' | 'core/http-conns-exhausted' };
  /** `awaiting`: the site whose HTTP requests wait for a response, how many, and the finding's severity. */
  awaiting?: { func: string; line: number; waiting: number; severity: 'info' | 'warning' | 'error' };
  /** `grpc-awaiting`: the site whose unary gRPC calls wait for a response, how many, and the finding's severity. */
  grpcAwaiting?: { func: string; line: number; waiting: number; severity: 'info' | 'warning' | 'error' };
  /**
   * `coalesced`: callers of singleflight's Do waiting for the calls other callers run: the calls'
   * site and goroutines (the leaders), the callers' site and number, and the finding's severity.
   */
  coalesced?: { func: string; line: number; calls: number; waitFunc: string; waitLine: number; waiting: number; severity: 'info' | 'warning' | 'error'; rule?: 'core/coalesced-chan-wait' };
  /**
   * `heldwrite`: a lock held across a socket write to a peer that stopped reading: the holders' function
   * and line (at the write), how many goroutines queue for the lock (at `queuedLine` of the same
   * function), how many hold one (default 1). Linked by the lock's address (core/lock-held-blocked);
   * `heldwrite-unlinked` (debug=0/1, no addresses): by stack shape (core/lock-pileup's likely holder).
   */
  heldwrite?: { holder: string; holderLine: number; queued: number; queuedLine: number; holders?: number; severity?: 'info' | 'warning' | 'none' };
  /**
   * `slots`: an errgroup with SetLimit whose tasks are stuck (`tasks` at `task`:`taskLine`), and the
   * goroutines waiting in its Go for a free slot (`waiting` at `waiter`:`waiterLine`): the tasks are
   * named, the waiters are their consequences, never a send nobody receives.
   */
  slots?: { task: string; taskLine: number; tasks: number; waiter: string; waiterLine: number; waiting: number };
  /**
   * `unsent`: requests whose clients stopped sending, each read having waited a minute: `bodies`
   * handlers reading their body at `func`:`line`, `headers` connections reading their headers.
   */
  unsent?: { func: string; line: number; bodies: number; headers: number; severity: 'warning' | 'error' };
  /** `unclosed`: handles of a library opened again and again and never closed, counted by their goroutines. */
  unclosed?: { rule: string; count: number; severity: 'info' | 'warning' | 'error' };
}

interface ServerSample {
  server: string;
  version: string;
  dumps: DumpExpectation[];
  /** Snapshots of one process, oldest first, whose stalled count grows. */
  growing?: string[];
  /** The rule whose count grows along `growing` (default core/backpressure). */
  growingRule?: string;
}

const ROOT = join(SAMPLES, 'servers');
const servers: ServerSample[] = existsSync(ROOT)
  ? readdirSync(ROOT)
      .filter((d) => existsSync(join(ROOT, d, 'dumps.json')))
      .map((d) => ({ ...(JSON.parse(readFileSync(join(ROOT, d, 'dumps.json'), 'utf8')) as ServerSample), dir: d }))
  : [];

async function analysesOf(path: string): Promise<Analysis[]> {
  const dump = await readDump(path);
  return dump.snapshots.map((s) => analyze(s));
}

const summary = (fs: Finding[]) => fs.map((f) => `${f.severity} ${f.ruleId}: ${f.title}`).join('\n');

describe('real servers under load', () => {
  it('has samples', () => {
    expect(servers.map((s) => s.server).sort()).toEqual(expect.arrayContaining(['caddy', 'grpc-feed', 'rclone']));
  });

  for (const s of servers) {
    const dir = join(ROOT, (s as ServerSample & { dir: string }).dir);
    describe(`${s.server} ${s.version}`, () => {
      for (const d of s.dumps) {
        it(`${d.file}: ${d.state}${d.stalled ? `, ${d.stalled} stalled` : ''}`, async () => {
          const [a] = await analysesOf(join(dir, d.file));
          const findings = runRules(a);
          const loud = findings.filter((f) => f.severity !== 'info');
          if (d.state === 'relay') {
            const r = d.relay!;
            const relay = findings.filter((f) => f.ruleId === 'core/stalled-relay');
            expect(relay, summary(findings)).toHaveLength(1);
            const f = relay[0];
            expect(findings[0], summary(findings)).toBe(f);
            // One live snapshot: a warning (a consumer slow for a moment parks the senders too); an
            // error once the loop has waited a minute.
            expect(f.severity).toBe(r.severity ?? 'warning');
            expect(f.location?.func).toBe(r.func);
            const behind = f.evidence.groups.filter((g) => g.role === 'consequence');
            expect(behind.reduce((n, g) => n + g.count, 0)).toBe(r.senders);
            expect([...new Set(behind.map((g) => g.site?.func))].sort()).toEqual([...r.senderFuncs].sort());
            // A loop parked in a plain send has senders parked in sends; one parked in a select
            // (a send case beside a done case) has them in selects too.
            const selecting = f.evidence.groups.find((g) => g.role === 'root')?.waitKind === 'select';
            expect(behind.every((g) => g.waitKind === 'chan-send' || (selecting && g.waitKind === 'select'))).toBe(true);
            expect(f.evidence.groups.some((g) => g.role === 'related' && g.site?.func === r.writer && g.waitKind === 'io')).toBe(true);
            expect(f.title).toContain(`${r.senders} goroutines`);
            expect(f.fix).toMatch(/default/);
            expect(f.fix).toMatch(/deadline/);
            // Nothing says the senders' receiver is gone: it is the relay, stuck.
            expect(loud.filter((x) => x.ruleId === 'core/blocked-send'), summary(findings)).toEqual([]);
          } else if (d.state === 'awaiting' || d.state === 'grpc-awaiting') {
            // Requests (HTTP) or unary calls (gRPC) waiting for a server that does not answer.
            const http = d.state === 'awaiting';
            const w = (http ? d.awaiting : d.grpcAwaiting)!;
            const got = findings.filter((f) => f.ruleId === (http ? 'core/http-awaiting-response' : 'core/grpc-awaiting-response'));
            expect(got, summary(findings)).toHaveLength(1);
            const f = got[0];
            expect(f.severity).toBe(w.severity);
            expect(f.location).toMatchObject({ func: w.func, line: w.line });
            expect(f.evidence.groups.filter((g) => g.role === 'root').reduce((n, g) => n + g.count, 0)).toBe(w.waiting);
            if (http) {
              expect(f.title).toMatch(new RegExp(`^${w.waiting} HTTP requests wait for a response`));
              expect(f.evidence.facts.some((x) => /no http\.Client timeout/.test(x)), f.evidence.facts.join('\n')).toBe(true);
              expect(f.fix).toMatch(/Timeout/);
            } else {
              expect(f.title).toBe(`${w.waiting} gRPC calls wait for a response at main.go:${w.line}`);
              expect(f.fix).toMatch(/WithTimeout/);
            }
            expect(loud.filter((x) => x !== f), summary(findings)).toEqual([]);
          } else if (d.state === 'coalesced') {
            const w = d.coalesced!;
            // Callers of Do wait inside it; callers of DoChan on its channel (core/coalesced-chan-wait).
            const got = findings.filter((f) => f.ruleId === (w.rule ?? 'core/coalesced-wait'));
            expect(got, summary(findings)).toHaveLength(1);
            const f = got[0];
            expect(f.severity).toBe(w.severity);
            // Rooted at the calls (where the fix goes), the callers behind them as consequences.
            expect(f.location).toMatchObject({ func: w.func, line: w.line });
            expect(f.evidence.groups.filter((g) => g.role === 'root').reduce((n, g) => n + g.count, 0)).toBe(w.calls);
            const behind = f.evidence.groups.filter((g) => g.role === 'consequence');
            expect(behind.reduce((n, g) => n + g.count, 0)).toBe(w.waiting);
            expect(behind.every((g) => g.site?.func === w.waitFunc && g.site.line === w.waitLine)).toBe(true);
            expect(f.title).toMatch(new RegExp(`^${w.waiting} goroutines wait at \\S+:${w.waitLine} for ${w.calls} shared calls \\(singleflight\\)`));
            expect(f.fix).toMatch(w.rule ? /Forget/ : /DoChan/);
            // Nothing says the callers wait for goroutines they started.
            expect(findings.filter((x) => x.ruleId === 'core/waitgroup-stuck'), summary(findings)).toEqual([]);
            expect(loud.filter((x) => x !== f), summary(findings)).toEqual([]);
          } else if (d.state === 'heldwrite' || d.state === 'heldwrite-unlinked') {
            const h = d.heldwrite!;
            const holders = h.holders ?? 1;
            const severity = h.severity ?? 'warning';
            // Below the evidence one live snapshot needs (a few queued behind a peer slow for a moment).
            if (severity === 'none') {
              expect(loud, summary(findings)).toEqual([]);
              return;
            }
            const heard = findings.filter((f) => f.ruleId === 'core/lock-held-blocked' || f.ruleId === 'core/lock-pileup');
            expect(heard, summary(findings)).toHaveLength(1);
            const f = heard[0];
            expect(f.severity).toBe(severity);
            expect(loud.filter((x) => x !== f), summary(findings)).toEqual([]);
            expect(f.fix).toMatch(/SetWriteDeadline/);
            if (d.state === 'heldwrite') {
              // Linked by the lock's address: the holder is the root, the queue its consequences.
              expect(f.ruleId).toBe('core/lock-held-blocked');
              expect(f.location).toMatchObject({ func: h.holder, line: h.holderLine });
              expect(f.evidence.groups.filter((g) => g.role === 'root').reduce((n, g) => n + g.count, 0)).toBe(holders);
              expect(f.evidence.groups.filter((g) => g.role === 'consequence' && g.waitKind === 'mutex').reduce((n, g) => n + g.count, 0)).toBe(h.queued);
              expect(f.title).toMatch(/^Lock held while writing to a peer that does not read/);
            } else {
              // By shape: the pile-up, its likely holders related.
              expect(f.ruleId).toBe('core/lock-pileup');
              expect(f.evidence.groups.filter((g) => g.role === 'root').reduce((n, g) => n + g.count, 0)).toBe(h.queued);
              expect(f.evidence.groups.filter((g) => g.role === 'related' && g.waitKind === 'io').reduce((n, g) => n + g.count, 0)).toBe(holders);
              expect(f.title).toMatch(new RegExp(`likely held by .* writing to a peer that does not read at .*:${h.holderLine}\\)$`));
            }
          } else if (d.state === 'slots') {
            const w = d.slots!;
            expect(loud, summary(findings)).toHaveLength(1);
            const f = loud[0];
            const roots = f.evidence.groups.filter((g) => g.role === 'root');
            expect(roots.every((g) => g.site?.func === w.task && g.site.line === w.taskLine), summary(findings)).toBe(true);
            expect(roots.reduce((n, g) => n + g.count, 0)).toBe(w.tasks);
            const behind = f.evidence.groups.filter((g) => g.role === 'consequence' && g.site?.func === w.waiter && g.site.line === w.waiterLine);
            expect(behind.reduce((n, g) => n + g.count, 0), summary(findings)).toBe(w.waiting);
            expect(f.evidence.facts.some((x) => /errgroup\.\(\*Group\)\.Go \(for a free slot of its SetLimit\)/.test(x)), f.evidence.facts.join('\n')).toBe(true);
            // The waiters' send is on the group's semaphore: nobody said to be gone.
            expect(findings.some((x) => x !== f && x.location?.func === w.waiter), summary(findings)).toBe(false);
          } else if (d.state === 'unsent') {
            const u = d.unsent!;
            const bodies = findings.filter((f) => f.ruleId === 'core/request-body-stalled');
            expect(bodies, summary(findings)).toHaveLength(1);
            expect(bodies[0].severity).toBe(u.severity);
            expect(bodies[0].location).toMatchObject({ func: u.func, line: u.line });
            expect(bodies[0].evidence.goroutines).toBe(u.bodies);
            expect(bodies[0].title).toBe(`${u.bodies} requests wait at main.go:${u.line} for bodies their clients stopped sending`);
            const headers = findings.filter((f) => f.ruleId === 'core/request-headers-stalled');
            expect(headers, summary(findings)).toHaveLength(u.headers ? 1 : 0);
            if (u.headers) {
              expect(headers[0].severity).toBe(u.severity);
              expect(headers[0].evidence.goroutines).toBe(u.headers);
              expect(headers[0].title).toMatch(new RegExp(`^${u.headers} connections wait for the rest of their request headers`));
            }
            for (const f of [...bodies, ...headers]) expect(f.fix).toMatch(/ReadHeaderTimeout/);
            expect(loud.filter((x) => x !== bodies[0] && x !== headers[0]), summary(findings)).toEqual([]);
          } else if (d.state === 'unclosed') {
            const u = d.unclosed!;
            const got = findings.filter((f) => f.ruleId === u.rule);
            expect(got, summary(findings)).toHaveLength(1);
            expect(got[0].severity).toBe(u.severity);
            expect(got[0].evidence.goroutines).toBe(u.count);
            expect(got[0].title).toMatch(new RegExp(`^${u.count.toLocaleString('en-US')} `));
            // Info is neutral: it does not say the handles leak.
            if (u.severity === 'info') expect(got[0].title).not.toMatch(/never closed/);
            else expect(got[0].fix).toMatch(/Close\(\)/);
            expect(loud.filter((x) => x !== got[0]), summary(findings)).toEqual([]);
          } else if (d.state === 'pool') {
            const p = d.pool!;
            const rule = p.rule ?? 'core/db-pool-exhausted';
            const pool = findings.filter((f) => f.ruleId === rule);
            expect(pool, summary(findings)).toHaveLength(1);
            const f = pool[0];
            expect(findings[0], summary(findings)).toBe(f);
            expect(['warning', 'error']).toContain(f.severity);
            expect(f.location).toMatchObject({ func: p.func, line: p.line });
            expect(f.evidence.groups.filter((g) => g.role === 'root').reduce((n, g) => n + g.count, 0)).toBe(p.waiting);
            expect(f.title).toMatch(/no (goroutine|request) uses one/);
            if (rule === 'core/http-conns-exhausted') {
              expect(f.title).toMatch(new RegExp(`^${p.waiting} HTTP requests wait for a connection`));
              expect(f.fix).toMatch(/defer resp\.Body\.Close\(\)/);
            } else if (rule === 'core/db-pool-exhausted') {
              expect(f.title).toMatch(new RegExp(`^${p.waiting} goroutines wait for a database connection`));
              expect(f.fix).toMatch(/rows\.Close\(\)/);
              expect(f.fix).toMatch(/Rollback/);
            } else {
              expect(f.title).toMatch(new RegExp(`^${p.waiting} goroutines wait for a pooled resource`));
              expect(f.fix).toMatch(/conn\.Close\(\)/);
              expect(f.fix).toMatch(/res\.Release\(\)/);
            }
            // No other finding says what these waits are (stuck, idle, a lock pile-up).
            expect(loud.filter((x) => x !== f), summary(findings)).toEqual([]);
          } else if (d.state !== 'stalled') {
            expect(loud.map((f) => f.ruleId).sort(), summary(findings)).toEqual([...(d.knownWarnings ?? [])].sort());
            if (d.state !== 'hidden') expect(peerWrites(a).producers).toBeLessThan(5);
          } else {
            const bp = findings.filter((f) => f.ruleId === 'core/backpressure');
            expect(bp, summary(findings)).toHaveLength(1);
            expect(['warning', 'error']).toContain(bp[0].severity);
            expect(findings[0].ruleId, summary(findings)).toBe('core/backpressure');
            expect(peerWrites(a).producers).toBe(d.stalled);
            if (d.stalledClients) expect(d.stalled!).toBeLessThanOrEqual(d.stalledClients);
            expect(bp[0].title).toContain(`${d.stalled!.toLocaleString('en-US')} `);
            expect(bp[0].location?.func).toBe(d.producer);
            expect(bp[0].evidence.facts.some((x) => x.startsWith('cost: '))).toBe(true);
            expect(bp[0].fix).toMatch(/bounded queue/);
            expect(bp[0].fix).toMatch(/deadline/);
          }
          if (d.grpc) {
            const c = grpcConnections(a);
            expect({ client: c.clientConns, server: c.serverConns }).toEqual(d.grpc);
            const grpc = findings.filter((f) => f.ruleId === 'core/grpc-client-conns');
            if (d.grpc.client >= 10) expect(grpc[0]?.title).toMatch(new RegExp(`^${d.grpc.client} gRPC client connections`));
            else expect(grpc).toEqual([]);
          }
        });
      }
      if (s.growing) {
        it(`the growing series ${s.growing.join(' → ')} is an error`, async () => {
          const series = (await Promise.all(s.growing!.map((f) => analysesOf(join(dir, f))))).map((x) => x[0]);
          const latest = runRules(series[series.length - 1]);
          const rule = s.growingRule ?? 'core/backpressure';
          const raised = escalateGrowth(latest, series).find((f) => f.ruleId === rule);
          expect(raised?.severity).toBe('error');
          expect(raised?.evidence.facts.some((x) => /^grew across \d+ snapshots: /.test(x))).toBe(true);
          // One snapshot alone stays a warning; the same dump twice is no growth.
          const alone = escalateGrowth(latest, [series[series.length - 1], series[series.length - 1]]).find((f) => f.ruleId === rule);
          expect(alone?.severity).toBe('warning');
        });
      }
    });
  }
});
