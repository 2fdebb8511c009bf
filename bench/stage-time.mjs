#!/usr/bin/env node
// Time of each stage on one dump, in this process, on one thread: read (the reader and the builder
// that groups its goroutines), analyze, the wait-for graph (built for the rules on debug=2), rules,
// and the default text report. CPU time too (the machine is shared: a stage's wall time moves with
// other tenants). Prints JSON; `--per-group` adds each stage's CPU time per read-stage group in µs.
//
//   node bench/stage-time.mjs FILE [--dist DIR]
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const at = args.indexOf('--dist');
const dist = at >= 0 ? resolve(args[at + 1]) : join(repo, 'dist');
const file = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--dist');
const { analyze, readDump, runRules, render } = await import(pathToFileURL(join(dist, 'index.js')).href);

// Warm-up on a small sample: what a CLI run loads once (rule packs) is not charged to the dump.
const small = await readDump(join(repo, 'samples', 'lock-pileup', 'goroutine.debug1.txt'));
runRules(analyze(small.snapshots[0]));

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
const groups = snap.groups.length;
const cpuMs = Object.values(stages).reduce((s, x) => s + x.cpuMs, 0);
console.log(JSON.stringify({ file, goroutines: snap.total, groups, findings: findings.length, stages, cpuMs, usPerGroup: (cpuMs * 1000) / groups }));
