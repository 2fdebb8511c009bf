/**
 * core/coalesced-wait on the real avatar-cache dumps (samples/servers/avatar-cache; what each dump
 * holds: test/rules/servers.test.ts), changed one fact at a time: without the calls' goroutines the
 * callers wait for a call nobody in the dump runs; a call run by `DoChan` (its own goroutine, no caller
 * of `Do`) is still theirs; pasted excerpts; over a series, callers piling up make it an error; with
 * the source, the calls' request without a timeout and the Do the callers cannot leave are pointed at.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze, explainWithSource, readDump, readDumpFrom, runRules } from '../../src/index.js';
import type { Analysis, AnalyzedGroup } from '../../src/analyze/types.js';
import type { Finding } from '../../src/rules/types.js';
import { escalateGrowth } from '../../src/rules/growth.js';
import { SAMPLES } from '../helpers/paths.js';

const DIR = join(SAMPLES, 'servers', 'avatar-cache');

async function analysisOf(rel: string): Promise<Analysis> {
  const dump = await readDump(join(DIR, rel));
  return analyze(dump.snapshots[0]);
}

/** `a` with its groups changed (the rules cache per analysis object: a new one is judged afresh). */
function withGroups(a: Analysis, groups: AnalyzedGroup[]): Analysis {
  return { ...a, groups, waits: undefined };
}

const summary = (fs: Finding[]) => fs.map((f) => `${f.severity} ${f.ruleId} ${f.title}`).join('\n');
const coalesced = (fs: Finding[]) => fs.filter((f) => f.ruleId === 'core/coalesced-wait');
const isLeader = (g: AnalyzedGroup) => g.blockingSite?.func === 'main.(*avatarCache).fetch';

describe('core/coalesced-wait', () => {
  it('without the goroutines running the calls, the callers wait for a call no goroutine of the dump runs', async () => {
    const a = await analysisOf('dumps/hung.debug2.txt.gz');
    expect(a.groups.some(isLeader)).toBe(true);
    const fs = runRules(withGroups(a, a.groups.filter((g) => !isLeader(g))));
    const [f, ...more] = coalesced(fs);
    expect(more, summary(fs)).toEqual([]);
    expect(f.title).toBe('12 goroutines wait at main.go:79 for a shared call (singleflight) that no goroutine in the dump is running');
    expect(f.location).toMatchObject({ func: 'main.(*avatarCache).get', line: 79 });
    expect(f.evidence.facts).toContain('no goroutine of the dump is inside a singleflight call (Do or doCall)');
    expect(fs.some((x) => x.ruleId === 'core/waitgroup-stuck'), summary(fs)).toBe(false);
  });

  it("a call run by DoChan (doCall in a goroutine of its own, no caller of Do on its stack) is the callers' too", async () => {
    const a = await analysisOf('dumps/hung.debug2.txt.gz');
    // The leaders' stacks cut right above doCall, as DoChan's goroutine prints them.
    const groups = a.groups.map((g) => {
      if (!isLeader(g)) return g;
      const at = g.frames.findIndex((f) => f.func === 'golang.org/x/sync/singleflight.(*Group).doCall');
      expect(at).toBeGreaterThan(0);
      return { ...g, frames: g.frames.slice(0, at + 1) };
    });
    const [f] = coalesced(runRules(withGroups(a, groups)));
    expect(f.title).toMatch(/^12 goroutines wait at main\.go:79 for 4 shared calls \(singleflight\) that wait at main\.go:119/);
  });

  it('the calls waiting for an HTTP response with a client timeout are not said to have none', async () => {
    const a = await analysisOf('dumps/hung.debug2.txt.gz');
    const timer = a.groups.find(isLeader)!;
    // net/http's per-request timer goroutines, one per request with a Client.Timeout.
    const groups = [...a.groups, { ...timer, id: 'timer', key: 'timer', count: 4, blockingSite: undefined, frames: [{ ...timer.frames[0], func: 'net/http.setRequestCancel.func4' }] }];
    const [f] = coalesced(runRules(withGroups(a, groups as AnalyzedGroup[])));
    expect(f.title).toMatch(/for an HTTP response$/);
    expect(f.evidence.facts.some((x) => /no http\.Client timeout/.test(x))).toBe(false);
  });
});

describe('core/coalesced-chan-wait: callers of DoChan, waiting on its channel', () => {
  const chan = (fs: Finding[]) => fs.filter((f) => f.ruleId === 'core/coalesced-chan-wait');

  it("are tied to the calls by the function literal the calls run (getChan.func1 → getChan's select)", async () => {
    const a = await analysisOf('dumps/hung-chan-1m.debug2.txt.gz');
    const fs = runRules(a);
    const [f] = chan(fs);
    expect(f?.severity, summary(fs)).toBe('warning');
    expect(f.location).toMatchObject({ func: 'main.(*avatarCache).fetch', line: 119 });
    expect(f.evidence.groups.filter((g) => g.role === 'consequence').map((g) => `${g.count} ${g.site?.func}:${g.site?.line}`)).toEqual(['16 main.(*avatarCache).getChan:107']);
    expect(fs.filter((x) => x !== f && x.severity !== 'info'), summary(fs)).toEqual([]);
  });

  it("with the source, the calls' request without a timeout (the callers can leave: no uncancellable Do)", async () => {
    const a = await analysisOf('dumps/hung-chan-1m.debug2.txt.gz');
    const { findings } = await explainWithSource(runRules(a), [a], { sourceDir: DIR });
    expect((chan(findings)[0].causeLocations ?? []).map((c) => `${c.kind}@${c.line}`)).toEqual(['request-without-timeout@119']);
  });

  it('without the calls in the dump, nothing ties the selects to singleflight: not said', async () => {
    const a = await analysisOf('dumps/hung-chan-1m.debug2.txt.gz');
    const b = withGroups(a, a.groups.filter((g) => !isLeader(g)));
    expect(chan(runRules(b))).toEqual([]);
  });

  it('a select elsewhere than in the function whose literal the calls run is no caller', async () => {
    const a = await analysisOf('dumps/hung-chan.debug2.txt.gz');
    const moved = withGroups(a, a.groups.map((g) => (g.blockingSite?.func === 'main.(*avatarCache).getChan' ? { ...g, blockingSite: { ...g.blockingSite, func: 'main.(*avatarCache).other' } } : g)));
    expect(chan(runRules(moved))).toEqual([]);
  });
});

describe('core/coalesced-wait in an excerpt', () => {
  const blocks = () => gunzipSync(readFileSync(join(DIR, 'dumps', 'hung.debug2.txt.gz'))).toString('utf8').split(/\n\n+/);
  const callers = (b: string[]) => b.filter((x) => /^goroutine \d+ \[semacquire\]:[\s\S]*singleflight\.\(\*Group\)\.Do/.test(x));
  const calls = (b: string[]) => b.filter((x) => /main\.\(\*avatarCache\)\.fetch/.test(x) && /^goroutine \d+ \[select\]/.test(x));

  it('two callers and one call pasted: the call, with the callers behind it', async () => {
    const b = blocks();
    const cut = [...callers(b).slice(0, 2), ...calls(b).slice(0, 1)];
    expect(cut).toHaveLength(3);
    const dump = await readDumpFrom('pasted.txt', cut.join('\n\n') + '\n');
    expect(dump.snapshots[0].context?.kind).toBe('excerpt');
    const fs = runRules(analyze(dump.snapshots[0]));
    const [f] = coalesced(fs);
    expect(f?.title, summary(fs)).toMatch(/^2 goroutines wait at main\.go:79 for 1 shared call \(singleflight\) that waits at main\.go:119/);
  });

  it('two callers alone: the call may be in the part not shown', async () => {
    const dump = await readDumpFrom('pasted.txt', callers(blocks()).slice(0, 2).join('\n\n') + '\n');
    const fs = runRules(analyze(dump.snapshots[0]));
    const [f] = coalesced(fs);
    expect(f?.title, summary(fs)).toMatch(/that no goroutine in the dump is running$/);
    expect(f.evidence.facts.some((x) => /excerpt/.test(x))).toBe(true);
    expect(fs.some((x) => x.ruleId === 'core/waitgroup-stuck' || x.ruleId === 'core/stuck-wait'), summary(fs)).toBe(false);
  });
});

describe('core/coalesced-wait over a series', () => {
  it('info in one live snapshot; an error when the callers grew across the series (7 → 12 in one process)', async () => {
    const healthy = await analysisOf('dumps/healthy.debug2.txt.gz');
    const hung = await analysisOf('dumps/hung.debug2.txt.gz');
    const latest = runRules(hung);
    expect(coalesced(latest)[0].severity).toBe('info');
    const raised = coalesced(escalateGrowth(latest, [healthy, hung]))[0];
    expect(raised.severity).toBe('error');
    expect(raised.evidence.facts).toContain('grew across 2 snapshots: 7 → 12 goroutines waiting for a shared (singleflight) call: the calls do not return and more callers join');
    expect(coalesced(escalateGrowth(latest, [hung, hung]))[0].severity).toBe('info');
  });
});

describe('core/coalesced-wait with the source', () => {
  it("points at the calls' request without a timeout and at the Do the callers cannot leave", async () => {
    const a = await analysisOf('dumps/hung-1m.debug2.txt.gz');
    const { findings } = await explainWithSource(runRules(a), [a], { sourceDir: DIR });
    const [f] = coalesced(findings);
    expect((f.causeLocations ?? []).map((c) => `${c.kind}@${c.line}`)).toEqual(['request-without-timeout@119', 'uncancellable-share@79']);
    expect(f.causeLocations![1].message).toMatch(/^12 callers wait here in singleflight's Do .* DoChan/);
  });
});
