/**
 * Gunzip by content (magic 1f 8b), whatever the name; protobuf-vs-text sniffing on real corpus files;
 * and `malformed …` gzip input made at test time: cut short, corrupt, a bomb.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { looksLikeProtobuf, maybeGunzip } from '../../src/read/decompress.js';
import { InputError } from '../../src/read/errors.js';
import { readDumpFrom } from '../../src/read/index.js';
import { CORPUS, corpusAvailable, corpusFiles } from '../helpers/paths.js';

const corpus = corpusAvailable();

async function* chunksOf(b: Uint8Array, size: number): AsyncIterable<Uint8Array> {
  for (let i = 0; i < b.length; i += size) yield b.subarray(i, i + size);
}

async function collect(it: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const c of it) parts.push(c);
  return Buffer.concat(parts);
}

async function errorOf(p: Promise<unknown>): Promise<InputError> {
  const e = await p.then(() => undefined, (x: unknown) => x);
  expect(e).toBeInstanceOf(InputError);
  return e as InputError;
}

describe.skipIf(!corpus)('gzip and protobuf are recognised by content on real files', () => {
  const binary = corpusFiles().filter((f) => f.startsWith('binary/'));
  const text = corpusFiles().filter((f) => !f.startsWith('binary/'));

  it.each(binary)('%s: gunzipped by magic bytes under any name, then sniffed as protobuf', async (f) => {
    const gz = readFileSync(join(CORPUS, f));
    expect([gz[0], gz[1]]).toEqual([0x1f, 0x8b]);
    for (const name of ['goroutine.txt', 'goroutine', 'goroutine.out', 'x.pprof']) {
      const out = await collect(maybeGunzip(name, chunksOf(gz, 1000)));
      expect(out.equals(gunzipSync(gz))).toBe(true);
    }
    // Go writes period_type (tag 0x5a) first, not sample_type (0x0a): the sniffer must not need 0x0a.
    expect(looksLikeProtobuf(gunzipSync(gz))).toBe(true);
  });

  it.each(text)('%s: passed through as is and not taken for protobuf', async (f) => {
    const raw = readFileSync(join(CORPUS, f));
    const out = await collect(maybeGunzip(f, chunksOf(raw, 4096)));
    expect(out.equals(raw)).toBe(true);
    expect(looksLikeProtobuf(raw.subarray(0, 65536))).toBe(false);
  });

  it('pg-coordinator (gzip protobuf saved as goroutine.txt) reads as pprof under its original name', async () => {
    const d = await readDumpFrom('goroutine.txt', readFileSync(join(CORPUS, 'binary/pg-coordinator-binary-named-txt-127.pb.gz')));
    expect(d.snapshots[0]).toMatchObject({ format: 'pprof', total: 127 });
  });

  it('rinha (debug=2 text saved as .pprof) is sniffed as text, also when gzipped', async () => {
    const raw = readFileSync(join(CORPUS, 'debug2/rinha-text-dump-named-pprof.txt'));
    expect(looksLikeProtobuf(raw)).toBe(false);
    const out = await collect(maybeGunzip('goroutine.pprof', chunksOf(gzipSync(raw), 1)));
    expect(out.equals(raw)).toBe(true);
  });
});

describe('malformed gzip input', () => {
  const text = Buffer.from(Array.from({ length: 20000 }, (_, i) => `1 @ 0x${(0x400000 + i).toString(16)} 0x467ba1\n#\t0x${(0x400000 + i).toString(16)}\tmain.f${i}+0x1\t/src/m.go:${i}\n`).join(''));

  it('malformed: a gzip cut short yields the content it held and reports truncation', async () => {
    const gz = gzipSync(text);
    let truncated = false;
    const out = await collect(maybeGunzip('cut.gz', chunksOf(gz.subarray(0, Math.floor(gz.length / 2)), 512), undefined, () => {
      truncated = true;
    }));
    expect(truncated).toBe(true);
    expect(out.length).toBeGreaterThan(0);
    expect(out.length).toBeLessThan(text.length);
    expect(text.subarray(0, out.length).equals(out)).toBe(true);
  });

  it('malformed: a gzip cut short with no truncation handler, or cut inside its header, is bad-gzip', async () => {
    const gz = gzipSync(text);
    expect((await errorOf(collect(maybeGunzip('cut.gz', chunksOf(gz.subarray(0, gz.length / 2), 512))))).code).toBe('bad-gzip');
    let truncated = false;
    const e = await errorOf(collect(maybeGunzip('head.gz', chunksOf(gz.subarray(0, 6), 512), undefined, () => (truncated = true))));
    expect(e.code).toBe('bad-gzip');
    expect(truncated).toBe(false);
  });

  it('malformed: corrupt deflate data after a valid header is bad-gzip', async () => {
    const gz = Buffer.from(gzipSync(text));
    for (let i = 10; i < 60; i++) gz[i] = 0xff;
    const e = await errorOf(collect(maybeGunzip('corrupt.gz', chunksOf(gz, 4096))));
    expect(e.code).toBe('bad-gzip');
    expect(e.message).toMatch(/^corrupt\.gz: /);
  });

  it('malformed: a gzip bomb (50 MB of zeros) past maxDecompressedBytes is too-large', async () => {
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(100 * 1024);
    const e = await errorOf(readDumpFrom('bomb.txt', bomb, { maxDecompressedBytes: 1024 * 1024 }));
    expect(e.code).toBe('too-large');
    expect(e.message).toMatch(/more than 1048576 bytes/);
  });

  it('malformed: empty input is refused as empty', async () => {
    expect((await errorOf(readDumpFrom('empty.txt', new Uint8Array(0)))).code).toBe('empty');
    expect((await errorOf(readDumpFrom('empty.gz', gzipSync(Buffer.alloc(0))))).code).toBe('empty');
  });

  it('malformed: the gzip magic split across chunks (1-byte first chunk) is still recognised', async () => {
    const out = await collect(maybeGunzip('split.gz', chunksOf(gzipSync(text), 1)));
    expect(out.equals(text)).toBe(true);
  });
});
