// The support-bundle fixture, made the way Rancher's profile collector makes one
// (rancherlabs/support-tools, collection/rancher/v2.x/profile-collector/continuous_profiling.sh):
// every loop fetches each pod's goroutine (debug=0), heap and CPU profiles from its net/http/pprof
// endpoint into `<pod>-<profile>-<YYYY-MM-DDTHH_MM_SS>`, writes `<pod>.log`, `<pod>-previous.log`,
// events and describe text, packs the loop with real `tar cfJ` into `rancher-profiles-<date>.tar.xz`
// and appends that to `profiles-<date>.tar` with `tar rf`. The pods are bundleprog processes
// (main.go here) on 127.0.0.1. The names carry the collector's clock: loops are 120 s apart on it,
// while the captures themselves are taken as fast as the test runs.
//
// Used by test/live/bundle.test.ts and bench/run.mjs. Needs go, tar and xz.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PROG_DIR = fileURLToPath(new URL('.', import.meta.url));

/** A Go environment that never reaches the network and never writes outside temp/user dirs (live tests and bench). */
export function goEnv(tmp) {
  const env = { ...process.env, GOFLAGS: '-mod=mod', GOPROXY: 'off', GOSUMDB: 'off', GOTOOLCHAIN: 'local', GOWORK: 'off' };
  delete env.GOTRACEBACK;
  delete env.GODEBUG;
  delete env.GOMAXPROCS;
  if (!env.GOCACHE) {
    const r = spawnSync('go', ['env', 'GOCACHE'], { encoding: 'utf8', env });
    const c = r.status === 0 ? r.stdout.trim() : '';
    env.GOCACHE = c && c !== 'off' ? c : join(tmp, 'gocache');
  }
  if (!env.HOME && !env.GOPATH) env.GOPATH = join(tmp, 'gopath');
  return env;
}

export function buildProg(tmp) {
  const bin = join(tmp, 'bundleprog');
  const r = spawnSync('go', ['build', '-o', bin, '.'], { cwd: PROG_DIR, env: goEnv(tmp), encoding: 'utf8', timeout: 150_000 });
  if (r.status !== 0) throw new Error(`go build failed (${r.status ?? r.signal}):\n${r.stderr}`);
  return bin;
}

/** Start one pod; resolves when it prints READY. */
export function startPod(bin, name, { leak = true, workers = 8, env = process.env } = {}) {
  const child = spawn(bin, [`-leak=${leak}`, '-workers', String(workers), '-lifetime', '300s'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d.toString(); });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${name} not READY in 20 s: ${stderr}`)), 20_000);
    child.stdout.on('data', (d) => {
      out += d.toString();
      const m = /^READY (\{.*\})$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        const { port } = JSON.parse(m[1]);
        resolve({ name, child, base: `http://127.0.0.1:${port}`, stderr: () => stderr });
      }
    });
    child.on('exit', (code, sig) => { clearTimeout(timer); reject(new Error(`${name} exited (${code ?? sig}) before READY: ${stderr}`)); });
  });
}

export async function stopPod(pod) {
  if (pod.child.exitCode !== null || pod.child.signalCode !== null) return;
  const exited = new Promise((r) => pod.child.once('exit', r));
  pod.child.stdin.end();
  pod.child.kill('SIGKILL');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
}

/**
 * SIGQUIT a pod and return what it wrote to stderr: the Go runtime's dump of every goroutine, the
 * way a killed container's log (`kubectl logs --previous`) ends.
 */
export async function crashPod(pod) {
  const exited = new Promise((r) => pod.child.once('exit', r));
  pod.child.kill('SIGQUIT');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
  return pod.stderr();
}

async function get(url) {
  const res = await fetch(url, { signal: AbortSignal.timeout(20_000) });
  if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

const stamp = (t) => new Date(t).toISOString().slice(0, 19).replace(/:/g, '_');
const minuteStamp = (t) => new Date(t).toISOString().slice(0, 16).replace('T', '_').replace(/:/g, '_');

/**
 * Run `loops` collector loops over `pods` (each started with startPod), growing the leaking ones by
 * `grow` between loops. `previousLogs` maps a pod name to the text of its crashed container's log.
 * Writes `<outDir>/profiles-<date>.tar` and returns its path.
 */
export async function collect({ pods, loops, outDir, grow = 50, start = Date.UTC(2026, 10, 30, 14, 5, 33), cpu = true, heap = true, previousLogs = {} }) {
  mkdirSync(outDir, { recursive: true });
  const main = join(outDir, `profiles-${minuteStamp(start)}.tar`);
  const work = mkdtempSync(join(outDir, '.loop-'));
  try {
    for (let loop = 0; loop < loops; loop++) {
      const t = start + loop * 120_000;
      const dir = join(work, `loop-${loop}`);
      mkdirSync(dir);
      writeFileSync(join(dir, 'timestamps.txt'), `Start: ${new Date(t).toISOString()}\n`);
      writeFileSync(join(dir, 'top-pods.txt'), pods.map((p) => `cattle-system   ${p.name}   12m   180Mi`).join('\n') + '\n');
      await Promise.all(pods.map((p) => get(`${p.base}/grow?n=${grow}`)));
      await Promise.all(pods.map(async (p) => {
        writeFileSync(join(dir, `${p.name}-goroutine-${stamp(t)}`), await get(`${p.base}/debug/pprof/goroutine`));
        if (heap) writeFileSync(join(dir, `${p.name}-heap-${stamp(t + 1000)}`), await get(`${p.base}/debug/pprof/heap`));
        if (cpu && loop === 0) writeFileSync(join(dir, `${p.name}-profile-${stamp(t + 2000)}`), await get(`${p.base}/debug/pprof/profile?seconds=1`));
        writeFileSync(join(dir, `${p.name}.log`), `2026/11/30 14:05:33 [INFO] Starting ${p.name}\n2026/11/30 14:05:34 [DEBUG] handled /grow\n`);
        writeFileSync(join(dir, `${p.name}-previous.log`), previousLogs[p.name] ?? '');
        writeFileSync(join(dir, `${p.name}-events.txt`), `LAST SEEN   TYPE     REASON    OBJECT         MESSAGE\n2m          Normal   Pulled    pod/${p.name}   Container image already present\n`);
        writeFileSync(join(dir, `${p.name}-describe.txt`), `Name:         ${p.name}\nNamespace:    cattle-system\nStatus:       Running\n`);
      }));
      const xzName = `rancher-profiles-${minuteStamp(t)}.tar.xz`;
      execFileSync('tar', ['cfJ', join(work, xzName), '--directory', dir, '.']);
      // The collector appends /tmp/<file>: tar stores it without the leading slash, in its folder.
      execFileSync('tar', ['rf', main, '--directory', work, xzName]);
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return main;
}
