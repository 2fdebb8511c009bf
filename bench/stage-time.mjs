#!/usr/bin/env node
// Time of each stage on one dump, in this process, on one thread: read (the reader and the builder
// that groups its goroutines), analyze, the wait-for graph (built for the rules on debug=2), rules,
// and the default text report. CPU time too (the machine is shared: a stage's wall time moves with
// other tenants). Prints JSON, with the CPU time per read-stage group in µs (`usPerGroup`); `--again`
// adds a second pass over the same file in the same process (`again`: warm code, grown heap).
// On Linux also the CPU time of this thread alone over the stages (`mainCpuMs`, `usPerGroupMain`, from
// /proc in 10 ms ticks): the rest of `cpuMs` is V8's own threads, compiling hot functions and
// collecting garbage beside this one. `gcMs`: the collector's pauses of this thread over the stages
// (perf_hooks 'gc' entries); under `node --single-threaded-gc` that is nearly all its work (its
// incremental marking steps, ~20 ms on 20,000 distinct stacks, are not in the entries), and the rest
// of `cpuMs` past `mainCpuMs` is the optimizing compiler's thread and a few ms of file reads and
// WebAssembly compiling (bench/run.mjs splits the CPU so).
//
//   node bench/stage-time.mjs FILE [--dist DIR] [--again]
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PerformanceObserver } from 'node:perf_hooks';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const at = args.indexOf('--dist');
const dist = at >= 0 ? resolve(args[at + 1]) : join(repo, 'dist');
const file = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--dist');
const again = args.includes('--again');
const { analyze, readDump, runRules, render } = await import(pathToFileURL(join(dist, 'index.js')).href);

// Warm-up on a small sample: what a CLI run loads once (rule packs) is not charged to the dump.
const small = await readDump(join(repo, 'samples', 'lock-pileup', 'goroutine.debug1.txt'));
runRules(analyze(small.snapshots[0]));

/** CPU ms of this process's main thread so far (utime + stime of /proc/self/task/<pid>), or undefined off Linux. */
function mainThreadCpuMs() {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // clock ticks of 10 ms (USER_HZ 100 on Linux)
  } catch {
    return undefined;
  }
}

/** Collector pauses of this thread (perf_hooks 'gc' entries: start and duration, ms), as they are reported. */
const gcPauses = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcPauses.push([e.startTime, e.duration]);
}).observe({ entryTypes: ['gc'] });

/** ms of collector pauses that began in [from, to) (entries arrive after their collection: waits a turn first). */
async function gcMsBetween(from, to) {
  await new Promise((r) => setTimeout(r, 20));
  return gcPauses.reduce((s, [at, ms]) => (at >= from && at < to ? s + ms : s), 0);
}

/** One pass of the stages over `file`: CPU and wall time of each, and the snapshot read. */
async function pass() {
  const main0 = mainThreadCpuMs();
  const t0 = performance.now();
  const stages = {};
  async function stage(name, fn) {
    const t = performance.now();
    const c = process.cpuUsage();
    const r = await fn();
    const u = process.cpuUsage(c);
    stages[name] = { ms: performance.now() - t, cpuMs: (u.user + u.system) / 1000 };
    return r;
  }
  const dump = await stage('read', () => readDump(file, { maxWorkers: 1 }));
  const snap = dump.snapshots[0];
  const a = await stage('analyze', () => analyze(snap));
  await stage('waits', () => a.waits);
  const findings = await stage('rules', () => runRules(a, { races: dump.races }));
  await stage('report', () => render('table', { command: 'inspect', analyses: [a], findings }));
  const cpuMs = Object.values(stages).reduce((s, x) => s + x.cpuMs, 0);
  const main1 = mainThreadCpuMs();
  const gcMs = await gcMsBetween(t0, performance.now());
  const mainCpuMs = main0 === undefined || main1 === undefined ? undefined : main1 - main0;
  const usPerGroupMain = mainCpuMs === undefined ? undefined : (mainCpuMs * 1000) / snap.groups.length;
  return { snap, findings, stages, cpuMs, usPerGroup: (cpuMs * 1000) / snap.groups.length, mainCpuMs, usPerGroupMain, gcMs };
}

const first = await pass();
const out = {
  file, goroutines: first.snap.total, groups: first.snap.groups.length, findings: first.findings.length, stages: first.stages, cpuMs: first.cpuMs,
  usPerGroup: first.usPerGroup, mainCpuMs: first.mainCpuMs, usPerGroupMain: first.usPerGroupMain, gcMs: first.gcMs,
};
if (again) {
  // The same dump once more in this process, as the next snapshot of a series is read (trend, watch):
  // the code is compiled and the heap grown; what is left is the work per stack.
  const second = await pass();
  out.again = { stages: second.stages, cpuMs: second.cpuMs, usPerGroup: second.usPerGroup, mainCpuMs: second.mainCpuMs, usPerGroupMain: second.usPerGroupMain, gcMs: second.gcMs };
}
console.log(JSON.stringify(out));
