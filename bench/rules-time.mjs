#!/usr/bin/env node
// Time of the rules alone on one dump, in this process: read and analyze (not timed), load the rule
// packs on a small sample (not timed), then the first runRules on the dump (what a CLI run pays),
// and, beside it, analyze (the stage before, timed the same way) as the in-run baseline. Prints JSON.
//
//   node bench/rules-time.mjs FILE
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { analyze, readDump, runRules } = await import(join(repo, 'dist', 'index.js'));

const file = process.argv[2];
const small = await readDump(join(repo, 'samples', 'lock-pileup', 'goroutine.debug1.txt'));
runRules(analyze(small.snapshots[0]));
const dump = await readDump(file);
const snap = dump.snapshots[0];
let t = performance.now();
const a = analyze(snap);
const analyzeMs = performance.now() - t;
t = performance.now();
const cpu = process.cpuUsage();
const findings = runRules(a);
const rulesMs = performance.now() - t;
const used = process.cpuUsage(cpu);
// CPU time too: on a shared machine the wall time of a sub-second step moves with other tenants.
const rulesCpuMs = (used.user + used.system) / 1000;
console.log(JSON.stringify({ groups: a.groups.length, goroutines: a.total, analyzeMs, rulesMs, rulesCpuMs, findings: findings.length }));
