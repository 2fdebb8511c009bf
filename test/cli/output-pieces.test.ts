/**
 * `writeOutputPieces` to a file: the pieces' UTF-8, whole and in order, whatever their size and
 * characters. Pieces of up to a third of the encoding buffer's size are encoded into one reused
 * buffer, longer ones into a buffer of their own: pieces on both sides of that line, with characters
 * of 1, 2, 3 and 4 bytes, and a lone surrogate (written as U+FFFD, as `Buffer.from` writes it).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeOutputPieces } from '../../src/cli/output.js';

const tmp = mkdtempSync(join(tmpdir(), 'leakscope-pieces-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The encoding buffer's size (output.ts): pieces of up to a third of it, in UTF-16 units, are encoded into it. */
const SCRATCH = 256 << 10;
const FITS = Math.floor(SCRATCH / 3);

async function written(pieces: readonly string[], name: string): Promise<Buffer> {
  const out = join(tmp, name);
  await writeOutputPieces((sink) => pieces.forEach(sink), out);
  return readFileSync(out);
}

describe('writeOutputPieces to a file', () => {
  it('writes pieces at, under and over the reused buffer’s limit whole and in order', async () => {
    const pieces = [
      'a'.repeat(65_536), // ASCII, as the JSON report's pieces mostly are
      '€'.repeat(FITS), // 3 bytes each: fills the buffer to its last byte
      'ж'.repeat(FITS + 1), // one unit past the limit: a buffer of its own (2 bytes each)
      '😀'.repeat(FITS >> 1), // surrogate pairs: 4 bytes per 2 units
      '€'.repeat(FITS + 7), // over the limit, and over the buffer's size in bytes
      'x\uD800y', // a lone surrogate
      'the end\n',
    ];
    const got = await written(pieces, 'mixed.txt');
    expect(got.equals(Buffer.from(pieces.join(''), 'utf8'))).toBe(true);
  });

  it('a small piece after a large one is not followed by the large one’s bytes', async () => {
    const pieces = ['€'.repeat(FITS), 'ok'];
    const got = await written(pieces, 'short-after-long.txt');
    // A final newline is added when the last piece has none.
    expect(got.equals(Buffer.from(pieces.join('') + '\n', 'utf8'))).toBe(true);
  });
});
