/**
 * Input with no dump in its first 64 MiB (a device, a binary stream, a huge log without a dump) is
 * refused there with one line naming it, not read to its end. The streams are generated here (zeros,
 * seeded noise, log lines, none of them a dump); the dumps are real samples. Each test counts the bytes
 * the reader pulled from its source: the check that it stopped.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { InputError, readDumpFrom } from '../../src/read/index.js';
import { DEFAULT_DUMP_SEARCH_BYTES } from '../../src/read/text-input.js';
import { ensureBuilt, run } from '../cli/run.js';
import { SAMPLES } from '../helpers/paths.js';

const MiB = 1 << 20;
const CHUNK = 256 * 1024;

/** `total` bytes made of `block` repeated, in 256 KiB chunks; `pulled()` says how many were taken. */
function stream(block: Buffer, total: number): { chunks: AsyncIterable<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  async function* gen(): AsyncIterable<Uint8Array> {
    const chunk = Buffer.alloc(CHUNK);
    for (let i = 0; i < CHUNK; i += block.length) block.copy(chunk, i);
    while (pulled < total) {
      const c = chunk.subarray(0, Math.min(CHUNK, total - pulled));
      pulled += c.length;
      yield c;
    }
  }
  return { chunks: gen(), pulled: () => pulled };
}

/** Seeded noise (xorshift32), the same on every run. */
function noise(n: number, seed: number): Buffer {
  const b = Buffer.alloc(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    b[i] = x & 0xff;
  }
  return b;
}

const logLines = Buffer.from('2024-05-01T10:00:00Z INFO request served path=/api/v1/items status=200 took=3ms\n'.repeat(64));

async function refusal(p: Promise<unknown>): Promise<InputError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(InputError);
  return e as InputError;
}

describe('input without a dump in its first 64 MiB', () => {
  it('a stream of zeros (a device) is refused after 64 MiB, not read to its 1 GiB end', async () => {
    const s = stream(Buffer.alloc(1), 1024 * MiB);
    const e = await refusal(readDumpFrom('/dev/zero', s.chunks));
    expect(e.code).toBe('not-a-dump');
    expect(e.message).toBe('/dev/zero: no line break in the first 64 MiB: not a goroutine dump (a device or a binary stream?); stopped reading there');
    expect(s.pulled()).toBeGreaterThanOrEqual(DEFAULT_DUMP_SEARCH_BYTES);
    expect(s.pulled()).toBeLessThanOrEqual(DEFAULT_DUMP_SEARCH_BYTES + CHUNK);
  });

  it('noise (a binary stream) is refused as text the same way', async () => {
    const block = noise(CHUNK, 7);
    // This seed's bytes do not start like a protobuf: they go the text way.
    const s = stream(block, 1024 * MiB);
    const e = await refusal(readDumpFrom('noise', s.chunks, { maxBytesBeforeDump: 4 * MiB }));
    expect(e.code).toBe('not-a-dump');
    expect(e.message).toMatch(/^noise: no goroutine dump in the first 4 MiB \(\d+ lines of other text\); stopped reading there/);
    expect(s.pulled()).toBeLessThanOrEqual(4 * MiB + CHUNK);
  });

  it('a log without a dump is refused after the limit, saying how many lines it read', async () => {
    const s = stream(logLines, 1024 * MiB);
    const e = await refusal(readDumpFrom('app.log', s.chunks, { maxBytesBeforeDump: 2 * MiB }));
    expect(e.message).toMatch(/^app\.log: no goroutine dump in the first 2 MiB \(2\d{4} lines of other text\); stopped reading there\. A dump that starts further into a log: cut the log before it/);
    expect(s.pulled()).toBeLessThanOrEqual(2 * MiB + CHUNK);
  });

  it('gzip is undone first: the limit counts decompressed bytes', async () => {
    const { gzipSync } = await import('node:zlib');
    const gz = gzipSync(Buffer.alloc(16 * MiB));
    const e = await refusal(readDumpFrom('zeros.gz', gz, { maxBytesBeforeDump: 4 * MiB }));
    expect(e.message).toBe('zeros.gz: no line break in the first 4 MiB: not a goroutine dump (a device or a binary stream?); stopped reading there');
  });

  describe('a real dump after a preamble of log lines', () => {
    const path = join(SAMPLES, 'apiproxy-leak', 'goroutine.debug2.txt');
    const dump = readFileSync(path);
    const withPreamble = (bytes: number): Buffer => Buffer.concat([Buffer.from(logLines.toString().repeat(Math.ceil(bytes / logLines.length))).subarray(0, bytes - (bytes % logLines.length)), dump]);

    it('is read when it starts inside the limit, as without the preamble', async () => {
      const alone = await readDumpFrom(path, dump);
      const d = await readDumpFrom(path, withPreamble(3 * MiB), { maxBytesBeforeDump: 4 * MiB });
      expect(d.snapshots.map((s) => s.total)).toEqual(alone.snapshots.map((s) => s.total));
      expect(d.snapshots[0].groups.map((g) => g.count)).toEqual(alone.snapshots[0].groups.map((g) => g.count));
    });

    it('is refused when it starts past the limit (documented in docs/cli.md)', async () => {
      // In reads of 256 KiB, like a file: the limit is checked as they arrive.
      const bytes = withPreamble(5 * MiB);
      async function* reads(): AsyncIterable<Uint8Array> {
        for (let i = 0; i < bytes.length; i += CHUNK) yield bytes.subarray(i, i + CHUNK);
      }
      const e = await refusal(readDumpFrom(path, reads(), { maxBytesBeforeDump: 4 * MiB }));
      expect(e.code).toBe('not-a-dump');
    });

    it('a dump larger than the limit is read whole', async () => {
      const d = await readDumpFrom(path, Buffer.concat([dump, Buffer.from(logLines.toString().repeat(Math.ceil((2 * MiB) / logLines.length)))]), { maxBytesBeforeDump: 1 * MiB });
      expect(d.snapshots.length).toBe(1);
    });
  });
});

describe('noise that starts like a protobuf', () => {
  it('ends at the first top-level field a Profile cannot have, not at the 512 MiB limit', async () => {
    // Field 1 (sample_type) of 600 bytes (its field 1 again and again), past the 512 bytes sniffed;
    // then a field with wire type 7; then noise.
    const sampleType = Buffer.from(Array.from({ length: 300 }, () => [0x08, 0x01]).flat());
    const head = Buffer.concat([Buffer.from([0x0a, 0xd8, 0x04]), sampleType, Buffer.from([0x0f])]);
    const block = Buffer.concat([head, noise(CHUNK - head.length, 3)]);
    let pulled = 0;
    async function* gen(): AsyncIterable<Uint8Array> {
      yield block;
      for (;;) {
        pulled += CHUNK;
        yield noise(CHUNK, pulled);
      }
    }
    const e = await refusal(readDumpFrom('noise.pb', gen()));
    expect(e.code).toBe('bad-protobuf');
    expect(e.message).toMatch(/wire type 7 at byte 603/);
    expect(pulled).toBe(0);
  });

  it('a field declaring more bytes than the largest profile read ends the read there', async () => {
    // Field 6 (string_table) of 2^31 bytes.
    const head = Buffer.from([0x32, 0x80, 0x80, 0x80, 0x80, 0x08, 0x01, 0x02]);
    const e = await refusal(readDumpFrom('huge.pb', Buffer.concat([head, noise(4096, 5)])));
    expect(e.message).toBe('huge.pb: is not a readable pprof protobuf: field 6 at byte 0 declares 2147483648 bytes, more than the largest profile read (536870912 bytes); stopped reading there');
  });
});

describe('the CLI', () => {
  beforeAll(() => ensureBuilt(), 180_000);

  it('exits 2 with one line naming a device it cannot read a dump from, and stops reading it', async () => {
    // /dev/zero never ends: the CLI returning at all says it stopped.
    const r = await run(['inspect', '/dev/zero', '-f', 'json'], { timeoutMs: 60_000 });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual(['leakscope: /dev/zero: no line break in the first 64 MiB: not a goroutine dump (a device or a binary stream?); stopped reading there']);
  }, 90_000);
});
