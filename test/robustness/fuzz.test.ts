/**
 * Property tests over every reader and the format detector, through readDumpFrom on bytes (gzip →
 * protobuf-or-text sniffing → debug=0/1/2, crash, race, test2json readers) and directly (readPprof,
 * looksLikeProtobuf, maybeGunzip, LineSplitter). Inputs: random bytes; real dumps from samples/ and
 * ../shared/corpus mutated (bytes flipped, ranges cut or repeated, lines duplicated, shuffled, made
 * huge, NUL bytes, invalid UTF-8, CRLF), truncated at random offsets and, for a few small files, at
 * every line; 10,000-frame stacks. Contract (support.ts readBounded): a Dump or an InputError with a
 * one-line message, within a time budget, memory within a fixed multiple of the input.
 *
 * Seed and run count are printed; replay with FC_SEED=… FC_RUNS=….
 */
import fc from 'fast-check';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { looksLikeProtobuf, maybeGunzip } from '../../src/read/decompress.js';
import { InputError } from '../../src/read/errors.js';
import { LineSplitter } from '../../src/read/lines.js';
import { readPprof } from '../../src/read/pprof.js';
import {
  CASE_TIMEOUT_MS, chunked, fcParams, load, plain, printSeed, readBounded, realFiles, scanGoroutines, type RealFile,
} from './support.js';

const all = realFiles();
const texts = all.filter((f) => !f.name.endsWith('.pb.gz'));
const binaries = all.filter((f) => f.name.endsWith('.pb.gz'));
/** Mutation targets: every real file under 128 KiB (the large samples only slow the runs down). */
const small = all.filter((f) => f.size <= 128 * 1024);
const cache = new Map<string, Buffer>();
const bytesOf = (f: RealFile): Buffer => {
  let b = cache.get(f.name);
  if (!b) cache.set(f.name, (b = plain(load(f))));
  return b;
};

beforeAll(() => printSeed('fuzz'));

const lineOf = (b: Buffer): string[] => b.toString('latin1').split('\n');
const fromLines = (ls: string[]): Buffer => Buffer.from(ls.join('\n'), 'latin1');

/** One mutation of a real dump, described for the failure message. */
type Mutation =
  | { op: 'flip'; at: number; byte: number }
  | { op: 'cut-range'; at: number; len: number }
  | { op: 'repeat-range'; at: number; len: number; times: number }
  | { op: 'insert'; at: number; bytes: Uint8Array }
  | { op: 'dup-lines'; at: number; len: number; times: number }
  | { op: 'shuffle-lines'; seed: number }
  | { op: 'huge-line'; at: number; len: number; ch: number }
  | { op: 'nul'; at: number; count: number }
  | { op: 'bad-utf8'; at: number; kind: number }
  | { op: 'crlf' }
  | { op: 'truncate'; at: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('flip' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ op: fc.constant('cut-range' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 4096 }) }),
  fc.record({ op: fc.constant('repeat-range' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 2048 }), times: fc.integer({ min: 2, max: 50 }) }),
  fc.record({ op: fc.constant('insert' as const), at: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 64 }) }),
  fc.record({ op: fc.constant('dup-lines' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 40 }), times: fc.integer({ min: 2, max: 30 }) }),
  fc.record({ op: fc.constant('shuffle-lines' as const), seed: fc.nat() }),
  fc.record({ op: fc.constant('huge-line' as const), at: fc.nat(), len: fc.integer({ min: 70_000, max: 2_500_000 }), ch: fc.constantFrom(0x61, 0x28, 0x5b, 0x20, 0x09, 0x30, 0x7b, 0x5c) }),
  fc.record({ op: fc.constant('nul' as const), at: fc.nat(), count: fc.integer({ min: 1, max: 64 }) }),
  fc.record({ op: fc.constant('bad-utf8' as const), at: fc.nat(), kind: fc.integer({ min: 0, max: 4 }) }),
  fc.constant({ op: 'crlf' as const }),
  fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
);

function apply(b: Buffer, m: Mutation): Buffer {
  const at = b.length === 0 ? 0 : ('at' in m ? m.at % b.length : 0);
  switch (m.op) {
    case 'flip': {
      const c = Buffer.from(b);
      if (c.length) c[at] = m.byte;
      return c;
    }
    case 'cut-range':
      return Buffer.concat([b.subarray(0, at), b.subarray(at + m.len)]);
    case 'repeat-range': {
      const r = b.subarray(at, at + m.len);
      return Buffer.concat([b.subarray(0, at), ...Array<Buffer>(m.times).fill(r), b.subarray(at + m.len)]);
    }
    case 'insert':
      return Buffer.concat([b.subarray(0, at), m.bytes, b.subarray(at)]);
    case 'dup-lines': {
      const ls = lineOf(b);
      const i = m.at % ls.length;
      const block = ls.slice(i, i + m.len);
      return fromLines([...ls.slice(0, i), ...Array.from({ length: m.times }, () => block).flat(), ...ls.slice(i)]);
    }
    case 'shuffle-lines': {
      const ls = lineOf(b);
      let s = m.seed || 1;
      for (let i = ls.length - 1; i > 0; i--) {
        s = (s * 1103515245 + 12345) & 0x7fffffff;
        const j = s % (i + 1);
        [ls[i], ls[j]] = [ls[j], ls[i]];
      }
      return fromLines(ls);
    }
    case 'huge-line':
      return Buffer.concat([b.subarray(0, at), Buffer.alloc(m.len, m.ch), b.subarray(at)]);
    case 'nul':
      return Buffer.concat([b.subarray(0, at), Buffer.alloc(m.count, 0), b.subarray(at)]);
    case 'bad-utf8': {
      const bad = [[0xff], [0xc3], [0x80, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80]][m.kind];
      return Buffer.concat([b.subarray(0, at), Buffer.from(bad), b.subarray(at)]);
    }
    case 'crlf':
      return Buffer.from(b.toString('latin1').replace(/\r?\n/g, '\r\n'), 'latin1');
    case 'truncate':
      return b.subarray(0, at);
  }
}

const show = (m: Mutation): string => JSON.stringify(m, (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v));

describe('readDumpFrom (format detector + every reader): a Dump or an InputError, bounded', () => {
  it('random bytes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 8192 }), async (b) => {
        await readBounded('random', b);
      }),
      fcParams,
    );
  });

  it('random bytes behind each format magic (gzip, protobuf tags, text headers)', async () => {
    const heads = [
      Buffer.from([0x1f, 0x8b]), Buffer.from([0x1f, 0x8b, 0x08, 0x00]), Buffer.from([0x0a, 0x04, 0x08, 0x01, 0x10, 0x02]),
      Buffer.from([0x5a, 0x04]), Buffer.from('goroutine profile: total 3\n'), Buffer.from('goroutine 1 [running]:\n'),
      Buffer.from('panic: boom\n\ngoroutine 1 [running]:\n'), Buffer.from('WARNING: DATA RACE\n'), Buffer.from('{"Action":"output","Output":"goroutine 1 [running]:\\n"}\n'),
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...heads), fc.uint8Array({ maxLength: 4096 }), async (h, b) => {
        await readBounded('magic+random', Buffer.concat([h, b]));
      }),
      fcParams,
    );
  });

  it('random text made of dump-like lines', async () => {
    const piece = fc.oneof(
      fc.constantFrom(
        'goroutine 1 [running]:', 'goroutine 7 [chan receive, 5 minutes]:', 'goroutine 9 [select]:\n', 'main.main()',
        '\t/src/main.go:12 +0x1d', 'created by main.main in goroutine 1', 'created by main.main', '...additional frames elided...',
        'goroutine profile: total 5', '3 @ 0x1 0x2 0x3', '#\t0x1\tmain.f+0x1\t/src/a.go:3', '# labels: {"a":"b"}', '',
        'panic: x', 'fatal error: all goroutines are asleep - deadlock!', 'SIGQUIT: quit', '-----', 'WARNING: DATA RACE',
        'Write at 0x00c000 by goroutine 7:', 'Previous read at 0x00c by main goroutine:', 'Goroutine 7 (running) created at:',
        '==================', '[originating from goroutine 3]:', '2024-01-01 12:00:00 stdout:', '{"Action":"output","Output":"goroutine 2 [IO wait]:\\n"}',
        'goroutine 2 \\[running\\]:', 'heap profile: 1: 2 [3: 4] @ heap/1048576', 'goroutine 4294967296 [running]:', 'goroutine -1 [x]:',
      ),
      fc.string({ maxLength: 80 }),
      fc.string({ unit: 'binary', maxLength: 40 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 300 }), async (ls) => {
        await readBounded('dump-like', Buffer.from(ls.join('\n'), 'utf8'));
      }),
      fcParams,
    );
  });

  it('real dumps (samples + corpus), mutated', async () => {
    expect(small.length).toBeGreaterThan(10);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...small), fc.array(mutation, { minLength: 1, maxLength: 3 }), async (f, ms) => {
        let b = bytesOf(f);
        for (const m of ms) b = apply(b, m);
        await readBounded(`${f.name} after ${ms.map(show).join(', ')}`, b);
      }),
      fcParams,
    );
  });

  it('real dumps, re-gzipped after mutation (gzip path, protobuf path)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...small), fc.array(mutation, { maxLength: 2 }), fc.boolean(), async (f, ms, cut) => {
        let b = bytesOf(f);
        for (const m of ms) b = apply(b, m);
        let gz = gzipSync(b);
        if (cut) gz = gz.subarray(0, Math.max(1, gz.length >> 1));
        await readBounded(`${f.name} gzipped${cut ? ' and cut in half' : ''} after ${ms.map(show).join(', ')}`, gz);
      }),
      fcParams,
    );
  });

  it('real text dumps cut at a random byte: a lower bound on the goroutines, never more', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...texts.filter((f) => f.size <= 128 * 1024)), fc.double({ min: 0, max: 1, noNaN: true }), async (f, frac) => {
        const b = bytesOf(f);
        const at = Math.floor(b.length * frac);
        const name = `${f.name} cut at byte ${at}`;
        const r = await readBounded(name, b.subarray(0, at));
        const full = await readBounded(f.name, b);
        const fullRead = full.dump?.snapshots.reduce((a, s) => a + s.total, 0) ?? 0;
        const headerless = Math.max(0, fullRead - scanGoroutines(b.toString('utf8')));
        const n = r.dump?.snapshots.reduce((a, s) => a + s.total, 0) ?? 0;
        expect(n, `${name}: read more goroutines than the cut text shows`).toBeLessThanOrEqual(scanGoroutines(b.subarray(0, at).toString('utf8')) + headerless);
      }),
      fcParams,
    );
  });
});

describe('small real dumps cut at every line and mid-line (exhaustive, bounded)', () => {
  const picks = ['corpus/debug2/gostackparse-go121_createdby.txt', 'corpus/crash/profilernotes-panic-inlined.txt', 'samples/waitgroup-leak/goroutine.debug1.txt', 'corpus/debug2/gosrc-sigusr-dumper-timestamped-snapshots.txt', 'samples/gotest-timeout/gotest-timeout.txt'];
  const chosen = all.filter((f) => picks.includes(f.name));

  it.each(chosen.map((f) => [f.name, f] as [string, RealFile]))('%s', async (_n, f) => {
    const b = bytesOf(f);
    const full = await readBounded(f.name, b);
    const fullRead = full.dump!.snapshots.reduce((a, s) => a + s.total, 0);
    const headerless = Math.max(0, fullRead - scanGoroutines(b.toString('utf8')));
    const cuts: number[] = [];
    for (let i = 0; i < b.length; i++) if (b[i] === 10) cuts.push(i + 1, i + 1 + Math.max(1, Math.floor(((b.indexOf(10, i + 1) < 0 ? b.length : b.indexOf(10, i + 1)) - i) / 2)));
    for (const at of cuts.filter((c) => c < b.length)) {
      const cut = b.subarray(0, at);
      const r = await readBounded(`${f.name} cut at byte ${at}`, cut);
      const n = r.dump?.snapshots.reduce((a, s) => a + s.total, 0) ?? 0;
      const scan = scanGoroutines(cut.toString('utf8'));
      expect(n, `${f.name} cut at byte ${at}: more than shown`).toBeLessThanOrEqual(scan + headerless);
      expect(n, `${f.name} cut at byte ${at}: a goroutine vanished`).toBeGreaterThanOrEqual(scan - 1);
    }
  });
});

describe('deep stacks: 10,000 frames', () => {
  it('debug=2 goroutine with 10,000 frames (and 10,000-frame ancestor section)', async () => {
    const frames = Array.from({ length: 10_000 }, (_, i) => `main.f${i}(0x1, 0x2)\n\t/src/deep.go:${i + 1} +0x1d`).join('\n');
    const text = `goroutine 1 [running]:\n${frames}\ncreated by main.main\n\t/src/main.go:3 +0x5\n\ngoroutine 2 [select]:\n${frames}\n[originating from goroutine 1]:\n${frames}\n`;
    const r = await readBounded('deep-debug2', Buffer.from(text));
    expect(r.dump?.snapshots[0].total).toBe(2);
  });

  it('debug=1 record with 10,000 PCs and # lines', async () => {
    const pcs = Array.from({ length: 10_000 }, (_, i) => `0x${(0x400000 + i).toString(16)}`);
    const text = `goroutine profile: total 4\n4 @ ${pcs.join(' ')}\n${pcs.map((p, i) => `#\t${p}\tmain.f${i}+0x1\t/src/deep.go:${i + 1}`).join('\n')}\n`;
    const r = await readBounded('deep-debug1', Buffer.from(text));
    expect(r.dump?.snapshots[0].total).toBe(4);
  });

  it('pprof sample with 10,000 locations', async () => {
    const { Profile, StringTable } = await import('pprof-format');
    const st = new StringTable();
    const sid = (s: string): number => st.dedup(s);
    const loc = Array.from({ length: 10_000 }, (_, i) => ({ id: i + 1, address: 0x1000 + i, line: [{ functionId: i + 1, line: i + 1 }] }));
    const fn = Array.from({ length: 10_000 }, (_, i) => ({ id: i + 1, name: sid(`main.f${i}`), filename: sid('/src/deep.go') }));
    const p = new Profile({
      sampleType: [{ type: sid('goroutine'), unit: sid('count') }], periodType: { type: sid('goroutine'), unit: sid('count') }, period: 1,
      function: fn, location: loc, sample: [{ locationId: loc.map((l) => l.id), value: [3] }], stringTable: st,
    });
    const r = await readBounded('deep-pprof', gzipSync(p.encode()));
    expect(r.dump?.snapshots[0].total).toBe(3);
  });
});

describe('the parts, directly', () => {
  it('looksLikeProtobuf never throws and is false for text', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 1024 }), (b) => void looksLikeProtobuf(b)), fcParams);
    fc.assert(fc.property(fc.string({ maxLength: 600 }), (s) => {
      expect(looksLikeProtobuf(Buffer.from(s.replace(/[\x00-\x08\x0e-\x1f]/g, '')))).toBe(false);
    }), fcParams);
  });

  it('readPprof on random and mutated protobuf: a Snapshot or an InputError', () => {
    const raws = binaries.map(bytesOf);
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 2048 }), fc.tuple(fc.constantFrom(...raws), fc.array(mutation.filter((m) => m.op !== 'huge-line'), { minLength: 1, maxLength: 4 })).map(([b, ms]) => ms.reduce(apply, b))), (b) => {
        const t0 = performance.now();
        try {
          readPprof('fuzz.pb', b, { truncated: false });
        } catch (e) {
          if (!(e instanceof InputError)) throw new Error(`readPprof threw ${String(e)}`);
        }
        expect(performance.now() - t0).toBeLessThan(CASE_TIMEOUT_MS);
      }),
      fcParams,
    );
  });

  it('maybeGunzip on random bytes behind the gzip magic: bytes or an InputError', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 2048 }), async (b) => {
        try {
          for await (const _ of maybeGunzip('g', chunked(Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0]), b]), 97), 1 << 20)) void _;
        } catch (e) {
          if (!(e instanceof InputError)) throw new Error(`maybeGunzip threw ${String(e)}`);
        }
      }),
      fcParams,
    );
  });

  it('LineSplitter: any chunking gives the same lines, each at most maxLineLength', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), fc.array(fc.nat({ max: 400 }), { maxLength: 10 }), fc.integer({ min: 1, max: 50 }), (s, splits, max) => {
        const bytes = Buffer.from(s, 'utf8');
        const run = (cuts: number[]): string[] => {
          const out: string[] = [];
          const sp = new LineSplitter({ line: (l) => out.push(l) }, max);
          let p = 0;
          for (const c of [...cuts.map((x) => x % (bytes.length + 1))].sort((a, b) => a - b)) {
            sp.push(bytes.subarray(p, c));
            p = c;
          }
          sp.push(bytes.subarray(p));
          sp.end();
          return out;
        };
        const whole = run([]);
        expect(run(splits)).toEqual(whole);
        for (const l of whole) expect(l.length).toBeLessThanOrEqual(max);
      }),
      fcParams,
    );
  });
});
