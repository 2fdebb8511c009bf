/**
 * The debug=0 (pprof protobuf) reader: real profiles from ../shared/corpus/binary, and `synthetic …`
 * profiles encoded here with pprof-format's encoder for what no real file shows (goroutineleak,
 * per-goroutine labels, delta profiles, bad ids, other profile types).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Profile, StringTable, emptyTableToken, type ProfileInput } from 'pprof-format';
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/model/dump.js';
import { readDumpFrom } from '../../src/read/index.js';
import { InputError } from '../../src/read/errors.js';
import { readPprof } from '../../src/read/pprof.js';
import { CORPUS, corpusAvailable } from '../helpers/paths.js';

const corpus = corpusAvailable();
const binary = (name: string): Buffer => readFileSync(join(CORPUS, 'binary', name));
const codes = (s: Snapshot): string[] => s.warnings.map((w) => w.code);

/** Encodes a profile whose strings are given by value; ids in the input refer to `strs` positions. */
function encode(strs: string[], input: Omit<ProfileInput, 'stringTable'>, table?: StringTable): Uint8Array {
  const st = table ?? new StringTable();
  if (!table) for (const x of strs) st.dedup(x);
  return new Profile({ ...input, stringTable: st }).encode();
}

/** A small goroutine profile: main.worker ← (inlined helper) … with the string ids it needs. */
const S = ['', 'goroutine', 'count', 'runtime.gopark', 'main.worker', 'main.helper', '/src/main.go', '/go/src/runtime/proc.go', 'main.main', 'k', 'v', 'goroutineleak'];
const id = (x: string): number => S.indexOf(x);
const base = (over: Partial<ProfileInput> = {}): Omit<ProfileInput, 'stringTable'> => ({
  sampleType: [{ type: id('goroutine'), unit: id('count') }],
  periodType: { type: id('goroutine'), unit: id('count') },
  period: 1,
  timeNanos: 1_700_000_000_123_000_000n,
  function: [
    { id: 1, name: id('runtime.gopark'), filename: id('/go/src/runtime/proc.go') },
    { id: 2, name: id('main.worker'), filename: id('/src/main.go') },
    { id: 3, name: id('main.helper'), filename: id('/src/main.go') },
    { id: 4, name: id('main.main'), filename: id('/src/main.go') },
  ],
  location: [
    { id: 1, address: 0x43a0, line: [{ functionId: 1, line: 402 }] },
    // pprof lists the inlined callee first, the physical frame last.
    { id: 2, address: 0x4dec, line: [{ functionId: 3, line: 20 }, { functionId: 2, line: 11 }] },
    { id: 3, address: 0x4e00, line: [{ functionId: 4, line: 30 }] },
  ],
  sample: [{ locationId: [1, 2, 3], value: [4] }],
  ...over,
});

function rejects(bytes: Uint8Array, code: string, text: RegExp | string): void {
  try {
    readPprof('x.pb', bytes, { truncated: false });
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    expect((e as InputError).code).toBe(code);
    expect((e as InputError).message).toMatch(text);
    return;
  }
  throw new Error('expected an InputError');
}

describe.skipIf(!corpus)('debug=0 corpus', () => {
  const files = ['bankv-windows-go-run-22.pb.gz', 'concurrentmap-3.pb.gz', 'cortex-355-grpc-conns.pb.gz', 'flameshow-node-exporter-37.pb.gz', 'pg-coordinator-binary-named-txt-127.pb.gz', 'profilernotes-lookup-debug0.pb.gz', 'profilernotes-nethttp-debug0-labels.pb.gz'];

  it.each(files)('%s: total equals the summed sample values; frames innermost first; time set', (name) => {
    const raw = gunzipSync(binary(name));
    const oracle = Profile.decode(raw).sample.reduce((n, s) => n + Number(s.value[0]), 0);
    const s = readPprof(name, raw, { truncated: false });
    expect(s.format).toBe('pprof');
    expect(s.profile).toBe('goroutine');
    expect(s.total).toBe(oracle);
    expect(s.groups.reduce((n, g) => n + g.count, 0)).toBe(oracle);
    expect(s.capturedAt).toMatch(/^20\d\d-\d\d-\d\dT/);
    expect(s.warnings).toEqual([]);
    // Innermost first, all runtime frames kept: gopark is always the leaf, runtime.main the root.
    let parked = 0;
    for (const g of s.groups) {
      g.frames.forEach((f, i) => {
        if (f.func === 'runtime.gopark') expect(i).toBe(0);
        if (f.func === 'runtime.main' || f.func === 'runtime.goexit') expect(i).toBe(g.frames.length - 1);
      });
      if (g.frames[0].func === 'runtime.gopark') parked += g.count;
    }
    expect(parked).toBeGreaterThan(0);
  });

  it('flameshow-node-exporter-37: a Location with several Lines gives inlined callees before the physical frame', () => {
    const s = readPprof('f', gunzipSync(binary('flameshow-node-exporter-37.pb.gz')), { truncated: false });
    const g = s.groups.find((x) => x.frames.some((f) => f.func === 'internal/poll.(*pollDesc).waitRead'))!;
    const i = g.frames.findIndex((f) => f.func === 'internal/poll.(*pollDesc).waitRead');
    expect(g.frames[i]).toMatchObject({ inlined: true, pkg: 'internal/poll', line: 92 });
    expect(g.frames[i + 1]).toMatchObject({ func: 'internal/poll.(*FD).Read', inlined: false });
  });

  it('bankv-windows-go-run-22: Windows paths kept as printed', () => {
    const s = readPprof('b', gunzipSync(binary('bankv-windows-go-run-22.pb.gz')), { truncated: false });
    const frames = s.groups.flatMap((g) => g.frames);
    expect(frames.some((f) => f.file === 'C:/Program Files/Go/src/runtime/proc.go' && f.line > 0)).toBe(true);
    expect(s.groups.find((g) => g.frames.some((f) => f.func.endsWith('.(*MsgHandle).StartOneWorker')))?.count).toBe(10);
  });

  it('profilernotes debug=0: sample labels become group labels', () => {
    for (const name of ['profilernotes-lookup-debug0.pb.gz', 'profilernotes-nethttp-debug0-labels.pb.gz']) {
      const s = readPprof(name, gunzipSync(binary(name)), { truncated: false });
      const labelled = s.groups.filter((g) => g.labels.test_label === 'test_value');
      expect(labelled.length).toBeGreaterThan(0);
      expect(labelled.length).toBeLessThan(s.groups.length);
      expect(s.groups.find((g) => g.frames.some((f) => f.func === 'main.shortSleepLoop'))?.count).toBe(2);
    }
  });

  it('cortex-355 cut at 60%: an InputError naming the early end, never a crash', async () => {
    const gz = binary('cortex-355-grpc-conns.pb.gz');
    const cut = gz.subarray(0, Math.floor(gz.length * 0.6));
    const r = await readDumpFrom('cortex-cut', cut).then((d) => d.snapshots[0], (e: unknown) => e);
    if (r instanceof InputError) {
      expect(r.code).toBe('bad-protobuf');
      expect(r.message).toMatch(/ended early/);
    } else {
      expect((r as Snapshot).truncated).toBe(true);
    }
  });
});

describe('debug=0 synthetic profiles', () => {
  it('synthetic goroutine profile: inlined Lines, labels, time, frame order', () => {
    const s = readPprof('p', encode(S, base({ sample: [{ locationId: [1, 2, 3], value: [4], label: [{ key: id('k'), str: id('v') }] }] })), { truncated: false });
    expect(s.total).toBe(4);
    expect(s.capturedAt).toBe('2023-11-14T22:13:20.123Z');
    expect(s.groups[0].frames.map((f) => [f.func, f.inlined])).toEqual([
      ['runtime.gopark', false], ['main.helper', true], ['main.worker', false], ['main.main', false],
    ]);
    expect(s.groups[0].labels).toEqual({ k: 'v' });
    expect(s.groups[0].flags.leaked).toBeUndefined();
  });

  it('synthetic goroutineleak profile: the kind comes from the sample type; every group is leaked', () => {
    const s = readPprof('p', encode(S, base({ sampleType: [{ type: id('goroutineleak'), unit: id('count') }] })), { truncated: false });
    expect(s.profile).toBe('goroutineleak');
    expect(s.groups[0].flags.leaked).toBe(true);
  });

  it('synthetic heap profile is refused as wrong-profile, naming what it is', () => {
    const strs = ['', 'alloc_objects', 'count', 'alloc_space', 'bytes'];
    const bytes = encode(strs, { sampleType: [{ type: 1, unit: 2 }, { type: 3, unit: 4 }], sample: [{ locationId: [], value: [1, 8] }] });
    rejects(bytes, 'wrong-profile', 'is a heap profile (sample type alloc_objects/count, alloc_space/bytes), not a goroutine profile');
  });

  it('synthetic profiles with dangling ids are refused as bad-protobuf saying which id', () => {
    rejects(encode(S, base({ sample: [{ locationId: [1, 99], value: [1] }] })), 'bad-protobuf', /location id 99/);
    rejects(encode(S, base({ location: [{ id: 1, line: [{ functionId: 42, line: 1 }] }], sample: [{ locationId: [1], value: [1] }] })), 'bad-protobuf', /function id 42/);
    rejects(encode(S, base({ function: [{ id: 1, name: 500, filename: 0 }], location: [{ id: 1, line: [{ functionId: 1 }] }], sample: [{ locationId: [1], value: [1] }] })), 'bad-protobuf', /string id 500/);
    rejects(encode(S, base({ sample: [{ locationId: [1], value: [1], label: [{ key: 77, str: 1 }] }] })), 'bad-protobuf', /string id 77/);
  });

  it('synthetic profile whose string_table[0] is not empty is refused', () => {
    const st = new StringTable(emptyTableToken);
    for (const x of ['x', 'goroutine', 'count']) st.dedup(x);
    rejects(encode([], { sampleType: [{ type: 1, unit: 2 }] }, st), 'bad-protobuf', /string_table\[0\]/);
  });

  it('malformed bytes: an InputError, never another error, whatever the damage', () => {
    rejects(Uint8Array.from([0x0b, 0x01, 0x02]), 'bad-protobuf', /pprof protobuf/);
    const good = encode(S, base());
    let seed = 7;
    const rnd = (n: number): number => (seed = (seed * 48271) % 2147483647) % n;
    for (let i = 0; i < 300; i++) {
      const b = Uint8Array.from(good);
      for (let k = 0; k < 3; k++) b[rnd(b.length)] = rnd(256);
      try {
        readPprof('fuzz', b.subarray(0, b.length - rnd(8)), { truncated: false });
      } catch (e) {
        expect(e).toBeInstanceOf(InputError);
      }
    }
  });

  it('synthetic: negative and oversized counts are warned about and skipped, the rest kept', () => {
    const s = readPprof('p', encode(S, base({ sample: [{ locationId: [1], value: [-2] }, { locationId: [3], value: [2n ** 60n] }, { locationId: [1, 2, 3], value: [5] }] })), { truncated: false });
    expect(s.total).toBe(5);
    expect(codes(s)).toEqual(['bad-sample']);
  });

  it('synthetic delta profile (duration_nanos set): keeps the stacks that grew, warns that counts are changes', () => {
    const s = readPprof('p', encode(S, base({ durationNanos: 30_000_000_000, sample: [{ locationId: [1, 2, 3], value: [7] }, { locationId: [1, 3], value: [-3] }] })), { truncated: false });
    expect(s.total).toBe(7);
    expect(s.groups).toHaveLength(1);
    const w = s.warnings.find((x) => x.code === 'delta-profile')!;
    expect(w.message).toMatch(/counts are changes, not totals/);
    expect(w.message).toMatch(/dropped 1 that shrank/);
  });

  it('synthetic: ids and addresses beyond 32 bits (bigint varints) resolve; a Location without Lines is its address', () => {
    const big = 2n ** 40n + 5n;
    const s = readPprof('p', encode(S, base({
      function: [{ id: big, name: id('main.worker'), filename: id('/src/main.go') }],
      location: [{ id: big, line: [{ functionId: big, line: 11 }] }, { id: 7, address: 0x7fff_0000_1234n }],
      sample: [{ locationId: [7, big], value: [3] }],
    })), { truncated: false });
    expect(s.groups[0].frames.map((f) => f.func)).toEqual(['0x7fff00001234', 'main.worker']);
  });

  it('synthetic: numeric labels read as the number and its unit', () => {
    const strs = [...S, 'size', 'bytes', 'n'];
    const s = readPprof('p', encode(strs, base({ sample: [{ locationId: [1], value: [1], label: [{ key: strs.indexOf('size'), num: 1024, numUnit: strs.indexOf('bytes') }, { key: strs.indexOf('n'), num: 3 }] }] })), { truncated: false });
    expect(s.groups[0].labels).toEqual({ size: '1024 bytes', n: '3' });
  });

  it('synthetic per-goroutine profile (go::goroutine* labels): ids, states, creators, wait minutes; labels dropped', () => {
    const strs = [...S, 'go::goroutine', 'go::goroutine_state', 'go::goroutine_created_by', 'go::goroutine_wait_minutes', 'chan receive', 'running', 'cluster', 'prod', 'main.spawner'];
    const k = (x: string): number => strs.indexOf(x);
    const g = (gid: number, state: string, creator: number | string, wait?: number) => ({
      locationId: [1, 2, 3],
      value: [1],
      label: [
        { key: k('go::goroutine'), num: gid },
        { key: k('go::goroutine_state'), str: k(state) },
        typeof creator === 'number' ? { key: k('go::goroutine_created_by'), num: creator } : { key: k('go::goroutine_created_by'), str: k(creator) },
        ...(wait !== undefined ? [{ key: k('go::goroutine_wait_minutes'), num: wait }] : []),
        { key: k('cluster'), str: k('prod') },
      ],
    });
    const bytes = encode(strs, base({ sample: [g(100, 'chan receive', 1, 5), g(101, 'chan receive', 1, 3), g(102, 'chan receive', 1, 7), g(103, 'running', 100), g(104, 'running', 'main.spawner')] }));
    const s = readPprof('p', bytes, { truncated: false });
    expect(s.total).toBe(5);
    const recv = s.groups.find((x) => x.state === 'chan receive')!;
    expect(recv).toMatchObject({ count: 3, goroutineIds: [100, 101, 102], wait: { min: 3, max: 7, stamped: 3 }, labels: { cluster: 'prod' } });
    expect(recv.creator?.goroutineIds).toEqual([1]);
    const byId = s.groups.find((x) => x.goroutineIds[0] === 103)!;
    expect(byId.state).toBe('running');
    expect(byId.creator?.goroutineIds).toEqual([100]);
    expect(s.groups.find((x) => x.goroutineIds[0] === 104)?.creator).toMatchObject({ func: 'main.spawner', pkg: 'main' });
    // 103 was created by 100, which is in the chan-receive group: the builder links the groups.
    expect(s.links).toContainEqual({ child: s.groups.indexOf(byId), parent: s.groups.indexOf(recv), count: 1 });
    for (const x of s.groups) expect(Object.keys(x.labels).some((l) => l.startsWith('go::'))).toBe(false);
  });

  it('synthetic profile read through readDumpFrom: gzip sniffed by content under a .txt name', async () => {
    const d = await readDumpFrom('goroutine.txt', gzipSync(encode(S, base())));
    expect(d.snapshots[0]).toMatchObject({ format: 'pprof', total: 4, truncated: false });
  });
});
