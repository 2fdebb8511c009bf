/**
 * Hostile archives, made with the real `tar`, `gzip`, `xz` and `zip` (installed by .ci/run) around a
 * real dump (samples/apiproxy-leak). Each ends in what was read plus a warning, or in one line naming
 * the input and exit 2; never a stack trace, a hang, or a file written outside.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync, openSync, closeSync, ftruncateSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBundle } from '../../src/read/bundle.js';
import { readFileChunks } from '../../src/read/source.js';
import { BIN, ensureBuilt, run } from '../cli/run.js';
import { REPO } from '../helpers/paths.js';

const DUMP = join(REPO, 'samples', 'apiproxy-leak', 'goroutine.debug2.txt');
let tmp = '';

const sh = (cmd: string, args: string[], cwd = tmp) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
const bundle = (file: string, opts = {}) => readBundle(file, readFileChunks(file), opts, file);

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'leakscope-hostile-'));
  await ensureBuilt();
}, 300_000);
afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('hostile archives', () => {
  it('entries named ../../x are labels: read, never written anywhere', async () => {
    const deep = join(tmp, 'a', 'b');
    mkdirSync(deep, { recursive: true });
    copyFileSync(DUMP, join(tmp, 'x'));
    // -P keeps the ../../ in the stored name, as a hostile archive would have it.
    sh('tar', ['cPf', join(tmp, 'evil.tar'), '../../x'], deep);
    expect(sh('tar', ['tPf', join(tmp, 'evil.tar')]).toString()).toContain('../../x');
    rmSync(join(tmp, 'x'));
    const r = await bundle(join(tmp, 'evil.tar'));
    expect(r.dumps.map((d) => d.name)).toEqual([`${join(tmp, 'evil.tar')}!../../x`]);
    expect(r.dumps[0].dump.snapshots[0].total).toBeGreaterThan(0);
    expect(existsSync(join(tmp, 'x'))).toBe(false);
    expect(existsSync(join(tmp, '..', 'x'))).toBe(false);
  });

  it('a zip bomb stops at --max-decompressed with one line and exit 2', async () => {
    const zeros = join(tmp, 'zeros.txt');
    const fd = openSync(zeros, 'w');
    ftruncateSync(fd, 200 * 1024 * 1024);
    closeSync(fd);
    sh('zip', ['-q', '-9', 'bomb.zip', 'zeros.txt']);
    rmSync(zeros);
    expect(statSync(join(tmp, 'bomb.zip')).size).toBeLessThan(1024 * 1024);
    const r = await run(['inspect', join(tmp, 'bomb.zip'), '--max-decompressed', '16MiB']);
    expect(r.status).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/bomb\.zip: decompresses to more than 16777216 bytes .*--max-decompressed/);
  }, 60_000);

  it('a truncated tar yields what was read, with a warning', async () => {
    mkdirSync(join(tmp, 'many'));
    for (let i = 0; i < 4; i++) copyFileSync(DUMP, join(tmp, 'many', `api-${i}.txt`));
    sh('tar', ['cf', 'whole.tar', 'many']);
    const whole = readFileSync(join(tmp, 'whole.tar'));
    // Cut inside the third file's content.
    const size = statSync(DUMP).size;
    const cut = 512 + 3 * 512 + Math.ceil(size / 512) * 512 * 2 + 1024;
    writeFileSync(join(tmp, 'cut.tar'), whole.subarray(0, cut));
    const r = await bundle(join(tmp, 'cut.tar'));
    expect(r.dumps.length).toBeGreaterThanOrEqual(2);
    expect(r.dumps.length).toBeLessThan(4);
    expect(r.warnings.join('\n')).toMatch(/ends early or is corrupt/);
    const cli = await run(['inspect', join(tmp, 'cut.tar'), '-f', 'json']);
    expect(cli.status).toBe(0);
    expect(cli.stderr).toMatch(/warning: .*cut\.tar: the archive ends early/);
  });

  it('an archive of 10,000 empty entries is read quickly; --max-entries refuses it in one line', async () => {
    const dir = join(tmp, 'empty');
    mkdirSync(dir);
    for (let i = 0; i < 10_000; i++) writeFileSync(join(dir, `e${i}`), '');
    copyFileSync(DUMP, join(dir, 'real.txt'));
    sh('tar', ['czf', 'empty.tgz', 'empty']);
    const r = await bundle(join(tmp, 'empty.tgz'));
    expect(r.counts.entries).toBe(10_002);
    expect(r.dumps).toHaveLength(1);
    const refused = await run(['inspect', join(tmp, 'empty.tgz'), '--max-entries', '5000']);
    expect(refused.status).toBe(2);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/empty\.tgz: holds more than 5000 entries/);
  }, 60_000);

  it('archives nested past --max-depth are refused; within it they are read', async () => {
    copyFileSync(DUMP, join(tmp, 'd.txt'));
    sh('tar', ['cf', 'l1.tar', 'd.txt']);
    sh('tar', ['cf', 'l2.tar', 'l1.tar']);
    sh('xz', ['-k', 'l2.tar']);
    sh('tar', ['cf', 'l3.tar', 'l2.tar.xz']);
    const ok = await bundle(join(tmp, 'l3.tar'));
    expect(ok.dumps.map((d) => d.name)).toEqual([`${join(tmp, 'l3.tar')}!l2.tar.xz!l1.tar!d.txt`]);
    await expect(bundle(join(tmp, 'l3.tar'), { maxDepth: 1 })).rejects.toThrow(/nested deeper than 1 .*--max-depth/);
  });

  it('zip, tar.gz and tar.xz of the same files give the same dumps', async () => {
    mkdirSync(join(tmp, 'same'));
    copyFileSync(DUMP, join(tmp, 'same', 'one.txt'));
    writeFileSync(join(tmp, 'same', 'notes.log'), 'nothing to see\n');
    sh('zip', ['-q', '-r', 'same.zip', 'same']);
    sh('tar', ['czf', 'same.tgz', 'same']);
    sh('tar', ['cJf', 'same.tar.xz', 'same']);
    const totals = [];
    for (const f of ['same.zip', 'same.tgz', 'same.tar.xz']) {
      const r = await bundle(join(tmp, f));
      expect(r.counts.dumps, f).toBe(1);
      expect(r.counts.logsWithoutDump, f).toBe(1);
      totals.push(r.dumps[0].dump.snapshots[0].total);
    }
    expect(new Set(totals).size).toBe(1);
    // A zip on stdin is held in memory and read the same way.
    const stdin = spawnSync(process.execPath, [BIN, 'inspect', '-', '-f', 'json'], { input: readFileSync(join(tmp, 'same.zip')), encoding: 'utf8' });
    expect(stdin.status).toBe(0);
    expect(stdin.stderr).toMatch(/read 1 goroutine dump/);
    expect(JSON.parse(stdin.stdout).snapshots[0].total).toBe(totals[0]);
  });
});
