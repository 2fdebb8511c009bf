/**
 * `--output` through the built CLI (`npm run build` first; skipped with a message when dist/ is
 * missing, failing under CI): refuses to overwrite an input, a failed run leaves no file (partial or
 * temporary), a good run writes the report whole; input errors are one line with exit code 2.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from '../helpers/paths.js';

const MAIN = join(REPO, 'dist', 'cli', 'main.js');
const HAVE = existsSync(MAIN);
if (!HAVE && process.env.CI) throw new Error(`${MAIN} missing under CI: run npm run build before the tests`);
if (!HAVE) console.log(`[cli-output] ${MAIN} not built: skipping (npm run build)`);

const tmp = mkdtempSync(join(tmpdir(), 'leakscope-out-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const run = (...args: string[]) => spawnSync(process.execPath, [MAIN, ...args], { cwd: tmp, encoding: 'utf8', timeout: 60_000 });

describe.runIf(HAVE)('leakscope --output', () => {
  const input = join(tmp, 'in.txt');
  copyFileSync(join(REPO, 'samples', 'waitgroup-leak', 'goroutine.debug2.txt'), input);
  const original = readFileSync(input);

  it('refuses to overwrite an input, leaving it untouched', () => {
    const r = run('inspect', input, '--output', input);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/refusing to overwrite the input/);
    expect(readFileSync(input).equals(original)).toBe(true);
  });

  it('a run that fails on its input leaves no file behind (no partial, no temporary)', () => {
    const bad = join(tmp, 'bad.txt');
    writeFileSync(bad, '<html><body>login</body></html>\n');
    const before = readdirSync(tmp).sort();
    const r = run('inspect', bad, '--output', join(tmp, 'report.txt'));
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(bad);
    expect(readdirSync(tmp).sort()).toEqual([...before]);
  });

  it('an existing output survives a failed run unchanged', () => {
    const out = join(tmp, 'keep.txt');
    writeFileSync(out, 'previous report\n');
    const r = run('inspect', join(tmp, 'missing.txt'), '--output', out);
    expect(r.status).toBe(2);
    expect(readFileSync(out, 'utf8')).toBe('previous report\n');
  });

  it('a good run writes the whole report', () => {
    const out = join(tmp, 'ok.txt');
    const r = run('inspect', input, '--output', out);
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8').length).toBeGreaterThan(0);
    expect(readdirSync(tmp).filter((f) => f.includes('.tmp'))).toEqual([]);
  });

  it('writes through a symbolic link to the file it names, leaving the link a link', () => {
    const dir = join(tmp, 'reports');
    mkdirSync(dir, { recursive: true });
    const real = join(dir, 'report-1.txt');
    writeFileSync(real, 'previous report\n');
    const link = join(tmp, 'latest.txt');
    symlinkSync(real, link);
    const r = run('inspect', input, '--output', link);
    expect(r.status, r.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toMatch(/goroutine/i);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);
  });

  it.each([
    ['a URL with a refused port', 'http://127.0.0.1:9/x'],
    ['random bytes', 'random.bin'],
    ['an empty file', 'empty.txt'],
  ])('%s: one line, exit 2', (_n, arg) => {
    writeFileSync(join(tmp, 'random.bin'), Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)));
    writeFileSync(join(tmp, 'empty.txt'), '');
    const r = run('inspect', arg);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

/** stdout on a full disk: /dev/full fails every write with ENOSPC (Linux). */
const FULL = '/dev/full';

describe.runIf(HAVE && existsSync(FULL))('stdout that cannot be written', () => {
  const toFull = (...args: string[]) => {
    const fd = openSync(FULL, 'w');
    try {
      return spawnSync(process.execPath, [MAIN, ...args], { cwd: tmp, encoding: 'utf8', timeout: 60_000, stdio: ['ignore', fd, 'pipe'] });
    } finally {
      closeSync(fd);
    }
  };
  const sample = join(REPO, 'samples', 'waitgroup-leak', 'goroutine.debug2.txt');

  it.each(['table', 'json', 'html'])('a %s report: one line naming stdout and the error, exit 2', (format) => {
    const r = toFull('inspect', sample, '--format', format);
    expect(r.stderr).toBe('leakscope: stdout: cannot write the report (ENOSPC)\n');
    expect(r.status).toBe(2);
  });

  it('stderr on a full disk: its warnings are lost, the report and the exit code are the run’s', () => {
    // A dump cut short: the run warns on stderr (the input ends inside the dump) and exits 0.
    const cut = join(tmp, 'cut.txt');
    writeFileSync(cut, readFileSync(sample).subarray(0, 4000));
    const out = join(tmp, 'cut-report.txt');
    const fd = openSync(FULL, 'w');
    let r;
    try {
      r = spawnSync(process.execPath, [MAIN, 'inspect', cut, '--output', out], { cwd: tmp, encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', fd] });
    } finally {
      closeSync(fd);
    }
    expect(r.status).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/goroutine/i);
  });

  it('the help: one line, exit 2', () => {
    const r = toFull('--help');
    expect(r.stderr).toBe('leakscope: stdout: cannot write the output (ENOSPC)\n');
    expect(r.status).toBe(2);
  });
});
