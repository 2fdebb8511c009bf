/**
 * How the CLI starts: dist/cli/main.js runs leakscope.cjs, the one-file bundle of the command line,
 * from V8's code cache of it that the build made (scripts/bundle-cli.mjs, cli-code-cache.mjs), so a
 * start does not parse and compile the bundle again. The cache must be one this Node accepts, or every
 * start pays that again; a cache it does not accept (another Node, a damaged file) or none must change
 * nothing but the time, and a run never writes one.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../helpers/paths.js';
import { BIN, ensureBuilt, run } from './run.js';

const DIR = dirname(BIN);
const SAMPLE = join(REPO, 'samples', 'lock-pileup', 'goroutine.debug1.txt');

/** `node` with no options of the test runner's: V8 accepts a cache only under the flags it was made with. */
function plainEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.NODE_OPTIONS;
  return env;
}

/** Whether a fresh `node` running the loader in `dir` took the bundle from the code cache. */
function cachedIn(dir: string): string {
  const load = pathToFileURL(join(dir, 'load.js')).href;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', `import { loadCli } from ${JSON.stringify(load)}; console.log(loadCli().cached);`], { env: plainEnv(), encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return r.stdout.trim();
}

describe('CLI start-up', () => {
  let copy = '';
  beforeAll(async () => {
    await ensureBuilt();
    // A copy of what the bundle finds beside itself (dist/, rules/, package.json; packages by link).
    copy = mkdtempSync(join(tmpdir(), 'leakscope-start-'));
    for (const part of ['dist', 'rules', 'package.json']) cpSync(join(REPO, part), join(copy, part), { recursive: true });
    symlinkSync(join(REPO, 'node_modules'), join(copy, 'node_modules'));
  }, 240_000);
  afterAll(() => {
    if (copy) rmSync(copy, { recursive: true, force: true });
  });

  it('runs the bundle from the code cache the build made, which this Node accepts', () => {
    expect(readFileSync(join(DIR, 'leakscope.cjs.cache')).length).toBeGreaterThan(100_000);
    expect(cachedIn(DIR)).toBe('true');
  });

  it('gives the same output from a damaged cache, or none, and writes none', async () => {
    const expected = await run(['inspect', SAMPLE, '--format', 'json']);
    expect(expected.status, expected.stderr).toBe(0);
    expect(expected.stdout).toMatch(/core\/lock-pileup/);
    const bin = join(copy, 'dist', 'cli', 'main.js');
    const cache = join(copy, 'dist', 'cli', 'leakscope.cjs.cache');
    const inspect = () => spawnSync(process.execPath, [bin, 'inspect', SAMPLE, '--format', 'json'], { env: plainEnv(), encoding: 'utf8' });

    expect(cachedIn(join(copy, 'dist', 'cli'))).toBe('true');
    const good = readFileSync(cache);
    writeFileSync(cache, good.subarray(0, good.length >> 1));
    expect(cachedIn(join(copy, 'dist', 'cli'))).toBe('false');
    // Bytes changed past the header: V8 checks the checksum only under --verify-snapshot-checksum,
    // which load.js sets; without it this crashed the process.
    const damaged = Buffer.from(good);
    damaged.fill(0x5a, 64, 4096);
    writeFileSync(cache, damaged);
    expect(cachedIn(join(copy, 'dist', 'cli'))).toBe('false');
    const fromDamaged = inspect();
    expect([fromDamaged.status, fromDamaged.stderr, fromDamaged.stdout]).toEqual([0, '', expected.stdout]);
    expect(readFileSync(cache).equals(damaged)).toBe(true);

    rmSync(cache);
    expect(cachedIn(join(copy, 'dist', 'cli'))).toBe('false');
    const fromText = inspect();
    expect([fromText.status, fromText.stderr, fromText.stdout]).toEqual([0, '', expected.stdout]);
    expect(() => readFileSync(cache)).toThrow();
  });
});
