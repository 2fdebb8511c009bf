/**
 * testing/synctest dumps written by Go 1.26 (samples/synctest): a bubble deadlock (every goroutine of
 * the bubble durably blocked), a bubble whose main goroutine returned and left senders blocked, and a
 * test timeout where two parallel tests' bubbles wait on a mutex (not durable: no bubble deadlock,
 * the tests hang until -timeout) — two bubbles in one dump.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDump } from '../../src/read/index.js';
import type { Finding } from '../../src/rules/index.js';
import { SAMPLES } from '../helpers/paths.js';
import { findingsOf, summary } from './e2e.js';

const DIR = join(SAMPLES, 'synctest');
const PKG = 'example.com/synctestcases';

/** The line of `//stuck:NAME` in a case's Go file. */
function marker(file: string, name: string): number {
  const i = readFileSync(join(DIR, file), 'utf8').split('\n').findIndex((l) => l.includes(`//stuck:${name}`));
  if (i < 0) throw new Error(`no //stuck:${name} in ${file}`);
  return i + 1;
}

const blaming = (fs: Finding[]) => fs.filter((f) => f.severity !== 'info' && ['leak', 'deadlock', 'contention'].includes(f.category ?? ''));

describe.skipIf(!existsSync(DIR))('synctest bubbles (Go 1.26)', () => {
  it('a bubble deadlock: the durably blocked Close is the root, and the deadlock is no crash', async () => {
    const path = join(DIR, 'lease-close', 'go1.26', 'bubble-deadlock.txt');
    const dump = await readDump(path);
    expect(dump.snapshots[0].context?.kind).toBe('synctest-deadlock');
    const close = dump.snapshots[0].groups.find((g) => g.frames.some((f) => f.func === `${PKG}/lease-close.(*Keeper).Close`));
    expect(close?.flags).toMatchObject({ durable: true, synctestBubble: 1 });
    const fs = (await findingsOf(path)).flat();
    const line = marker('lease-close/keeper.go', 'close');
    expect(blaming(fs).some((f) => f.location?.func === `${PKG}/lease-close.(*Keeper).Close` && f.location.line === line && f.severity === 'error'), summary(fs)).toBe(true);
    expect(fs.find((f) => f.ruleId === 'core/synctest-deadlock'), summary(fs)).toMatchObject({ severity: 'error', category: 'deadlock' });
    expect(fs.some((f) => f.ruleId === 'core/crash'), summary(fs)).toBe(false);
  });

  it('the main bubble goroutine exited: the senders it left are the leak', async () => {
    const path = join(DIR, 'replica-query', 'go1.26', 'bubble-exit.txt');
    const fs = (await findingsOf(path)).flat();
    const send = fs.find((f) => f.location?.func === `${PKG}/replica-query.Ask.func1`);
    expect(send, summary(fs)).toMatchObject({ ruleId: 'core/blocked-send', severity: 'error', location: { line: marker('replica-query/query.go', 'answer') } });
    expect(send!.evidence.groups[0].count).toBe(2);
    expect(send!.evidence.facts).toContain('in synctest bubble 1: a durable wait, which synctest sees (it reports a bubble deadlock when every goroutine of the bubble is durably blocked)');
    expect(fs.some((f) => f.ruleId === 'core/synctest-deadlock')).toBe(true);
  });

  it('two bubbles wait on a mutex in one test-timeout dump: one double lock per bubble, no bubble deadlock', async () => {
    const path = join(DIR, 'rate-limiter', 'go1.26', 'test-timeout.txt');
    const dump = await readDump(path);
    const snap = dump.snapshots[0];
    expect(snap.context?.kind).toBe('test-timeout');
    const locks = snap.groups.filter((g) => g.state === 'sync.Mutex.Lock');
    expect(locks.map((g) => g.flags.synctestBubble).sort()).toEqual([1, 2]);
    expect(locks.every((g) => !g.flags.durable)).toBe(true);
    expect(new Set(snap.groups.map((g) => g.flags.synctestBubble).filter((b) => b !== undefined))).toEqual(new Set([1, 2]));

    const fs = (await findingsOf(path)).flat();
    const line = marker('rate-limiter/limiter.go', 'refill');
    const doubles = fs.filter((f) => f.ruleId === 'core/double-lock');
    expect(doubles, summary(fs)).toHaveLength(2);
    for (const f of doubles) expect(f.location).toMatchObject({ func: `${PKG}/rate-limiter.(*Limiter).refill`, line });
    expect(doubles.map((f) => f.evidence.facts.find((x) => x.startsWith('in synctest bubble '))!.slice(0, 20)).sort()).toEqual(['in synctest bubble 1', 'in synctest bubble 2']);
    expect(doubles[0].evidence.facts.some((x) => x.includes('not a durable wait'))).toBe(true);
    expect(fs.some((f) => f.ruleId === 'core/synctest-deadlock')).toBe(false);
    // The loggers wait durably for work: not blamed.
    const log = marker('rate-limiter/limiter.go', 'log');
    expect(blaming(fs).some((f) => f.location?.line === log), summary(fs)).toBe(false);
  });
});
