import { Readable } from 'node:stream';
import { createGunzip, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { chunksUntilError } from '../../src/read/stream-chunks.js';

async function drain(chunks: AsyncIterable<Buffer>): Promise<{ bytes: Buffer; error?: unknown }> {
  const got: Buffer[] = [];
  try {
    for await (const b of chunks) {
      got.push(b);
    }
    return { bytes: Buffer.concat(got) };
  } catch (error) {
    return { bytes: Buffer.concat(got), error };
  }
}

/** A gzip of 400 KB of text with eight bytes zeroed past its middle. */
function brokenGzip(): { whole: Buffer; gz: Buffer } {
  const lines: string[] = [];
  for (let i = 0; lines.join('').length < 400_000; i++) lines.push(`goroutine ${i} [chan receive, ${i % 97} minutes]:\nmain.worker(0x${(i * 7919).toString(16)})\n`);
  const whole = Buffer.from(lines.join(''));
  const gz = gzipSync(whole);
  gz.fill(0, (gz.length >> 1) + 100, (gz.length >> 1) + 108);
  return { whole, gz };
}

function gunzipOf(gz: Buffer): Readable {
  const z = createGunzip();
  Readable.from([gz]).pipe(z);
  return z;
}

describe('chunksUntilError', () => {
  it('gives the chunks buffered when the stream is destroyed by an error, then the error', async () => {
    const s = new Readable({ read() {} });
    s.push(Buffer.from('one '));
    s.push(Buffer.from('two '));
    s.push(Buffer.from('three'));
    s.destroy(new Error('broken'));
    const r = await drain(chunksUntilError(s));
    expect(r.bytes.toString()).toBe('one two three');
    expect((r.error as Error).message).toBe('broken');
  });

  it('ends without error at the end of the stream', async () => {
    const r = await drain(chunksUntilError(Readable.from([Buffer.from('a'), Buffer.from('b')], { objectMode: false })));
    expect(r).toEqual({ bytes: Buffer.from('ab') });
  });

  it('gives what a broken gzip inflates before its break, then the error', async () => {
    const { whole, gz } = brokenGzip();
    const r = await drain(chunksUntilError(gunzipOf(gz)));
    expect(r.error).toBeDefined();
    // Inflating past the zeroed bytes may give some wrong bytes before zlib sees the break.
    expect(r.bytes.length).toBeGreaterThan(100_000);
    expect(whole.subarray(0, 100_000).equals(r.bytes.subarray(0, 100_000))).toBe(true);
  });
});
