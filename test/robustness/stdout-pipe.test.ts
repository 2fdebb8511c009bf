/**
 * A report written to stdout when stdout is a pipe (`leakscope … -f json | jq`): the writes wait for
 * the reader, so the report is not queued whole in memory, and it arrives whole and in order; a reader
 * that stops early (`| head`) ends the run quietly. Through the built output module in a child process
 * (`npm run build` first; skipped with a message when dist/ is missing, failing under CI).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/paths.js';

const OUTPUT = join(REPO, 'dist', 'cli', 'output.js');
const HAVE = existsSync(OUTPUT);
if (!HAVE && process.env.CI) throw new Error(`${OUTPUT} missing under CI: run npm run build before the tests`);
if (!HAVE) console.log(`[stdout-pipe] ${OUTPUT} not built: skipping (npm run build)`);

const PIECES = 3200;
const PIECE = 64 << 10;

/**
 * A child that writes PIECES pieces of PIECE bytes (each ends with its number) to its stdout as a
 * report is written, then says its peak RSS on stderr. A reader gone is ignored as the CLI ignores it
 * (`readerGone`: this test's reader is a socket pair, where a write after it closed is ECONNRESET).
 */
const CHILD = `
import { readerGone, writeOutputPieces } from ${JSON.stringify(pathToFileURL(OUTPUT).href)};
process.stdout.on('error', (e) => { if (!readerGone(e)) throw e; });
await writeOutputPieces((sink) => {
  for (let i = 0; i < ${PIECES}; i++) { const n = String(i).padStart(8, '0') + '\\n'; sink('x'.repeat(${PIECE} - n.length) + n); }
}, undefined);
process.stderr.write(JSON.stringify({ maxRssMB: process.resourceUsage().maxRSS / 1024 }));
`;

interface Run {
  bytes: number;
  lastLine: string;
  stderr: string;
  code: number | null;
}

/** Runs the child with stdout a pipe that this process reads; `stopAfter`: bytes after which it closes its end. */
function run(stopAfter = Infinity): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD], { stdio: ['ignore', 'pipe', 'pipe'] });
    let bytes = 0;
    let tail = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => {
      bytes += b.length;
      tail = (tail + b.toString('latin1')).slice(-64);
      if (bytes >= stopAfter) child.stdout.destroy();
    });
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ bytes, lastLine: tail.trimEnd().split('\n').pop() ?? '', stderr, code }));
  });
}

describe.skipIf(!HAVE)('a report written to a pipe', () => {
  it('is written whole and in order, without being held in memory', async () => {
    const r = await run();
    expect(r.code).toBe(0);
    expect(r.bytes).toBe(PIECES * PIECE);
    expect(r.lastLine).toMatch(new RegExp(`^x+${String(PIECES - 1).padStart(8, '0')}$`));
    // 200 MiB went through the pipe; queued, they were all in memory at once (~450 MB peak).
    const { maxRssMB } = JSON.parse(r.stderr) as { maxRssMB: number };
    expect(maxRssMB).toBeLessThan(150);
  }, 60_000);

  it('ends quietly when the reader stops early', async () => {
    const r = await run(1 << 20);
    expect(r.stderr).not.toMatch(/Error|\n\s+at /);
    expect(r.code).toBe(0);
  }, 60_000);
});
