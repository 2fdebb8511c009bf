/**
 * Go's 64 MiB cap on net/http/pprof's debug=2 output: the bench generator (bench/gen) writes, with
 * -cap64, the dump through pprof.Lookup("goroutine").WriteTo(w, 2), which Go cuts at exactly 64 MiB.
 * 25,000 goroutines print ~70 MB of debug=2, enough to hit the cap. The reader must say the runtime
 * truncated the dump and that its counts are lower bounds. Needs `go` (Go 1.19+); skipped without
 * it, except under CI=true where a missing `go` fails.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readDump } from '../../src/read/index.js';

const repo = join(import.meta.dirname, '..', '..');
const hasGo = spawnSync('go', ['version'], { encoding: 'utf8' }).status === 0;
const ci = process.env.CI === 'true' || process.env.CI === '1';
const dirs: string[] = [];

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("Go's 64 MiB debug=2 cap", () => {
  it.runIf(!hasGo && ci)('go is installed (required under CI)', () => {
    expect.fail('`go` is not on PATH: the 64 MiB cap test cannot run');
  });

  it.runIf(hasGo)(
    'a dump net/http/pprof cut at exactly 64 MiB is reported as truncated by the runtime, counts as lower bounds',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'leakscope-cap64-'));
      dirs.push(dir);
      const bin = join(dir, 'gen');
      execFileSync('go', ['build', '-o', bin, '.'], {
        cwd: join(repo, 'bench', 'gen'),
        stdio: 'pipe',
        env: { ...process.env, GOFLAGS: '-mod=mod', GOPROXY: 'off', GOTOOLCHAIN: 'local' },
      });
      const n = 25_000;
      execFileSync(bin, ['-n', String(n), '-out', dir, '-cap64=true', '-io', '50'], { stdio: 'pipe' });
      const full = join(dir, `g${n}.debug2.txt`);
      const capped = join(dir, `g${n}.debug2-cap64.txt`);
      expect(statSync(full).size).toBeGreaterThan(64 << 20);
      expect(statSync(capped).size).toBe(64 << 20);

      const whole = await readDump(full);
      expect(whole.snapshots).toHaveLength(1);
      expect(whole.snapshots[0].truncated).toBe(false);
      expect(whole.snapshots[0].total).toBeGreaterThanOrEqual(n);

      const d = await readDump(capped);
      expect(d.snapshots).toHaveLength(1);
      const s = d.snapshots[0];
      expect(s.truncated).toBe(true);
      expect(s.total).toBeGreaterThan(n / 2);
      expect(s.total).toBeLessThan(whole.snapshots[0].total);
      const w = s.warnings.find((x) => x.code === 'truncated');
      expect(w?.message).toMatch(/exactly 64 MiB, where net\/http\/pprof stops writing debug=2 output: Go truncated this dump/);
      expect(w?.message).toMatch(/counts are lower bounds/);
    },
    600_000,
  );
});
