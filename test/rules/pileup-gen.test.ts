/**
 * A lock pile-up: N queries in WaitGroup.Wait, each with K lookups queued for one RWMutex whose write
 * lock a compaction holds while it waits elsewhere. The benchmark runs it at 112,667 goroutines
 * (bench/run.mjs, row "pile-up 777 × 144"); here the same generator (bench/gen -pileup) writes a small
 * instance from a live Go process at test time, when Go is installed: the first finding is the pile-up
 * and counts every queued lookup and every query behind them, in debug=0, 1 and 2.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../helpers/paths.js';
import { findingsOf, summary } from './e2e.js';

const HAVE_GO = spawnSync('go', ['version'], { encoding: 'utf8' }).status === 0;
const [QUERIES, CHILDREN] = [60, 25];

describe.runIf(HAVE_GO)('bench/gen -pileup: the lock pile-up behind WaitGroup waiters', () => {
  let tmp = '';
  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), 'leakscope-pileup-'));
    const env: NodeJS.ProcessEnv = { ...process.env, GOFLAGS: '-mod=mod', GOPROXY: 'off', GOSUMDB: 'off', GOTOOLCHAIN: 'local', GOWORK: 'off' };
    delete env.GOTRACEBACK;
    delete env.GODEBUG;
    const bin = join(tmp, 'gen');
    const build = spawnSync('go', ['build', '-o', bin, '.'], { cwd: join(REPO, 'bench', 'gen'), env, encoding: 'utf8', timeout: 150_000 });
    if (build.status !== 0) throw new Error(`go build bench/gen failed (${build.status ?? build.signal}):\n${build.stderr}`);
    const run = spawnSync(bin, ['-pileup', String(QUERIES), '-children', String(CHILDREN), '-prefix', 'p', '-out', tmp], { env, encoding: 'utf8', timeout: 60_000 });
    if (run.status !== 0) throw new Error(`bench/gen -pileup failed (${run.status ?? run.signal}):\n${run.stderr}`);
  }, 180_000);
  afterAll(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  for (const file of ['p.debug2.txt', 'p.debug1.txt', 'p.debug0.pb.gz']) {
    it(`${file}: the first finding is the pile-up, with every lookup and every query`, async () => {
      const [fs] = await findingsOf(join(tmp, file));
      const f = fs[0];
      expect(f.ruleId, summary(fs)).toMatch(/^core\/(lock-pileup|lock-held-blocked)$/);
      expect(f.location?.func, summary(fs)).toMatch(/peers\.\(\*Table\)\.(Lookup|Compact)$/);
      const queued = f.evidence.groups.filter((g) => g.site?.func.endsWith('peers.(*Table).Lookup'));
      expect(queued.reduce((n, g) => n + g.count, 0)).toBe(QUERIES * CHILDREN);
      const waiters = f.evidence.groups.filter((g) => g.role === 'consequence' && g.site?.func.endsWith('peers.(*Query).Run'));
      expect(waiters.reduce((n, g) => n + g.count, 0)).toBe(QUERIES);
      expect(f.evidence.goroutines).toBeGreaterThanOrEqual(QUERIES * CHILDREN + QUERIES);
      // Nobody else counts these goroutines again.
      const ids = new Set(f.evidence.groups.map((g) => g.id));
      expect(fs.slice(1).filter((x) => x.evidence.groups.some((g) => ids.has(g.id))), summary(fs)).toEqual([]);
    });
  }
});
