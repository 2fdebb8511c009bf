/**
 * Small gzip input is inflated whole (src/read/small-gzip.ts); everything else goes the stream way
 * over the same bytes, read errors included, so that a small input reads as it did before.
 */
import { randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { maybeGunzip } from '../../src/read/decompress.js';
import { SMALL_GZIP_INPUT, SMALL_GZIP_OUTPUT, gunzipWhole, inflateSmallWhole } from '../../src/read/small-gzip.js';

async function* chunksOf(b: Uint8Array, size: number): AsyncIterable<Uint8Array> {
  for (let i = 0; i < b.length; i += size) yield b.subarray(i, i + size);
}

async function all(it: AsyncIterable<Uint8Array>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const c of it) out.push(c);
  return out;
}

/** A stream way that records what it is given and passes it through. */
function recordingStream() {
  const seen: Uint8Array[] = [];
  let calls = 0;
  let error: unknown;
  async function* stream(input: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
    calls++;
    try {
      for await (const c of input) {
        seen.push(c);
        yield c;
      }
    } catch (e) {
      error = e;
    }
  }
  return { stream, seen, calls: () => calls, error: () => error };
}

const text = Buffer.from(Array.from({ length: 5000 }, (_, i) => `goroutine ${i + 1} [chan receive]:\nmain.worker()\n\t/src/main.go:${i}\n\n`).join(''));

describe('inflateSmallWhole', () => {
  it('inflates a small input whole, in one chunk, without the stream way', async () => {
    const gz = gzipSync(text);
    const s = recordingStream();
    const out = await all(inflateSmallWhole(chunksOf(gz, 100), (b) => gunzipWhole(gunzipSync, b, SMALL_GZIP_OUTPUT), s.stream));
    expect(out).toHaveLength(1);
    expect(Buffer.from(out[0]).equals(text)).toBe(true);
    expect(s.calls()).toBe(0);
  });

  it(`gives an input of more than ${SMALL_GZIP_INPUT} bytes to the stream way, every chunk in order, never whole`, async () => {
    const big = randomBytes(SMALL_GZIP_INPUT + 5000);
    const s = recordingStream();
    let wholeCalls = 0;
    const out = await all(inflateSmallWhole(chunksOf(big, 64 * 1024), () => (wholeCalls++, new Uint8Array(0)), s.stream));
    expect(wholeCalls).toBe(0);
    expect(s.calls()).toBe(1);
    expect(Buffer.concat(s.seen).equals(big)).toBe(true);
    expect(Buffer.concat(out).equals(big)).toBe(true);
  });

  it('gives a small input the whole way refused to the stream way, over the same bytes', async () => {
    const gz = gzipSync(text);
    const s = recordingStream();
    const out = await all(inflateSmallWhole(chunksOf(gz, 700), () => undefined, s.stream));
    expect(s.calls()).toBe(1);
    expect(Buffer.concat(out).equals(gz)).toBe(true);
  });

  it('hands a read error met while reading ahead to the stream way, after the chunks read before it', async () => {
    const boom = new Error('EIO: read failed');
    async function* failing(): AsyncIterable<Uint8Array> {
      yield Buffer.from('ab');
      yield Buffer.from('cd');
      throw boom;
    }
    const s = recordingStream();
    let wholeCalls = 0;
    await all(inflateSmallWhole(failing(), () => (wholeCalls++, undefined), s.stream));
    expect(wholeCalls).toBe(0);
    expect(Buffer.concat(s.seen).toString()).toBe('abcd');
    expect(s.error()).toBe(boom);
  });

  it('ends the source when the reader stops early, still among the chunks read ahead', async () => {
    let ended = false;
    async function* source(): AsyncIterable<Uint8Array> {
      try {
        for (let i = 0; i < 40; i++) yield randomBytes(64 * 1024);
      } finally {
        ended = true;
      }
    }
    const s = recordingStream();
    for await (const c of inflateSmallWhole(source(), () => undefined, s.stream)) {
      expect(c.byteLength).toBe(64 * 1024);
      break;
    }
    expect(s.calls()).toBe(1);
    expect(ended).toBe(true);
  });

  it('yields nothing for a whole inflation to no bytes', async () => {
    const s = recordingStream();
    expect(await all(inflateSmallWhole(chunksOf(gzipSync(Buffer.alloc(0)), 10), (b) => gunzipWhole(gunzipSync, b, 100), s.stream))).toEqual([]);
    expect(s.calls()).toBe(0);
  });
});

describe('gunzip of inputs on either side of the limits (maybeGunzip)', () => {
  it(`reads a small input that inflates past ${SMALL_GZIP_OUTPUT} bytes the stream way, whole`, async () => {
    const zeros = Buffer.alloc(SMALL_GZIP_OUTPUT + 4096, 0x30);
    const gz = gzipSync(zeros);
    expect(gz.length).toBeLessThan(SMALL_GZIP_INPUT);
    const out = await all(maybeGunzip('zeros.gz', chunksOf(gz, 4096)));
    expect(out.length).toBeGreaterThan(1);
    expect(Buffer.concat(out).equals(zeros)).toBe(true);
  });

  it(`reads an input of more than ${SMALL_GZIP_INPUT} gzip bytes the stream way, whole`, async () => {
    const noise = randomBytes(SMALL_GZIP_INPUT + 100_000);
    const gz = gzipSync(noise);
    expect(gz.length).toBeGreaterThan(SMALL_GZIP_INPUT);
    expect(Buffer.concat(await all(maybeGunzip('noise.gz', chunksOf(gz, 64 * 1024)))).equals(noise)).toBe(true);
  });

  it('reads a small input whole in one chunk, and exactly at maxBytes still reads', async () => {
    const gz = gzipSync(text);
    const out = await all(maybeGunzip('small.gz', chunksOf(gz, 512)));
    expect(out).toHaveLength(1);
    expect(Buffer.from(out[0]).equals(text)).toBe(true);
    const exact = await all(maybeGunzip('exact.gz', chunksOf(gz, 512), text.length));
    expect(Buffer.concat(exact).equals(text)).toBe(true);
  });
});
