/**
 * core/stalled-relay and the busy receiver of core/blocked-send, on the real chat-hub and log-tail
 * dumps (samples/servers/; what each dump holds: test/rules/servers.test.ts), changed one fact at a
 * time: without a consumer parked outside its receive nothing shows that the loop waits on one, and
 * the senders are a send nobody receives again; a busy loop excuses a few short waits of a live
 * process only; a loop parked in a select (event-stream's broker) is told from an idle one by wait
 * times only.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze, explainWithSource, readDump, readDumpFrom, runRules } from '../../src/index.js';
import type { Analysis, AnalyzedGroup } from '../../src/analyze/types.js';
import type { Finding } from '../../src/rules/types.js';
import { escalateGrowth } from '../../src/rules/growth.js';
import { SAMPLES } from '../helpers/paths.js';

const SERVERS = join(SAMPLES, 'servers');

async function analysisOf(rel: string): Promise<Analysis> {
  const dump = await readDump(join(SERVERS, rel));
  return analyze(dump.snapshots[0]);
}

/** `a` with its groups changed (the rules cache per analysis object: a new one is judged afresh). */
function withGroups(a: Analysis, groups: AnalyzedGroup[]): Analysis {
  return { ...a, groups, waits: undefined };
}

const at = (f: Finding) => `${f.location?.func}:${f.location?.line}`;
const summary = (fs: Finding[]) => fs.map((f) => `${f.severity} ${f.ruleId} ${f.title}`).join('\n');

describe('core/stalled-relay', () => {
  it.each([
    ['chat-hub/dumps/stalled.debug2.txt.gz', 'main.(*client).writePump', 'main.(*client).readPump:80'],
    ['log-tail/dumps/stalled.sigquit.txt.gz', 'main.(*follower).pump', 'main.(*broker).publish:95'],
  ])('%s: without the consumer parked outside its receive, no relay is claimed and the senders are a blocked send again', async (rel, consumer, senders) => {
    const a = await analysisOf(rel);
    expect(runRules(a).some((f) => f.ruleId === 'core/stalled-relay')).toBe(true);
    const stuck = (g: AnalyzedGroup) => g.waitKind === 'io' && g.blockingSite?.func === consumer;
    expect(a.groups.some(stuck)).toBe(true);
    const fs = runRules(withGroups(a, a.groups.filter((g) => !stuck(g))));
    expect(fs.some((f) => f.ruleId === 'core/stalled-relay'), summary(fs)).toBe(false);
    const send = fs.find((f) => at(f) === senders);
    expect(send, summary(fs)).toMatchObject({ ruleId: 'core/blocked-send' });
    expect(send!.severity).not.toBe('info');
  });

  it('the relay must be a loop of few goroutines: the same stall with the loop counted 3 times claims nothing', async () => {
    const a = await analysisOf('chat-hub/dumps/stalled.debug2.txt.gz');
    const groups = a.groups.map((g) => (g.blockingSite?.func === 'main.(*hub).run' ? { ...g, count: 3 } : g));
    expect(runRules(withGroups(a, groups)).some((f) => f.ruleId === 'core/stalled-relay')).toBe(false);
  });
});

describe('core/stalled-relay: a loop parked in a select', () => {
  const rel = 'event-stream/dumps/stalled-1m.debug2.txt.gz';
  const relays = (a: Analysis) => runRules(a).filter((f) => f.ruleId === 'core/stalled-relay');

  it('is found by wait times: the same dump without them says nothing (a loop waiting for work parks in a select too)', async () => {
    const a = await analysisOf(rel);
    expect(relays(a).map((f) => [f.severity, f.evidence.goroutines])).toEqual([['error', 11]]);
    expect(relays(a)[0].title).toMatch(/which is stuck at main\.go:64: its consumer main\.\(\*broker\)\.events is blocked writing/);
    const unstamped = withGroups(a, a.groups.map((g) => ({ ...g, wait: undefined })));
    expect(relays(unstamped), summary(runRules(unstamped))).toEqual([]);
    // Only the loop unstamped (it moved a moment ago): nothing either.
    const moving = withGroups(a, a.groups.map((g) => (g.blockingSite?.func === 'main.(*broker).run' ? { ...g, wait: undefined } : g)));
    expect(relays(moving)).toEqual([]);
  });

  it('needs the consumer stuck: with the handlers\' writes gone, the broker and the publishers are only waiting', async () => {
    const a = await analysisOf(rel);
    const writing = (g: AnalyzedGroup) => g.waitKind === 'io' && g.blockingSite?.func === 'main.(*broker).events';
    expect(a.groups.filter(writing).reduce((n, g) => n + g.count, 0)).toBe(4);
    const b = withGroups(a, a.groups.filter((g) => !writing(g)));
    expect(relays(b), summary(runRules(b))).toEqual([]);
    expect(runRules(b).filter((f) => f.severity !== 'info'), summary(runRules(b))).toEqual([]);
  });

  it('the subscribers idle at their select are the consumer, not senders; with the source, the handler\'s Flush without a deadline', async () => {
    const a = await analysisOf(rel);
    const [f] = relays(a);
    expect(f.evidence.groups.filter((g) => g.role === 'consequence').map((g) => `${g.site?.func}:${g.site?.line}`)).toEqual(['main.(*broker).publishEvent:98']);
    const { findings } = await explainWithSource([f], [a], { sourceDir: join(SERVERS, 'event-stream') });
    const causes = findings[0].causeLocations ?? [];
    // The delivery select has a done case: no "receiver gives up while the send has no matching case".
    expect(causes.map((c) => `${c.kind}@${c.line}`)).toEqual(['write-without-deadline@85']);
    expect(causes[0].message).toMatch(/http\.NewResponseController\(w\)\.SetWriteDeadline/);
  });
});

describe('core/stalled-relay in an excerpt', () => {
  it('four goroutines cut from the real dump, as pasted in a report: the loop, two of its senders, the stuck writer', async () => {
    const text = gunzipSync(readFileSync(join(SERVERS, 'chat-hub', 'dumps', 'stalled.debug2.txt.gz'))).toString('utf8');
    const blocks = text.split(/\n\n+/);
    const pick = (re: RegExp, n: number) => blocks.filter((b) => re.test(b)).slice(0, n);
    const cut = [
      ...pick(/^goroutine \d+ \[chan send\]:\nmain\.\(\*hub\)\.run/, 1),
      ...pick(/^goroutine \d+ \[chan send\]:\nmain\.\(\*client\)\.readPump/, 2),
      ...pick(/^goroutine \d+ \[IO wait\]:[\s\S]*main\.\(\*client\)\.writePump/, 1),
    ];
    expect(cut).toHaveLength(4);
    const dump = await readDumpFrom('pasted.txt', cut.join('\n\n') + '\n');
    expect(dump.snapshots[0].context?.kind).toBe('excerpt');
    const fs = runRules(analyze(dump.snapshots[0]));
    const f = fs.find((x) => x.ruleId === 'core/stalled-relay');
    expect(f, summary(fs)).toMatchObject({ severity: 'warning', location: { func: 'main.(*hub).run', line: 57 } });
    expect(f!.title).toMatch(/^2 goroutines wait to send to main\.\(\*hub\)\.run/);
    expect(fs.some((x) => x.ruleId === 'core/stuck-wait')).toBe(false);
  });
});

describe('core/stalled-relay over a series', () => {
  it('a warning in one live snapshot; an error when the senders behind it grew (30 → 35 in one room)', async () => {
    const stalled = await analysisOf('chat-hub/dumps/stalled.debug2.txt.gz');
    const joining = await analysisOf('chat-hub/dumps/joining.debug2.txt.gz');
    const latest = runRules(joining);
    expect(latest.find((f) => f.ruleId === 'core/stalled-relay')?.severity).toBe('warning');
    const raised = escalateGrowth(latest, [stalled, joining]).find((f) => f.ruleId === 'core/stalled-relay');
    expect(raised?.severity).toBe('error');
    expect(raised?.evidence.facts).toContain('grew across 2 snapshots: 30 → 35 goroutines waiting behind a stalled relay: every stalled peer stays stalled and more join');
    // The same snapshot twice is no growth.
    expect(escalateGrowth(latest, [joining, joining]).find((f) => f.ruleId === 'core/stalled-relay')?.severity).toBe('warning');
  });
});

describe('core/stalled-relay with the source', () => {
  it('points at the consumers\' early exits, never at a cancellation case for the loop\'s send (it would not free it)', async () => {
    const a = await analysisOf('log-tail/dumps/stalled.debug2.txt.gz');
    const { findings } = await explainWithSource(runRules(a), [a], { sourceDir: join(SERVERS, 'log-tail') });
    const relay = findings.find((f) => f.ruleId === 'core/stalled-relay');
    const kinds = (relay?.causeLocations ?? []).map((c) => `${c.kind}@${c.line}`);
    expect(kinds).toEqual(['write-without-deadline@80', 'consumer-exit@78', 'consumer-exit@81']);
    // The same send under core/blocked-send keeps its cancellation advice.
    const plain = runRules(withGroups(a, a.groups.filter((g) => !(g.waitKind === 'io' && g.blockingSite?.func === 'main.(*follower).pump'))));
    const { findings: again } = await explainWithSource(plain, [a], { sourceDir: join(SERVERS, 'log-tail') });
    expect(again.flatMap((f) => f.causeLocations ?? []).some((c) => c.kind === 'no-cancel-case')).toBe(true);
  });
});

describe('core/stalled-relay: the consumer\'s write without a deadline, from the source', () => {
  it.each([
    ['chat-hub', 'chat-hub/dumps/joining.debug2.txt.gz', 86],
    ['log-tail', 'log-tail/dumps/go1.23/stalled.sigquit.txt.gz', 80],
  ])('%s: the stuck consumer\'s write is pointed at, first', async (dir, rel, line) => {
    const a = await analysisOf(rel);
    const { findings } = await explainWithSource(runRules(a), [a], { sourceDir: join(SERVERS, dir) });
    const relay = findings.find((f) => f.ruleId === 'core/stalled-relay')!;
    const c = relay.causeLocations?.[0];
    expect(c).toMatchObject({ kind: 'write-without-deadline', line });
    expect(c!.message).toMatch(/no write deadline/);
    expect(c!.message).toMatch(/SetWriteDeadline/);
  });

  it('not where the writer sets a deadline (the same source, one call added on the function\'s own line)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leakscope-relay-'));
    const src = readFileSync(join(SERVERS, 'chat-hub', 'main.go'), 'utf8');
    const edited = src.replace('func (c *client) writePump() {', 'func (c *client) writePump() { c.conn.SetWriteDeadline(time.Now().Add(time.Minute))');
    expect(edited).not.toBe(src);
    writeFileSync(join(dir, 'main.go'), edited);
    const a = await analysisOf('chat-hub/dumps/joining.debug2.txt.gz');
    const { findings } = await explainWithSource(runRules(a), [a], { sourceDir: dir });
    const relay = findings.find((f) => f.ruleId === 'core/stalled-relay')!;
    expect((relay.causeLocations ?? []).some((c) => c.kind === 'write-without-deadline')).toBe(false);
    expect((relay.causeLocations ?? []).some((c) => c.kind === 'consumer-exit')).toBe(true);
  });
});

describe('core/blocked-send beside a busy loop', () => {
  const SENDERS = 'main.(*client).readPump:80';

  it('a few short waits beside the room\'s loop delivering are info, with the loop named', async () => {
    const a = await analysisOf('chat-hub/dumps/healthy.sigquit.txt.gz');
    const f = runRules(a).find((x) => at(x) === SENDERS);
    expect(f).toMatchObject({ ruleId: 'core/blocked-send', severity: 'info', title: '2 goroutines wait to send at main.go:80' });
    expect(f!.evidence.facts).toContain(
      'main.(*hub).run, a loop of the same code (1 goroutine), is runnable at main.go:57: a receiver busy delivering, so nobody-receives is not claimed from one snapshot',
    );
  });

  it('not in a dump of a failure (a test timeout): nothing delivers any more', async () => {
    const a = await analysisOf('chat-hub/dumps/healthy.sigquit.txt.gz');
    const failed = { ...a, snapshot: { ...a.snapshot, context: { kind: 'test-timeout' as const, summary: 'a go test timeout' } } };
    expect(runRules(failed).find((x) => at(x) === SENDERS)?.severity).toBe('warning');
  });

  it('not for senders parked a minute or more', async () => {
    const a = await analysisOf('chat-hub/dumps/healthy.sigquit.txt.gz');
    const groups = a.groups.map((g) => (`${g.blockingSite?.func}:${g.blockingSite?.line}` === SENDERS ? { ...g, wait: { min: 3, max: 4, stamped: 2 } } : g));
    expect(runRules(withGroups(a, groups)).find((x) => at(x) === SENDERS)?.severity).toBe('warning');
  });

  it('not without a loop of the same package running', async () => {
    const a = await analysisOf('chat-hub/dumps/healthy.sigquit.txt.gz');
    const groups = a.groups.filter((g) => g.blockingSite?.func !== 'main.(*hub).run');
    expect(runRules(withGroups(a, groups)).find((x) => at(x) === SENDERS)?.severity).toBe('warning');
  });
});

describe('the in-flight fact beside the room\'s idle writers', () => {
  it('names what the busy goroutine shares with the loop (here only its package), in grammatical English', async () => {
    const a = await analysisOf('chat-hub/dumps/healthy.sigquit.txt.gz');
    const idle = runRules(a).find((x) => at(x) === 'main.(*client).writePump:85');
    // It matched by package, not by the writers' receiver type (main.client): hub.run is no client method.
    expect(idle?.evidence.facts).toContain('1 goroutine is busy in package main (main.(*hub).run): work of a request in flight in this snapshot; compare two dumps to tell a leak');
  });
});
