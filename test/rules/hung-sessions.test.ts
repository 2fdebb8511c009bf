/**
 * Idle start-up pools must not outrank hung per-session sets. samples/hung-sessions is a real daemon
 * (two pools of 10 workers idle since start-up, 164 exec sessions × 3 goroutines left hanging), dumped
 * after 190 s: debug=2 prints 3 minutes for the pools, 2 for the sessions. The built-in thresholds are
 * an hour for a hung set and 30 minutes of uptime for an idle pool; the test lowers both to a minute
 * with a user config, the way a project would tune them, so the real dump exercises them. Hand-built
 * analyses with the frames of that dump carry the figures the case was reported with (pools parked
 * 3,598 minutes, sessions up to 2,595).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze/index.js';
import { readDump } from '../../src/read/index.js';
import { runRules, type Finding, type LeakscopeConfig } from '../../src/rules/index.js';
import { SAMPLES, sampleCases } from '../helpers/paths.js';
import { analysis, group } from './build.js';
import { expectedOf, summary } from './e2e.js';

const CASE = 'hung-sessions';
const MINUTES: LeakscopeConfig = {
  overrides: {
    'core/hung-sessions': { params: { minWaitMinutes: 1 } },
    'core/blocked-receive': { params: { minUptimeMinutes: 1 } },
  },
};

async function findings(file: string, config?: LeakscopeConfig): Promise<Finding[]> {
  const dump = await readDump(join(SAMPLES, CASE, file));
  return runRules(analyze(dump.snapshots[0]), config ? { config } : {});
}

const ROLES = [
  'io.Copy in session.(*Session).pump (I/O wait)',
  'sync.(*Cond).Wait in session.(*buffer).Read',
  'exec.(*Cmd).Wait in session.(*Session).wait (syscall)',
];

describe.skipIf(!sampleCases().includes(CASE))('samples/hung-sessions', () => {
  const exp = expectedOf(CASE);
  const sessionGroups = exp.groups!.filter((g) => g.id.startsWith('session'));
  const setSize = sessionGroups.reduce((n, g) => n + g.count, 0);
  const sessionSite = (f: Finding) => f.evidence.groups.some((g) => sessionGroups.some((s) => g.site?.func === s.function && g.site.line === s.line));

  it('debug=2, thresholds in minutes: the hung set is the first finding, names its three roles and counts all 492', async () => {
    const fs = await findings('goroutine.debug2.txt', MINUTES);
    const f = fs[0];
    expect(f.ruleId, summary(fs)).toBe('core/hung-sessions');
    expect(setSize).toBe(492);
    expect(f.evidence.goroutines).toBe(setSize);
    expect(f.title).toBe(`164 hung sessions × 3 roles, parked up to 2 minutes: ${ROLES.join(', ')}`);
    for (const s of sessionGroups) {
      const g = f.evidence.groups.find((x) => x.site?.func === s.function && x.site.line === s.line);
      expect(g, s.id).toMatchObject({ count: s.count });
    }
    // One Cond role parked for minutes is a stuck wait on its own (an error): part of the set's finding.
    expect(f.severity).toBe('error');
    expect(f.evidence.facts).toContainEqual(expect.stringMatching(/^also: 164 goroutines stuck on a condition variable .*\(core\/stuck-wait\)$/));
    // No other finding is about a session goroutine.
    expect(fs.slice(1).filter(sessionSite), summary(fs)).toEqual([]);
  });

  it('debug=2, thresholds in minutes: both start-up pools are idle pools (info), never "nobody sends"', async () => {
    const fs = await findings('goroutine.debug2.txt', MINUTES);
    const pools = fs.filter((f) => f.ruleId === 'core/blocked-receive');
    expect(pools.map((f) => [f.severity, f.evidence.goroutines]), summary(fs)).toEqual([['info', 10], ['info', 10]]);
    for (const f of pools) expect(f.title).toMatch(/^Idle loops: 10 goroutines wait for work at (ingest|export)\.go:\d+$/);
    expect(fs.filter((f) => f.severity !== 'info' && !sessionSite(f)), summary(fs)).toEqual([]);
  });

  it('debug=2, built-in thresholds: 2 minutes is no hung set, and 3 minutes of uptime no idle pool yet', async () => {
    const fs = await findings('goroutine.debug2.txt');
    expect(fs.filter((f) => f.ruleId === 'core/hung-sessions'), summary(fs)).toEqual([]);
    const ingest = fs.find((f) => f.location?.func.endsWith('ingest.next'));
    expect(ingest?.severity, summary(fs)).toBe('warning');
  });

  for (const file of ['goroutine.debug1.txt', 'goroutine.debug0.pb.gz']) {
    it(`${file} (no wait times): the set is the first info, counted whole, with its roles`, async () => {
      const fs = await findings(file, MINUTES);
      expect(fs.filter((f) => f.ruleId === 'core/hung-sessions')).toEqual([]);
      const f = fs.find((x) => x.severity === 'info')!;
      expect(f.ruleId, summary(fs)).toBe('core/proportional');
      expect(f.evidence.goroutines).toBe(setSize);
      expect(f.explanation).toContain('io.Copy in session.(*Session).pump (I/O wait)');
      expect(f.explanation).toContain('sync.(*Cond).Wait in session.(*buffer).Read');
      expect(f.explanation).toContain('exec.(*Cmd).Wait in session.(*Session).wait (syscall)');
      expect(fs.filter((x) => x.severity !== 'info' && sessionSite(x)), summary(fs)).toEqual([]);
    });
  }
});

/** The frames of samples/hung-sessions/goroutine.debug2.txt, with the reported wait minutes. */
const GO = '/usr/lib/go-1.19/src';
const SRC = '/srv/streamd/internal';
const EXEC = `example.com/streamd/internal/session.(*Server).Exec @ ${SRC}/session/session.go:59`;
const pump = (count: number, wait: { min: number; max: number }) =>
  group({
    count, waitKind: 'io', state: 'IO wait', wait, creator: EXEC,
    frames: [
      `internal/poll.runtime_pollWait @ ${GO}/runtime/netpoll.go:305`,
      `internal/poll.(*pollDesc).wait @ ${GO}/internal/poll/fd_poll_runtime.go:84`,
      `internal/poll.(*FD).Read @ ${GO}/internal/poll/fd_unix.go:167`,
      `os.(*File).Read @ ${GO}/os/file.go:119`,
      `io.copyBuffer @ ${GO}/io/io.go:427`,
      `io.Copy @ ${GO}/io/io.go:386 (inlined)`,
      `example.com/streamd/internal/session.(*Session).pump @ ${SRC}/session/session.go:67`,
    ],
  });
const feed = (count: number, wait: { min: number; max: number }) =>
  group({
    count, waitKind: 'cond', state: 'sync.Cond.Wait', wait, creator: EXEC,
    frames: [
      `sync.runtime_notifyListWait @ ${GO}/runtime/sema.go:517`,
      `sync.(*Cond).Wait @ ${GO}/sync/cond.go:70`,
      `example.com/streamd/internal/session.(*buffer).Read @ ${SRC}/session/buffer.go:27`,
      `example.com/streamd/internal/session.(*Session).feed @ ${SRC}/session/session.go:74`,
    ],
  });
const reap = (count: number, wait: { min: number; max: number }) =>
  group({
    count, waitKind: 'syscall', state: 'syscall', wait, creator: EXEC,
    frames: [
      `syscall.Syscall6 @ ${GO}/syscall/syscall_linux.go:90`,
      `os.(*Process).blockUntilWaitable @ ${GO}/os/wait_waitid.go:32`,
      `os.(*Process).wait @ ${GO}/os/exec_unix.go:22`,
      `os/exec.(*Cmd).Wait @ ${GO}/os/exec/exec.go:599`,
      `example.com/streamd/internal/session.(*Session).wait @ ${SRC}/session/session.go:87`,
    ],
  });
const pool = (pkg: string, creator: string, min: number) =>
  group({
    count: 10, waitKind: 'chan-receive', state: 'chan receive', wait: { min, max: 3598 }, creator: `${creator} @ ${SRC}/../main.go:45`,
    frames: [`example.com/streamd/internal/${pkg}.next @ ${SRC}/${pkg}/${pkg}.go:20`, `example.com/streamd/internal/${pkg}.Worker @ ${SRC}/${pkg}/${pkg}.go:10`],
  });

describe('hung per-session sets (the reported figures)', () => {
  const pools = () => [pool('ingest', 'main.main', 3597), pool('export', 'example.com/streamd/internal/export.NewPool', 3598)];

  it('3 × ~164 parked up to 2,595 minutes: one error, first, counting the whole set; the pools are info', () => {
    const fs = runRules(analysis([...pools(), pump(164, { min: 3, max: 2595 }), feed(163, { min: 3, max: 2595 }), reap(164, { min: 3, max: 2595 })]));
    expect(fs[0].ruleId, summary(fs)).toBe('core/hung-sessions');
    expect(fs[0].severity).toBe('error');
    expect(fs[0].evidence.goroutines).toBe(164 + 163 + 164);
    // Roles in group order (largest first): the 163 feeders come last.
    expect(fs[0].title).toBe(`163 hung sessions × 3 roles, parked up to 2,595 minutes: ${[ROLES[0], ROLES[2], ROLES[1]].join(', ')}`);
    const rest = fs.slice(1);
    expect(rest.filter((f) => f.severity !== 'info'), summary(fs)).toEqual([]);
    expect(rest.filter((f) => f.ruleId === 'core/blocked-receive').map((f) => f.title.startsWith('Idle loops'))).toEqual([true, true]);
  });

  it('parked 90 minutes: a warning (error only past 6 hours or 1,000 goroutines), still first of its severity', () => {
    const fs = runRules(analysis([pump(40, { min: 2, max: 90 }), feed(40, { min: 2, max: 90 }), reap(40, { min: 2, max: 90 })]));
    expect(fs[0]).toMatchObject({ ruleId: 'core/hung-sessions', severity: 'warning' });
    expect(fs[0].evidence.goroutines).toBe(120);
    const big = runRules(analysis([pump(400, { min: 2, max: 90 }), feed(400, { min: 2, max: 90 }), reap(400, { min: 2, max: 90 })]));
    expect(big[0]).toMatchObject({ ruleId: 'core/hung-sessions', severity: 'error' });
  });

  it('parked less than an hour: sessions in use, no hung set and nothing above info', () => {
    const fs = runRules(analysis([pump(164, { min: 1, max: 45 }), feed(164, { min: 1, max: 45 }), reap(164, { min: 1, max: 45 })]));
    expect(fs.filter((f) => f.ruleId === 'core/hung-sessions'), summary(fs)).toEqual([]);
    expect(fs.filter((f) => f.severity !== 'info'), summary(fs)).toEqual([]);
  });

  it('two start-up pools of equal size parked since start-up are no hung set', () => {
    const fs = runRules(analysis(pools()));
    expect(fs.filter((f) => f.ruleId === 'core/hung-sessions'), summary(fs)).toEqual([]);
  });
});
