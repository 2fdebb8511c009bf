/**
 * Per-request loops beside busy goroutines working in the same package or on the same receiver type
 * (building, reading or closing those objects) are a request in flight in one snapshot:
 * core/unstopped-loop says info, core/hidden-state stays quiet. Parked handlers (a channel wait, or a
 * state debug=1 hides) are no such proof: they may be what abandoned the loops.
 */
import { describe, expect, it } from 'vitest';
import { runRules } from '../../src/rules/index.js';
import { analysis, group } from './build.js';

const loop = (waitKind: 'select' | 'unknown') =>
  group({
    count: 300,
    waitKind,
    state: waitKind === 'select' ? 'select' : '',
    frames: [
      ...(waitKind === 'select' ? ['runtime.gopark @ /usr/lib/go/src/runtime/proc.go:363', 'runtime.selectgo @ /usr/lib/go/src/runtime/select.go:328'] : []),
      'example.com/db/engine.(*scanner).watch @ /src/db/engine/scan.go:40',
    ],
    creator: 'example.com/db/engine.newScanner @ /src/db/engine/scan.go:20',
  });
const executor = (waitKind: 'waitgroup' | 'chan-receive' | 'unknown', func = 'example.com/db/engine.(*Plan).build') =>
  group({
    count: 6,
    waitKind,
    state: waitKind === 'waitgroup' ? 'semacquire' : waitKind === 'chan-receive' ? 'chan receive' : '',
    frames: [
      ...(waitKind === 'waitgroup' ? ['sync.runtime_Semacquire @ /usr/lib/go/src/runtime/sema.go:62', 'sync.(*WaitGroup).Wait @ /usr/lib/go/src/sync/waitgroup.go:139'] : []),
      ...(waitKind === 'chan-receive' ? ['runtime.gopark @ /usr/lib/go/src/runtime/proc.go:363', 'runtime.chanrecv1 @ /usr/lib/go/src/runtime/chan.go:442'] : []),
      `${func} @ /src/db/engine/plan.go:88`,
      'example.com/db/query.(*Executor).run @ /src/db/query/exec.go:51',
    ],
    creator: 'example.com/db/query.(*Executor).Execute @ /src/db/query/exec.go:30',
  });
const idle = group({ count: 40, waitKind: 'io', state: 'IO wait', frames: ['example.com/db/server.(*conn).read @ /src/db/server/conn.go:12'] });
const loopFinding = (fs: ReturnType<typeof runRules>) => fs.find((f) => f.ruleId === 'core/unstopped-loop' && f.evidence.goroutines === 300);

describe('loops of a request in flight', () => {
  it('300 per-query loops while the executors wait on their workers in the same package: info', () => {
    const f = loopFinding(runRules(analysis([loop('select'), executor('waitgroup'), idle])));
    expect(f?.severity).toBe('info');
  });

  it('an executor closing the same type elsewhere (another package frame, same receiver) counts too', () => {
    const closing = group({
      count: 2,
      waitKind: 'runnable',
      state: 'runnable',
      frames: ['example.com/db/engine.(*scanner).Close @ /src/db/engine/scan.go:70', 'example.com/db/query.(*Executor).run @ /src/db/query/exec.go:51'],
    });
    expect(loopFinding(runRules(analysis([loop('select'), closing, idle])))?.severity).toBe('info');
  });

  it('the same loops beside handlers parked on a channel: still a warning', () => {
    const f = loopFinding(runRules(analysis([loop('select'), executor('chan-receive'), idle])));
    expect(f?.severity).toBe('warning');
  });

  it('debug=1: quiet beside executors in WaitGroup.Wait, a warning beside handlers whose state is hidden', () => {
    const hidden = (fs: ReturnType<typeof runRules>) => fs.filter((f) => f.ruleId === 'core/hidden-state');
    expect(hidden(runRules(analysis([loop('unknown'), executor('waitgroup'), idle])))).toHaveLength(0);
    expect(hidden(runRules(analysis([loop('unknown'), executor('unknown'), idle])))[0]?.severity).toBe('warning');
  });
});

describe('receivers beside busy possible senders', () => {
  const receivers = group({
    count: 60,
    waitKind: 'chan-receive',
    state: 'chan receive',
    frames: [
      'runtime.gopark @ /usr/lib/go/src/runtime/proc.go:363',
      'runtime.chanrecv1 @ /usr/lib/go/src/runtime/chan.go:442',
      'example.com/db/api.(*Handler).result @ /src/db/api/handler.go:550',
      'example.com/db/api.(*Handler).serveQuery @ /src/db/api/handler.go:530',
    ],
    creator: 'example.com/db/api.(*Handler).Submit @ /src/db/api/handler.go:500',
  });
  const computing = (creator: string) =>
    group({
      count: 20,
      waitKind: 'runnable',
      state: 'runnable',
      frames: ['example.com/db/engine.(*cursor).next @ /src/db/engine/cursor.go:12', 'example.com/db/query.(*Executor).run @ /src/db/query/exec.go:51'],
      creator,
    });
  const recvFinding = (fs: ReturnType<typeof runRules>) => fs.find((f) => f.ruleId === 'core/blocked-receive');

  it('says "nobody sends" (error) when nothing of the program is computing', () => {
    const f = recvFinding(runRules(analysis([receivers, idle])));
    expect(f?.severity).toBe('error');
    expect(f?.title).toMatch(/nobody sends/);
  });

  it('is info, without "nobody sends", while executors started elsewhere are runnable', () => {
    const f = recvFinding(runRules(analysis([receivers, computing('example.com/db/query.(*Executor).Execute @ /src/db/query/exec.go:30'), idle])));
    expect(f?.severity).toBe('info');
    expect(f?.title).not.toMatch(/nobody sends/);
  });

  it('keeps "nobody sends" for receivers that have waited minutes, whatever else is computing', () => {
    const waited = { ...receivers, wait: { min: 12, max: 40, stamped: receivers.count } };
    const f = recvFinding(runRules(analysis([waited, computing('example.com/db/query.(*Executor).Execute @ /src/db/query/exec.go:30'), idle])));
    expect(f?.severity).toBe('error');
    expect(f?.title).toMatch(/nobody sends/);
  });

  it("the receivers' own siblings (same creator) computing are no senders", () => {
    const f = recvFinding(runRules(analysis([receivers, computing('example.com/db/api.(*Handler).Submit @ /src/db/api/handler.go:500'), idle])));
    expect(f?.severity).toBe('error');
  });
});
