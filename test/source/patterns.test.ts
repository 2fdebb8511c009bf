/** Each cause pattern on a small Go fixture named for its shape. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { WaitKind } from '../../src/model/dump.js';
import type { CauseLocation } from '../../src/rules/types.js';
import { explainWithSource } from '../../src/source/index.js';
import { caseAt, findingAt, fixture, markers } from './helpers.js';

async function causesFor(name: string, file: string, marker: string, waitKind: WaitKind, callers: { func: string; line: number }[] = []) {
  const fx = fixture(name, file);
  const m = markers(fx.path);
  const line = m[marker][0];
  const finding = findingAt({ file: fx.printed, line, waitKind, callers: callers.map((c) => ({ ...c, file: fx.printed })) });
  const r = await explainWithSource([finding], [], { sourceDir: fx.dir });
  return { causes: r.findings[0].causeLocations ?? [], warnings: r.warnings, m };
}

const first = (cs: CauseLocation[]) => cs[0];

describe('(a) consumer loop that exits early', () => {
  it('points at the return inside the range loop, with the code', async () => {
    const { causes, m, warnings } = await causesFor('early-return-consumer', 'consumer.go', 'BLOCKED', 'chan-send');
    expect(warnings).toEqual([]);
    const c = first(causes);
    expect(c).toMatchObject({ kind: 'consumer-exit', line: m.CAUSE[0], confidence: 'high' });
    expect(c.file.endsWith('early-return-consumer/consumer.go')).toBe(true);
    expect(c.excerpt).toContain(`> ${m.CAUSE[0]} |`);
    expect(c.excerpt).toContain('for it := range in {');
    expect(causes.map((x) => x.kind)).toContain('no-cancel-case');
  });

  it('claims nothing when the consumer drains, continues or checks ok', async () => {
    expect((await causesFor('drained-consumer', 'consumer.go', 'BLOCKED', 'chan-send')).causes).toEqual([]);
    expect((await causesFor('closed-check-consumer', 'consumer.go', 'BLOCKED', 'chan-send')).causes).toEqual([]);
  });

  it('a consumer that stops on cancellation: the send without a ctx.Done case is the cause', async () => {
    const { causes, m } = await causesFor('cancel-consumer', 'stream.go', 'BLOCKED', 'chan-send');
    const send = causes.find((c) => c.kind === 'no-cancel-case');
    expect(send).toMatchObject({ line: m.BLOCKED[0], confidence: 'high' });
    expect(causes.find((c) => c.kind === 'receiver-gives-up')?.line).toBe(m.CAUSE[0]);
  });
});

describe('exits of for/select loops', () => {
  it('a labelled break out of the receive loop, found exactly through the go statement that started the producer', async () => {
    const fx = fixture('labeled-break-consumer', 'loop.go');
    const m = markers(fx.path);
    const goLine = m.CAUSE[0] - 10; // `go produce(c, n)` in Stop
    expect(readFileSync(fx.path, 'utf8').split('\n')[goLine - 1].trim()).toBe('go produce(c, n)');
    const { finding, analyses } = caseAt({ file: fx.printed, line: m.BLOCKED[0], waitKind: 'chan-send', creator: { func: 'example.com/fixture.Stop', file: fx.printed, line: goLine } });
    const r = await explainWithSource([finding], analyses, { sourceDir: fx.dir });
    expect(first(r.findings[0].causeLocations!)).toMatchObject({ kind: 'consumer-exit', line: m.CAUSE[0], confidence: 'high' });
    expect(r.findings[0].causeLocations!.some((c) => c.message.includes('switch'))).toBe(false);
  });

  it('without the creator the producer has two callers with two channels: the same cause, less sure', async () => {
    const { causes, m } = await causesFor('labeled-break-consumer', 'loop.go', 'BLOCKED', 'chan-send');
    expect(first(causes)).toMatchObject({ kind: 'consumer-exit', line: m.CAUSE[0], confidence: 'medium' });
    expect(causes.filter((c) => c.kind === 'consumer-exit')).toHaveLength(1); // break in switch/select is not an exit
  });
});

describe('(c) unbuffered result channel read with a timeout', () => {
  it('points at the timeout case and the unbuffered make', async () => {
    const { causes, m } = await causesFor('timeout-reader', 'fetch.go', 'BLOCKED', 'chan-send');
    expect(first(causes)).toMatchObject({ kind: 'receiver-gives-up', line: m.CAUSE[0], confidence: 'high' });
    expect(causes.find((c) => c.kind === 'unbuffered-result')?.line).toBe(m.MAKE[0]);
  });
});

describe('one-shot receivers', () => {
  it('first response wins: the other senders block', async () => {
    const { causes, m } = await causesFor('first-response-wins', 'query.go', 'BLOCKED', 'chan-send');
    expect(first(causes)).toMatchObject({ kind: 'single-receive', line: m.CAUSE[0], confidence: 'high' });
  });

  it('the receiver returns before receiving', async () => {
    const { causes, m } = await causesFor('receiver-returns-early', 'work.go', 'BLOCKED', 'chan-send');
    expect(first(causes)).toMatchObject({ kind: 'receiver-returns-early', line: m.CAUSE[0], confidence: 'high' });
  });
});

describe('(d) producers that never send or close', () => {
  it('a producer path that returns without sending', async () => {
    const { causes, m } = await causesFor('producer-returns', 'lookup.go', 'BLOCKED', 'chan-receive');
    expect(first(causes)).toMatchObject({ kind: 'producer-returns', line: m.CAUSE[0], confidence: 'high' });
  });

  it('a ranged channel nobody closes', async () => {
    const { causes, m } = await causesFor('never-closed', 'sum.go', 'BLOCKED', 'chan-receive');
    expect(first(causes)).toMatchObject({ kind: 'never-closed', line: m.CAUSE[0], confidence: 'high' });
  });
});

describe('(e) select {} and nil channels', () => {
  it('select {} in a goroutine is a cause; in main it is deliberate', async () => {
    const g = await causesFor('select-forever', 'park.go', 'BLOCKED', 'blocked-forever');
    expect(first(g.causes)).toMatchObject({ kind: 'empty-select', line: g.m.BLOCKED[0], confidence: 'high' });
    const main = await causesFor('select-forever', 'park.go', 'MAIN', 'select');
    expect(first(main.causes)).toMatchObject({ kind: 'empty-select', confidence: 'low' });
  });

  it('a struct literal that leaves the channel field nil', async () => {
    const { causes, m } = await causesFor('nil-channel', 'notify.go', 'BLOCKED', 'blocked-forever');
    expect(causes).toHaveLength(1);
    expect(first(causes)).toMatchObject({ kind: 'nil-channel', line: m.CAUSE[0], confidence: 'high' });
  });

  it('a package variable never made', async () => {
    const { causes, m } = await causesFor('nil-channel', 'notify.go', 'BLOCKED2', 'blocked-forever');
    expect(first(causes)).toMatchObject({ kind: 'nil-channel', line: m.GLOBAL[0], confidence: 'high' });
  });
});

describe('(f) locks', () => {
  it('two functions take the same two locks in opposite order', async () => {
    const { causes, m } = await causesFor('lock-order', 'bank.go', 'BLOCKED', 'mutex');
    const other = causes.find((c) => c.kind === 'lock-order' && c.line === m.CAUSE[0]);
    expect(other?.confidence).toBe('high');
    expect(other?.message).toMatch(/Report/);
    expect(other?.excerpt).toContain(`${m.FIRST[0]} |`);
  });

  it('a lock taken twice by the same goroutine', async () => {
    const { causes, m } = await causesFor('lock-order', 'bank.go', 'REENTRY', 'mutex');
    expect(first(causes)).toMatchObject({ kind: 'lock-reentry', line: m.REENTRY[0], confidence: 'high' });
  });
});

describe('WaitGroups', () => {
  it('a goroutine path that returns without Done', async () => {
    const { causes, m } = await causesFor('missing-done', 'batch.go', 'BLOCKED', 'waitgroup');
    expect(causes).toHaveLength(1);
    expect(first(causes)).toMatchObject({ kind: 'missing-done', line: m.CAUSE[0], confidence: 'high' });
  });

  it('defer wg.Done() in a worker the WaitGroup is passed to: nothing claimed', async () => {
    expect((await causesFor('missing-done', 'batch.go', 'HEALTHY', 'waitgroup')).causes).toEqual([]);
  });
});

describe('source that does not match the dump', () => {
  it('warns when the line is out of range', async () => {
    const fx = fixture('early-return-consumer', 'consumer.go');
    const r = await explainWithSource([findingAt({ file: fx.printed, line: 999, waitKind: 'chan-send' })], [], { sourceDir: fx.dir });
    expect(r.findings[0].causeLocations).toBeUndefined();
    expect(r.warnings.join('\n')).toMatch(/the source does not match the dump at consumer\.go \(line 999 is past the end \(the file has \d+ lines\)/);
  });

  it('warns when there is no channel operation (or call) at the line', async () => {
    const fx = fixture('early-return-consumer', 'consumer.go');
    const r = await explainWithSource([findingAt({ file: fx.printed, line: 5, waitKind: 'chan-send' })], [], { sourceDir: fx.dir });
    expect(r.warnings.join('\n')).toMatch(/consumer\.go:5: no channel operation at the line/);
  });

  it('warns when the line is in another function than the dump says', async () => {
    const fx = fixture('early-return-consumer', 'consumer.go');
    const line = markers(fx.path).BLOCKED[0];
    const r = await explainWithSource([findingAt({ file: fx.printed, line, waitKind: 'chan-send', func: 'example.com/fixture.somethingElse' })], [], { sourceDir: fx.dir });
    expect(r.warnings.join('\n')).toMatch(/is in emit, but the dump says example\.com\/fixture\.somethingElse/);
  });

  it('warns when no file matches the frame', async () => {
    const fx = fixture('early-return-consumer', 'consumer.go');
    const r = await explainWithSource([findingAt({ file: '/build/app/missing.go', line: 3, waitKind: 'chan-send' })], [], { sourceDir: fx.dir });
    expect(r.warnings.join('\n')).toMatch(/no file under the source directory matches \/build\/app\/missing\.go/);
  });

  it('warns when the source directory has no Go files', async () => {
    const r = await explainWithSource([findingAt({ file: '/x/y.go', line: 1, waitKind: 'chan-send' })], [], { sourceDir: '/nonexistent/leakscope' });
    expect(r.warnings).toEqual(['source: no Go files under /nonexistent/leakscope']);
    expect(r.findings[0].causeLocations).toBeUndefined();
  });

  it('leaves findings without channel or lock waits alone, without loading the parser', async () => {
    const f = findingAt({ file: '/x/y.go', line: 1, waitKind: 'io' });
    const r = await explainWithSource([f], [], { sourceDir: '/nonexistent' });
    expect(r).toEqual({ findings: [f], warnings: [] });
  });
});
