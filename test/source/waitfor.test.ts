/**
 * Wait-for findings checked against the samples' own Go source (samples/deadlocks/, real Go 1.19 and
 * Go 1.23 dumps): the inferred holder of a lock is confirmed at the line that takes it, with the
 * finding's confidence raised; a Cond nobody signals and a WaitGroup never done point at the code
 * that skips them; and where the source contradicts the inference (graph-link-abba's "double lock"
 * locks another Node) the confidence goes down.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze/index.js';
import { readDump } from '../../src/read/index.js';
import { runRules } from '../../src/rules/index.js';
import type { CauseLocation, Finding } from '../../src/rules/types.js';
import { explainWithSource } from '../../src/source/index.js';
import { SAMPLES } from '../helpers/paths.js';

const DEADLOCKS = join(SAMPLES, 'deadlocks');
const VERSIONS = ['go1.19', 'go1.23'] as const;

async function run(sample: string, dump: string, source = true): Promise<Finding[]> {
  const d = await readDump(join(DEADLOCKS, sample, dump));
  const analyses = d.snapshots.map((s) => analyze(s));
  const findings = analyses.flatMap((a) => runRules(a));
  return source ? (await explainWithSource(findings, analyses, { sourceDir: DEADLOCKS })).findings : findings;
}

/** The 1-based line of `text` (trimmed, comment stripped) in the sample's file: no hard-coded numbers. */
function lineOf(sample: string, file: string, text: string): number {
  const lines = readFileSync(join(DEADLOCKS, sample, file), 'utf8').split('\n');
  const hits = lines.flatMap((l, i) => (l.replace(/\/\/.*$/, '').trim() === text ? [i + 1] : []));
  expect(hits, `${text} in ${file}`).toHaveLength(1);
  return hits[0];
}

function one(fs: Finding[], ruleId: string): Finding {
  const hits = fs.filter((f) => f.ruleId === ruleId);
  expect(hits.length, ruleId).toBeGreaterThan(0);
  return hits[0];
}

function causeAt(f: Finding, sample: string, file: string, line: number, kind: string): CauseLocation {
  const c = (f.causeLocations ?? []).find((x) => x.file.endsWith(`${sample}/${file}`) && x.line === line && x.kind === kind);
  expect(c, `${kind} at ${file}:${line} in ${JSON.stringify(f.causeLocations?.map((x) => `${x.kind} ${x.line}`))}`).toBeDefined();
  return c!;
}

const confidenceFact = (f: Finding) => f.evidence.facts.find((x) => x.startsWith('confidence:')) ?? '';

describe.each(VERSIONS)('wait-for findings confirmed from source (%s dumps)', (go) => {
  it('double lock (ledger-transfer): Refresh takes c.mu and still holds it at the call to Get, which RLocks it', async () => {
    const f = one(await run('ledger-transfer', `${go}/test-timeout.txt`), 'core/double-lock');
    const lock = lineOf('ledger-transfer', 'ledger.go', 'c.mu.Lock()');
    const held = causeAt(f, 'ledger-transfer', 'ledger.go', lock, 'lock-held-at-call');
    expect(held.confidence).toBe('high');
    expect(held.excerpt).toMatch(new RegExp(`> ${lock} \\| +c\\.mu\\.Lock\\(\\)`));
    expect(held.message).toContain('defer');
    causeAt(f, 'ledger-transfer', 'ledger.go', lineOf('ledger-transfer', 'ledger.go', 'c.mu.RLock()'), 'lock-reentry');
    expect(f.confidence).toBe('high');
    expect(confidenceFact(f)).toMatch(/^confidence: high \(confirmed from source: c\.mu\.Lock\(\)/);
  });

  it('AB-BA (ledger-transfer, inventory-move-abba): the held lock and the waited lock of each cycle member', async () => {
    const f = one(await run('ledger-transfer', `${go}/test-timeout.txt`), 'core/lock-order');
    causeAt(f, 'ledger-transfer', 'ledger.go', lineOf('ledger-transfer', 'ledger.go', 'a.mu.Lock()'), 'lock-order');
    causeAt(f, 'ledger-transfer', 'ledger.go', lineOf('ledger-transfer', 'ledger.go', 'b.mu.Lock()'), 'lock-order');
    expect(confidenceFact(f)).toContain('confirmed from source');
    const g = one(await run('inventory-move-abba', `${go}/test-timeout.txt`), 'core/lock-order');
    const from = causeAt(g, 'inventory-move-abba', 'inventory.go', lineOf('inventory-move-abba', 'inventory.go', 'm.From.lock.Lock()'), 'lock-order');
    expect(from.message).toMatch(/m\.From\.lock.*m\.To\.lock.*swapped/);
    expect(g.confidence).toBe('high');
  });

  it('double lock through an embedded mutex and a chain of calls (config-reload-double-lock)', async () => {
    const f = one(await run('config-reload-double-lock', `${go}/test-timeout.txt`), 'core/double-lock');
    // Reload → upgrade → lookup: the lock is in Reload, two frames above the wait.
    const reload = readFileSync(join(DEADLOCKS, 'config-reload-double-lock', 'registry.go'), 'utf8').split('\n').findIndex((l) => l.includes('func (r *Registry) Reload')) + 1;
    causeAt(f, 'config-reload-double-lock', 'registry.go', reload + 1, 'lock-held-at-call');
    expect(f.confidence).toBe('high');
  });

  it('recursive RLock behind a writer (metrics-snapshot-rlock)', async () => {
    const f = one(await run('metrics-snapshot-rlock', `${go}/test-timeout.txt`), 'core/double-lock');
    const rlocks = readFileSync(join(DEADLOCKS, 'metrics-snapshot-rlock', 'metrics.go'), 'utf8').split('\n').flatMap((l, i) => (l.trim() === 'h.mu.RLock()' ? [i + 1] : []));
    expect(rlocks).toHaveLength(1); // Snapshot's; percentile's carries a //stuck marker
    const held = causeAt(f, 'metrics-snapshot-rlock', 'metrics.go', rlocks[0], 'lock-held-at-call');
    expect(held.message).toMatch(/read-locks it again; a writer queued/);
    expect(f.confidence).toBe('high');
    expect(confidenceFact(f)).toContain('same object');
  });

  it('lock held at a channel receive (conn-pool-reply-lock) and at a WaitGroup Wait (service-shutdown-wg, metrics-aggregator-wg)', async () => {
    const f = one(await run('conn-pool-reply-lock', `${go}/test-timeout.txt`), 'core/lock-held-blocked');
    const held = causeAt(f, 'conn-pool-reply-lock', 'pool.go', lineOf('conn-pool-reply-lock', 'pool.go', 'func (p *Pool) Acquire() *Conn {') + 1, 'lock-held-while-blocked');
    expect(held.message).toMatch(/channel receive at .*pool\.go:43.*pool\.go:25 queues/);
    expect(f.confidence).toBe('high');
    const g = one(await run('service-shutdown-wg', `${go}/test-timeout.txt`), 'core/lock-held-blocked');
    causeAt(g, 'service-shutdown-wg', 'service.go', lineOf('service-shutdown-wg', 'service.go', 'func (s *Service) Shutdown() map[int]int {') + 1, 'lock-held-while-blocked');
    expect(g.confidence).toBe('high');
    const h = one(await run('metrics-aggregator-wg', `${go}/test-timeout.txt`), 'core/lock-held-blocked');
    causeAt(h, 'metrics-aggregator-wg', 'aggregator.go', lineOf('metrics-aggregator-wg', 'aggregator.go', 'func (a *Aggregator) Collect() map[string]float64 {') + 1, 'lock-held-while-blocked');
  });

  it("lock held at a Cond.Wait of another lock (index-flush-cond-lock): idx.mu, not the Cond's own idx.log.mu", async () => {
    const f = one(await run('index-flush-cond-lock', `${go}/test-timeout.txt`), 'core/lock-held-blocked');
    const flush = lineOf('index-flush-cond-lock', 'index.go', 'func (idx *Index) Flush() {');
    causeAt(f, 'index-flush-cond-lock', 'index.go', flush + 1, 'lock-held-while-blocked');
    expect(f.causeLocations!.filter((c) => c.kind === 'lock-held-while-blocked').map((c) => c.line)).toEqual([flush + 1]);
  });

  it('a Cond nobody signals: PushFront changes the queue without Signal (job-queue-cond); Broadcast under a condition (startup-gate-cond)', async () => {
    const f = one(await run('job-queue-cond', `${go}/test-timeout.txt`), 'core/stuck-wait');
    const push = lineOf('job-queue-cond', 'queue.go', 'q.items = append([]Job{j}, q.items...)');
    expect(causeAt(f, 'job-queue-cond', 'queue.go', push, 'missing-signal').confidence).toBe('high');
    // Push signals after its change: not a cause.
    expect(f.causeLocations!.some((c) => c.line === lineOf('job-queue-cond', 'queue.go', 'q.items = append(q.items, j)'))).toBe(false);
    expect(f.confidence).toBe('high');
    const g = one(await run('startup-gate-cond', `${go}/test-timeout.txt`), 'core/stuck-wait');
    const skipped = causeAt(g, 'startup-gate-cond', 'gate.go', lineOf('startup-gate-cond', 'gate.go', 'g.cond.Broadcast()'), 'signal-skipped');
    expect(skipped.message).toContain('if g.listeners > 0');
  });

  it('a WaitGroup never done: a return before defer wg.Done() (batch-upload-wg)', async () => {
    const f = one(await run('batch-upload-wg', `${go}/test-timeout.txt`), 'core/stuck-wait');
    const ret = lineOf('batch-upload-wg', 'upload.go', 'return');
    expect(causeAt(f, 'batch-upload-wg', 'upload.go', ret, 'missing-done').confidence).toBe('high');
    expect(f.confidence).toBe('high');
  });

  it('the source contradicts a double lock (graph-link-abba): Link holds n.state, peerEdges locks peer.state', async () => {
    const before = (await run('graph-link-abba', `${go}/test-timeout.txt`, false)).filter((f) => f.ruleId === 'core/double-lock');
    const after = (await run('graph-link-abba', `${go}/test-timeout.txt`)).filter((f) => f.ruleId === 'core/double-lock');
    expect(after.length).toBeGreaterThan(0);
    for (const [i, f] of after.entries()) {
      expect(before[i].confidence).toBe('low');
      expect(f.confidence).toBe('low');
      expect(confidenceFact(f)).toMatch(/the source contradicts it: the caller holds n\.state but the callee locks peer\.state/);
      causeAt(f, 'graph-link-abba', 'graph.go', lineOf('graph-link-abba', 'graph.go', 'n.state.Lock()'), 'lock-order');
      expect(f.causeLocations!.some((c) => c.kind === 'lock-held-at-call')).toBe(false);
    }
  });
});

describe('without the source nothing is claimed', () => {
  it('the double-lock finding keeps its inferred confidence and has no cause lines', async () => {
    const f = one(await run('ledger-transfer', 'go1.23/test-timeout.txt', false), 'core/double-lock');
    expect(f.causeLocations ?? []).toEqual([]);
    expect(confidenceFact(f)).toMatch(/^confidence: medium \(who holds a lock is never printed/);
  });
});
