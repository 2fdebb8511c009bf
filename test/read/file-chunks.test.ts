import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSource, readFileChunks, readInto, releaseChunk } from '../../src/read/source.js';

const dir = mkdtempSync(join(tmpdir(), 'leakscope-chunks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A file of `n` bytes whose every byte tells its offset (mod 251), so misplaced chunks show. */
function fileOf(n: number): { path: string; bytes: Buffer } {
  const bytes = Buffer.alloc(n);
  for (let i = 0; i < n; i++) bytes[i] = i % 251;
  const path = join(dir, `f${n}`);
  writeFileSync(path, bytes);
  return { path, bytes };
}

async function collect(it: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of it) parts.push(Buffer.from(c));
  return Buffer.concat(parts);
}

describe('readFileChunks (reads ahead on regular files)', () => {
  it.each([0, 1, 1000, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 3 * (1 << 20) + 12345])('gives a file of %i bytes whole and in order', async (n) => {
    const { path, bytes } = fileOf(n);
    expect((await collect(readFileChunks(path))).equals(bytes)).toBe(true);
  });

  it('gives the bytes [start, end) of a range, across read boundaries', async () => {
    const { path, bytes } = fileOf(5 * (1 << 20));
    for (const [start, end] of [[0, 10], [7, (1 << 20) + 9], [(1 << 20) - 3, 4 * (1 << 20) + 1], [4 * (1 << 20), 5 * (1 << 20)]]) {
      expect((await collect(readFileChunks(path, start, end))).equals(bytes.subarray(start, end))).toBe(true);
    }
    // An end past the file's end stops at the file's end.
    expect((await collect(readFileChunks(path, 5 * (1 << 20) - 4, 6 * (1 << 20)))).equals(bytes.subarray(5 * (1 << 20) - 4))).toBe(true);
  });

  it('stops cleanly when the reader stops early (reads in flight end, the file closes)', async () => {
    const { path } = fileOf(4 * (1 << 20));
    let seen = 0;
    for await (const c of readFileChunks(path)) {
      seen += c.byteLength;
      break;
    }
    expect(seen).toBeGreaterThan(0);
    // The same file reads whole again afterwards.
    expect((await collect(readFileChunks(path))).byteLength).toBe(4 * (1 << 20));
  });

  it('lends its buffers when asked: the buffer of a released chunk takes a later read, bytes still right', async () => {
    const { path, bytes } = fileOf(9 * (1 << 20) + 5);
    const parts: Buffer[] = [];
    const buffers = new Set<ArrayBufferLike>();
    for await (const c of readFileChunks(path, undefined, undefined, true)) {
      parts.push(Buffer.from(c));
      buffers.add(c.buffer);
      releaseChunk(c);
    }
    expect(Buffer.concat(parts).equals(bytes)).toBe(true);
    // Two reads ahead and the chunk in hand: three buffers (a fourth at most, while one is given back).
    expect(buffers.size).toBeLessThanOrEqual(4);
  });

  it('reads into the consumer\'s buffers once told (readInto), while it gives them; then into its own again, reused', async () => {
    const { path, bytes } = fileOf(12 * (1 << 20) + 7);
    const given: Buffer[] = [];
    const make = (size: number): Buffer | undefined => {
      if (given.length === 3) return undefined;
      const b = Buffer.alloc(size + 5).subarray(5);
      given.push(b);
      return b;
    };
    const parts: Buffer[] = [];
    const inGiven: boolean[] = [];
    const own = new Set<ArrayBufferLike>();
    let i = 0;
    for await (const c of readFileChunks(path, undefined, undefined, true)) {
      parts.push(Buffer.from(c));
      const mine = given.some((g) => g.buffer === c.buffer);
      inGiven.push(mine);
      if (!mine) own.add(c.buffer);
      if (i++ === 1) readInto(c, make);
      releaseChunk(c);
    }
    expect(Buffer.concat(parts).equals(bytes)).toBe(true);
    // Chunks 0-3 were read (or in flight) before; the given buffers take reads from then on, and are reused.
    expect(inGiven.slice(0, 4)).toEqual([false, false, false, false]);
    expect(inGiven.slice(4).every((m) => m)).toBe(true);
    expect(given.length).toBe(3);
    expect(own.size).toBeLessThanOrEqual(4);
  });

  it('keeps its own buffers when the consumer gives none (readInto whose maker has nothing)', async () => {
    const { path, bytes } = fileOf(9 * (1 << 20) + 1);
    const parts: Buffer[] = [];
    const buffers = new Set<ArrayBufferLike>();
    let first = true;
    for await (const c of readFileChunks(path, undefined, undefined, true)) {
      parts.push(Buffer.from(c));
      buffers.add(c.buffer);
      if (first) readInto(c, () => undefined);
      first = false;
      releaseChunk(c);
    }
    expect(Buffer.concat(parts).equals(bytes)).toBe(true);
    // One buffer dropped when told, then reused buffers again (not a new one per read).
    expect(buffers.size).toBeLessThanOrEqual(5);
  });

  it('lends nothing unless asked: chunks kept by their consumer stay intact', async () => {
    const { path, bytes } = fileOf(6 * (1 << 20) + 3);
    const kept: Uint8Array[] = [];
    for await (const c of readFileChunks(path)) {
      kept.push(c);
      releaseChunk(c);
    }
    expect(Buffer.concat(kept).equals(bytes)).toBe(true);
  });

  it('reads a FIFO in order (not a regular file: no reads at offsets)', async () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const { bytes } = fileOf(3 * (1 << 20) + 77);
    const writer = import('node:fs/promises').then(async (fs) => fs.writeFile(fifo, bytes));
    const got = await collect(readFileChunks(fifo));
    await writer;
    expect(got.equals(bytes)).toBe(true);
  });

  it.runIf(process.platform === 'linux')('reads a file that says it is empty but is not (procfs) to its end', async () => {
    const got = await collect(readFileChunks('/proc/self/status'));
    expect(got.toString('latin1')).toMatch(/^Name:/);
  });

  it('refuses a missing file with an input error naming it', async () => {
    await expect(collect(readFileChunks(join(dir, 'missing')))).rejects.toThrow(/missing.*cannot read \(ENOENT\)|cannot read \(ENOENT\)/);
  });
});

describe('openSource of a regular file', () => {
  /** The chunks of a file opened as an input, as they come. */
  async function chunksOfInput(path: string): Promise<Buffer[]> {
    const parts: Buffer[] = [];
    for await (const c of (await openSource(path)).chunks) parts.push(Buffer.from(c));
    return parts;
  }

  it.each([1, 1000, (1 << 20) - 1, 1 << 20])('reads a file of %i bytes (one read at most) in one chunk', async (n) => {
    const { path, bytes } = fileOf(n);
    const parts = await chunksOfInput(path);
    expect(parts).toHaveLength(1);
    expect(parts[0].equals(bytes)).toBe(true);
  });

  it.each([(1 << 20) + 1, 3 * (1 << 20) + 12345])('reads a file of %i bytes ahead in chunks, whole and in order', async (n) => {
    const { path, bytes } = fileOf(n);
    const parts = await chunksOfInput(path);
    expect(parts.length).toBeGreaterThan(1);
    expect(Buffer.concat(parts).equals(bytes)).toBe(true);
  });

  it('reads a small file as it is when first read, not when opened (emptied in between: no chunk)', async () => {
    const { path } = fileOf(500);
    const src = await openSource(path);
    writeFileSync(path, '');
    const parts: Uint8Array[] = [];
    for await (const c of src.chunks) parts.push(c);
    expect(parts).toEqual([]);
  });

  it('refuses a missing file and a folder with an input error naming them', async () => {
    await expect(openSource(join(dir, 'missing'))).rejects.toThrow(/no such file/);
    await expect(openSource(dir)).rejects.toThrow(/is a directory/);
  });
});
