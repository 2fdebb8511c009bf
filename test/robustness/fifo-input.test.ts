/**
 * A named pipe (FIFO) as the input (`mkfifo p; curl …/goroutine?debug=2 > p & leakscope inspect p`),
 * through the built CLI (`npm run build` first; skipped with a message when dist/ is missing, failing
 * under CI). The FIFO is opened once: a look at its first bytes (is it an archive?) that opened and
 * closed it took the writer's data away, and the reading that followed waited for a writer forever.
 * The writer opens first (it waits for a reader), or a second after the reader: both orders are read.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from '../helpers/paths.js';

const MAIN = join(REPO, 'dist', 'cli', 'main.js');
const HAVE = existsSync(MAIN);
if (!HAVE && process.env.CI) throw new Error(`${MAIN} missing under CI: run npm run build before the tests`);
if (!HAVE) console.log(`[fifo-input] ${MAIN} not built: skipping (npm run build)`);
const MKFIFO = process.platform !== 'win32' && spawnSync('mkfifo', ['--help'], { stdio: 'ignore' }).error === undefined;

const tmp = mkdtempSync(join(tmpdir(), 'leakscope-fifo-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const sample = join(REPO, 'samples', 'apiproxy-leak', 'goroutine.debug2.txt');

describe.runIf(HAVE && MKFIFO)('a named pipe as the input', () => {
  it.each([
    ['the writer opens first', 0],
    ['the writer opens a second after the reader', 1],
  ])('%s: read whole, once', async (_name, delay) => {
    const fifo = join(tmp, `dump-${delay}.fifo`);
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    // The writer: a shell that waits, then opens the FIFO and writes the dump (its open waits for the reader).
    const writer = spawn('sh', ['-c', `sleep ${delay}; cat "$0" > "$1"`, sample, fifo], { stdio: 'ignore' });
    const wrote = new Promise<number | null>((done) => writer.on('close', done));
    const cli = spawn(process.execPath, [MAIN, 'inspect', fifo, '--format', 'json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    cli.stdout.on('data', (b: Buffer) => (out += b));
    cli.stderr.on('data', (b: Buffer) => (err += b));
    const timer = setTimeout(() => cli.kill(), 20_000);
    const code = await new Promise<number | null>((done) => cli.on('close', done));
    clearTimeout(timer);
    writer.kill();
    expect(code, `${err} (killed after 20 s if null)`).toBe(0);
    expect(await wrote).toBe(0);
    const report = JSON.parse(out) as { snapshots: { total: number }[]; findings: { ruleId: string }[] };
    expect(report.snapshots[0].total).toBeGreaterThan(300);
    expect(report.findings.map((f) => f.ruleId)).toContain('core/blocked-send');
  }, 30_000);
});
