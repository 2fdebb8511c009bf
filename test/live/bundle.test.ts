/**
 * Support bundles on real data: a bundle made the way Rancher's profile collector makes one
 * (test/live/bundleprog/collect.mjs: real Go processes serving net/http/pprof on 127.0.0.1, real
 * `tar cfJ` per loop appended with `tar rf`): three `rancher` pods that leak, one healthy
 * `cattle-cluster-agent` pod, and a crashed container's log with its SIGQUIT dump. The CLI must name
 * the processes, find the one leak in 3 of 3 rancher pods, gate on it, write several reports in one
 * run, and read the unpacked folder the same way.
 *
 * Skipped where `go` is missing, except under CI (.ci/run installs golang-go, tar, xz-utils, zip).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module shared with bench/run.mjs
import { buildProg, collect, crashPod, goEnv, startPod, stopPod } from './bundleprog/collect.mjs';
import { ensureBuilt, run } from '../cli/run.js';

const CI = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';
const HAVE_GO = spawnSync('go', ['version'], { encoding: 'utf8' }).status === 0;

const RANCHER = ['rancher-7d9f8b6c4-x2x9z', 'rancher-7d9f8b6c4-k8m2p', 'rancher-7d9f8b6c4-q4w7n'];
const AGENT = 'cattle-cluster-agent-5b8d9c7f6-abcde';
/**
 * Collector loops. Each pod's trend is tested with Mann-Kendall and Holm's correction over every
 * group that varies; under load the pods' HTTP connection goroutines vary from loop to loop too, and
 * with 5 points the best one-sided p (1/120) multiplied by six or more varying groups no longer
 * passes α = 0.05. A steadily leaking pod was judged "no-leak" in loaded full runs, which this explains
 * (not proven: it never failed alone). 8 points give 1/40,320: the leak stays significant.
 */
const LOOPS = 8;

interface FleetJson {
  schemaVersion: number;
  fleet: {
    processes: { name: string; family: string; snapshots: number; first: number; last: number; verdict: string; perHour: number | null }[];
    findings: { ruleId: string; of: number; family: string; summary: string; processes: { name: string }[] }[];
    entries?: Record<string, number>;
  };
  gate?: { passed: boolean };
}

describe.runIf(HAVE_GO || CI)('support bundles from live Go processes', () => {
  let tmp = '';
  let tarPath = '';
  beforeAll(async () => {
    expect(HAVE_GO, 'go is needed under CI').toBe(true);
    tmp = mkdtempSync(join(tmpdir(), 'leakscope-bundle-'));
    const bin = buildProg(tmp);
    const env = goEnv(tmp);
    const pods = await Promise.all([...RANCHER.map((n) => startPod(bin, n, { env })), startPod(bin, AGENT, { leak: false, env })]);
    // The third rancher pod's previous container died with a SIGQUIT dump in its log.
    const old = await startPod(bin, 'old', { env });
    await fetch(`${old.base}/grow?n=30`);
    const crash = await crashPod(old);
    try {
      tarPath = await collect({ pods, loops: LOOPS, outDir: join(tmp, 'out'), grow: 40, previousLogs: { [RANCHER[2]]: `2026/11/30 13:00:00 [INFO] Starting rancher\n${crash}` } });
    } finally {
      for (const p of pods) await stopPod(p);
    }
    await ensureBuilt();
  }, 300_000);
  afterAll(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('reads only the goroutine dumps, says what it skipped, and names the processes', async () => {
    const r = await run(['trend', tarPath, '-f', 'json']);
    expect(r.status, r.stderr).toBe(0);
    // 4 pods × LOOPS goroutine profiles + LOOPS copies of the crashed container's log.
    expect(r.stderr).toContain(`read ${4 * LOOPS + LOOPS} goroutine dumps`);
    expect(r.stderr).toMatch(new RegExp(`skipped ${4 * LOOPS + 4} other profiles, ${4 * LOOPS} logs without a dump`));
    const j = JSON.parse(r.stdout) as FleetJson;
    expect(j.schemaVersion).toBe(2);
    const byName = new Map(j.fleet.processes.map((p) => [p.name, p]));
    expect([...byName.keys()].sort()).toEqual([...RANCHER, AGENT, `${RANCHER[2]} (previous)`].sort());
    // On failure, show the whole fleet: a wrong verdict is only understood with every process's series.
    const fleet = JSON.stringify(j.fleet.processes, null, 1);
    for (const n of RANCHER) {
      const p = byName.get(n)!;
      expect(p.snapshots, fleet).toBe(LOOPS);
      expect(p.verdict, fleet).toBe('growing');
      expect(p.last - p.first).toBeGreaterThanOrEqual(40 * (LOOPS - 1));
      // 40 goroutines per 120 s loop on the collector's clock: 1,200/h.
      expect(p.perHour).toBeCloseTo(1200, -1);
    }
    expect(byName.get(AGENT)!.verdict).toBe('stable');
    expect(j.fleet.processes[0].verdict).toBe('growing');
  });

  it('one finding per leak across processes, and the gate fails with every report written in one run', async () => {
    const out = join(tmp, 'reports');
    mkdirSync(out);
    const r = await run([
      'check', tarPath, '-f', 'table', '-f', `sarif=${join(out, 'leakscope.sarif')}`, '-f', `junit=${join(out, 'junit.xml')}`,
      '-f', `markdown=${join(out, 'summary.md')}`, '-f', `json=${join(out, 'report.json')}`, '-f', `html=${join(out, 'report.html')}`,
    ]);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout, r.stdout).toMatch(/^Fleet: 5 processes: 3 leaking, \d+ suspect, \d+ healthy/m);
    expect(readdirSync(out).sort()).toEqual(['junit.xml', 'leakscope.sarif', 'report.html', 'report.json', 'summary.md']);
    const j = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as FleetJson;
    expect(j.gate?.passed).toBe(false);
    const leak = j.fleet.findings.filter((f) => f.ruleId === 'trend/steady-growth');
    expect(leak).toHaveLength(1);
    expect(leak[0].summary).toBe('the same leak in 3 of 3 rancher processes, growing ~1,200/h in each');
    expect(leak[0].processes.map((p) => p.name).sort()).toEqual([...RANCHER].sort());
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toMatch(/### Fleet: 5 processes: 3 leaking, \d+ suspect, \d+ healthy/);
    expect(readFileSync(join(out, 'report.html'), 'utf8').match(/class="process"/g)).toHaveLength(5);
    const sarif = JSON.parse(readFileSync(join(out, 'leakscope.sarif'), 'utf8')) as { runs: { results: { ruleId: string; message: { text: string } }[] }[] };
    expect(sarif.runs[0].results.filter((x) => x.ruleId === 'trend/steady-growth')).toHaveLength(1);
    const junit = readFileSync(join(out, 'junit.xml'), 'utf8');
    expect(junit).toContain('(3 of 3 processes)');
    // One case per process: the three rancher pods fail (they leak), the agent passes.
    for (const n of RANCHER) expect(junit).toMatch(new RegExp(`<testcase classname="leakscope.processes" name="${n}">\\s*<failure message="${n} leaking: trend growing`));
    expect(junit).toMatch(new RegExp(`<testcase classname="leakscope.processes" name="${AGENT}">\\s*<system-out>`));
  });

  it('the unpacked bundle (a folder, then every tar.xz unpacked too) gives the same fleet', async () => {
    const want = JSON.parse((await run(['trend', tarPath, '-f', 'json'])).stdout) as FleetJson;
    const once = join(tmp, 'unpacked');
    mkdirSync(once);
    execFileSync('tar', ['xf', tarPath, '-C', once]);
    const fully = join(tmp, 'fully');
    mkdirSync(fully);
    for (const f of readdirSync(once)) {
      const dir = join(fully, f.replace(/\.tar\.xz$/, ''));
      mkdirSync(dir);
      execFileSync('tar', ['xJf', join(once, f), '-C', dir]);
    }
    const shape = (j: FleetJson) => j.fleet.processes.map((p) => [p.name, p.snapshots, p.first, p.last, p.verdict]);
    for (const dir of [once, fully]) {
      const r = await run(['trend', dir, '-f', 'json']);
      expect(r.status, r.stderr).toBe(0);
      const got = JSON.parse(r.stdout) as FleetJson;
      expect(shape(got), dir).toEqual(shape(want));
      expect(got.fleet.findings.map((f) => f.summary)).toEqual(want.fleet.findings.map((f) => f.summary));
    }
  });
});
