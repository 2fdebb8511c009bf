/**
 * Limits end in one clear InputError naming the input and the flag that raises it; odd-but-harmless
 * input (a long line, a bad protobuf sample value) is read with a warning. Plus the known bugs of
 * files this suite's author could not edit, as `it.fails` with their reproduction: when one is fixed
 * its test starts failing: turn it into a plain `it`.
 */
import { gzipSync } from 'node:zlib';
import { Profile, StringTable, type ProfileInput } from 'pprof-format';
import { beforeAll, describe, expect, it } from 'vitest';
import { readBounded, printSeed } from './support.js';

beforeAll(() => printSeed('limits'));

const G = (id: number, fn = 'main.worker'): string => `goroutine ${id} [chan receive]:\n${fn}()\n\t/src/main.go:12 +0x1d\ncreated by main.main\n\t/src/main.go:5 +0x2a\n\n`;

async function refused(name: string, bytes: Uint8Array, opts: Parameters<typeof readBounded>[2] = {}): Promise<{ code: string; message: string }> {
  const r = await readBounded(name, bytes, opts);
  expect(r.error, `${name}: expected an InputError, got a Dump`).toBeDefined();
  expect(r.error!.message.startsWith(`${name}: `), 'the message names the input').toBe(true);
  expect(r.error!.message).not.toMatch(/\n/);
  return r.error!;
}

describe('decompressed size (gzip bombs)', () => {
  it('a gzip bomb ends at --max-decompressed', async () => {
    const bomb = gzipSync(Buffer.concat([Buffer.from(G(1)), Buffer.alloc(64 << 20, 0x20)]), { level: 9 });
    expect(bomb.length).toBeLessThan(1 << 20);
    const e = await refused('bomb.gz', bomb, { maxDecompressedBytes: 4 << 20 });
    expect(e.code).toBe('too-large');
    expect(e.message).toMatch(/decompresses to more than 4194304 bytes.*--max-decompressed/);
  });

  it('raising the limit reads the same input', async () => {
    const gz = gzipSync(Buffer.from(G(1) + G(2)));
    const r = await readBounded('small.gz', gz, { maxDecompressedBytes: 1 << 20 });
    expect(r.dump?.snapshots[0].total).toBe(2);
    await refused('small.gz', gz, { maxDecompressedBytes: 10 });
  });

  it('gzip inside gzip is not unpacked twice (no recursion bomb)', async () => {
    const r = await readBounded('double.gz', gzipSync(gzipSync(Buffer.from(G(1)))));
    expect(r.error?.code ?? 'read').toMatch(/not-a-dump|bad-protobuf|read/);
  });
});

describe('line length', () => {
  it('a line longer than --max-line is cut and reported with its true length; the goroutines around it are read', async () => {
    const text = G(1) + 'x'.repeat(3 << 20) + '\n\n' + G(2);
    const r = await readBounded('long-line.txt', Buffer.from(text), { maxLineLength: 1 << 20 });
    const d = r.dump!;
    expect(d.snapshots.reduce((a, s) => a + s.total, 0)).toBe(2);
    const w = d.warnings.find((x) => x.code === 'line-too-long')!;
    expect(w.line).toBe(7);
    expect(w.message).toContain(`is ${3 << 20} characters long`);
  });

  it('a 20 MB file of one line without a newline stays within memory bounds', async () => {
    const r = await readBounded('one-line.txt', Buffer.alloc(20 << 20, 0x61));
    expect(r.error?.code).toBe('not-a-dump');
  });
});

describe('number of snapshots', () => {
  it('more dumps than --max-snapshots is refused with the limit named', async () => {
    // The same goroutine id again starts the next snapshot.
    const e = await refused('many.txt', Buffer.from(G(1).repeat(50)), { maxSnapshots: 10 });
    expect(e.code).toBe('too-many-snapshots');
    expect(e.message).toMatch(/more than 10 dumps/);
  });

  it('up to the limit is read', async () => {
    const r = await readBounded('ten.txt', Buffer.from(G(1).repeat(10)), { maxSnapshots: 10 });
    expect(r.dump?.snapshots.length).toBe(10);
  });

  it('many debug=1 profiles in one file count against the same limit', async () => {
    const p = 'goroutine profile: total 1\n1 @ 0x1\n#\t0x1\tmain.f+0x1\t/a.go:1\n\n';
    const e = await refused('many1.txt', Buffer.from(p.repeat(30)), { maxSnapshots: 5 });
    expect(e.code).toBe('too-many-snapshots');
  });
});

describe('protobuf', () => {
  const S = ['', 'goroutine', 'count', 'main.f', '/a.go'];
  const enc = (over: Partial<ProfileInput>, strs = S): Uint8Array => {
    const st = new StringTable();
    for (const s of strs) st.dedup(s);
    return new Profile({
      sampleType: [{ type: 1, unit: 2 }], periodType: { type: 1, unit: 2 }, period: 1,
      function: [{ id: 1, name: 3, filename: 4 }], location: [{ id: 1, address: 0x10, line: [{ functionId: 1, line: 3 }] }],
      sample: [{ locationId: [1], value: [2] }], stringTable: st, ...over,
    }).encode();
  };

  it('the valid base profile reads', async () => {
    expect((await readBounded('ok.pb.gz', gzipSync(enc({})))).dump?.snapshots[0].total).toBe(2);
  });

  it.each([
    ['a sample refers to an undefined location id', { sample: [{ locationId: [99], value: [1] }] }, /location id 99/],
    ['a location id beyond 2^53', { sample: [{ locationId: [2n ** 63n], value: [1] }] }, /location id/],
    ['a location refers to an undefined function', { location: [{ id: 1, address: 1, line: [{ functionId: 7, line: 1 }] }] }, /function id 7/],
    ['a function name is a missing string-table entry', { function: [{ id: 1, name: 40, filename: 4 }] }, /string id 40/],
    ['a negative string id', { function: [{ id: 1, name: -3, filename: 4 }] }, /string id/],
    ['a sample type beyond the string table', { sampleType: [{ type: 1000, unit: 2 }] }, /string id 1000/],
  ] as [string, Partial<ProfileInput>, RegExp][])('%s: bad-protobuf, one line', async (_n, over, text) => {
    const e = await refused('bad.pb.gz', gzipSync(enc(over)));
    expect(e.code).toBe('bad-protobuf');
    expect(e.message).toMatch(text);
  });

  it('negative, missing and huge counts are skipped with a warning; the rest is read', async () => {
    const r = await readBounded('counts.pb.gz', gzipSync(enc({
      sample: [{ locationId: [1], value: [-5] }, { locationId: [1], value: [] }, { locationId: [1], value: [2n ** 62n] }, { locationId: [1], value: [3] }],
    })));
    const s = r.dump!.snapshots[0];
    expect(s.total).toBe(3);
    expect(s.warnings.find((w) => w.code === 'bad-sample')?.message).toMatch(/^3 samples/);
  });

  it('a protobuf larger than --max-protobuf is refused', async () => {
    const big = enc({ sample: Array.from({ length: 5000 }, () => ({ locationId: [1], value: [1] })) });
    const e = await refused('big.pb', big, { maxProtobufBytes: 1000 });
    expect(e.code).toBe('too-large');
    expect(e.message).toMatch(/--max-protobuf/);
  });

  it('a heap profile is refused as the wrong profile', async () => {
    const e = await refused('heap.pb.gz', gzipSync(enc({ sampleType: [{ type: 5, unit: 6 }] }, [...S, 'inuse_space', 'bytes'])));
    expect(e.code).toBe('wrong-profile');
  });
});

describe('input that is not a dump', () => {
  it.each([
    ['empty', Buffer.alloc(0), 'empty'],
    ['whitespace', Buffer.from('\n\n  \n'), 'not-a-dump'],
    ['an HTML login page saved to a file', Buffer.from('<!DOCTYPE html><html><body><form action="/login">…</form></body></html>'), 'not-a-dump'],
    ['JSON', Buffer.from('{"error":"unauthorized"}\n'), 'not-a-dump'],
    ['NUL bytes', Buffer.alloc(4096, 0), 'not-a-dump'],
  ] as [string, Buffer, string][])('%s: %s', async (name, b, code) => {
    const e = await refused(name, b);
    expect(e.code).toBe(code);
    if (name.startsWith('an HTML')) expect(e.message).toMatch(/HTML page/);
  });
});

describe('known bugs in files still being finished (reported to the lead; fix, then turn it.fails into it)', () => {
  it('unwrap.ts: a log prefix of 300,000 characters is not learned (generalizePrefix threw SyntaxError: regexp too large)', async () => {
    const s = `Jan 1 00:00:00 host app[1]: ${'{'.repeat(300_000)} goroutine 1 [running]:\nJan 1 00:00:00 host app[1]: main.main()\n`;
    await readBounded('huge-prefix.txt', Buffer.from(s));
  });

  it('text.ts: a goroutine id near 2^27 no longer allocates a 16 MiB id bitset per snapshot (5 KB input was >1 GiB)', async () => {
    const s = 'goroutine 134217000 [running]:\nmain.f()\n\t/a.go:1 +0x1\n\n'.repeat(100);
    await readBounded('big-ids.txt', Buffer.from(s));
  });
});
