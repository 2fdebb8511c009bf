#!/usr/bin/env node
// npm run bench: generate the large dumps when missing (bench/gen, Go 1.19 standard library), then
// measure, in one run, the whole-process wall time and peak RSS of `leakscope inspect` on each format
// next to a baseline measured in the same run: a minimal Node script that reads the same file and
// counts its newlines. Figures are ratios against that baseline because the machine is shared and
// noisy. Results go to stdout and to bench/out/results.json.
//
//   node bench/run.mjs [--sizes 25000,100000,250000] [--with-1m] [--runs 3] [--series 360] [--skip-series] [--skip-rules] [--skip-distinct] [--skip-pileup] [--skip-bundle] [--trend-json]
//
// The distinct-stacks case (bench/gen -distinct 20000: 20,000 goroutines, each on a stack of its own,
// all waiting on one channel of one receiver) is timed end to end (`inspect` with and without rules,
// and with the JSON report) against the newline count of the same run, and per stage in-process
// (bench/stage-time.mjs): CPU time per distinct stack across read, analyze, the wait-for graph, rules
// and the report, in a fresh process and for the same dump once more in it (a series' next snapshot).
//
// --with-1m adds the 1,000,000-goroutine point (a ~2.8 GB debug=2 file; the generator needs ~6 GB of
// memory): opt-in, and skipped with a note when the machine has too little free memory or disk.
// The trend figure is `trend` over the series with its text report (--trend-json also measures the
// JSON report, which holds every snapshot's groups). The 64 MiB-capped debug=2 of the 250k process is
// read once to check that it is reported as truncated by the runtime's limit.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, statfsSync, writeFileSync } from 'node:fs';
import { availableParallelism, freemem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..');
const out = join(here, 'out');
const cli = join(repo, 'dist', 'cli', 'main.js');
const rssHook = join(here, 'rss-hook.mjs');

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
// --sizes none (or "") runs no size row: only the rules and bundle rows.
const sizesArg = opt('sizes', '25000,100000,250000');
const sizes = sizesArg === 'none' ? [] : sizesArg.split(',').filter(Boolean).map(Number);
const runs = Number(opt('runs', '3'));
const seriesCount = Number(opt('series', '360'));
const skipSeries = args.includes('--skip-series');
const trendJson = args.includes('--trend-json');
const notes = [];
if (args.includes('--with-1m') && !sizes.includes(1_000_000)) sizes.push(1_000_000);

mkdirSync(out, { recursive: true });
if (!existsSync(cli)) execFileSync('npm', ['run', 'build'], { cwd: repo, stdio: 'inherit' });

function generator() {
  const bin = join(out, 'gen');
  // Rebuilt when a source is newer than the binary: a generator built before a new mode (-pileup,
  // -wide) was added would reject its flags.
  const src = join(here, 'gen');
  const stale = () => statSync(bin).mtimeMs < Math.max(...readdirSync(src).map((f) => statSync(join(src, f)).mtimeMs));
  if (!existsSync(bin) || stale()) {
    console.error('building bench/gen …');
    execFileSync('go', ['build', '-o', bin, '.'], {
      cwd: join(here, 'gen'),
      stdio: 'inherit',
      env: { ...process.env, GOFLAGS: '-mod=mod', GOPROXY: 'off', GOTOOLCHAIN: 'local' },
    });
  }
  return bin;
}

/** Whether the machine can generate and read an n-goroutine dump (~2.8 KB of debug=2 per goroutine). */
function fits(n) {
  if (existsSync(join(out, `g${n}.debug2.txt`))) return true;
  const needDisk = n * 2900 * 1.1;
  const needMem = n * 6000;
  const { bavail, bsize } = statfsSync(out);
  if (bavail * bsize < needDisk) return `needs ${(needDisk / 1e9).toFixed(1)} GB of free disk, ${((bavail * bsize) / 1e9).toFixed(1)} GB free`;
  if (freemem() < needMem) return `needs ~${(needMem / 1e9).toFixed(1)} GB of free memory to generate, ${(freemem() / 1e9).toFixed(1)} GB free`;
  return true;
}

function ensureDump(n) {
  const base = join(out, `g${n}`);
  if (!existsSync(`${base}.debug2.txt`)) {
    console.error(`generating a ${n}-goroutine dump …`);
    execFileSync(generator(), ['-n', String(n), '-out', out, '-cap64=' + String(n === 250000)], { stdio: 'inherit' });
  }
  return base;
}

function ensureSeries() {
  const dir = join(out, `series${seriesCount}`);
  if (!existsSync(dir) || readdirSync(dir).length < seriesCount) {
    console.error(`generating ${seriesCount} debug=1 snapshots …`);
    execFileSync(generator(), ['-n', '2000', '-shapes', '120', '-series', String(seriesCount), '-out', dir], { stdio: 'inherit' });
  }
  return dir;
}

/**
 * Run each node process of `jobs` (label → node arguments) `runs` times, taking turns (so that a
 * burst of load on the shared machine hits all of them alike); the median wall time and the max
 * peak RSS of each.
 */
function measureTogether(jobs) {
  const acc = Object.fromEntries(Object.keys(jobs).map((k) => [k, { times: [], rss: 0, status: 0 }]));
  for (let i = 0; i < runs; i++) {
    for (const [label, nodeArgs] of Object.entries(jobs)) {
      const r = runOnce(label, nodeArgs);
      acc[label].times.push(r.ms);
      acc[label].rss = Math.max(acc[label].rss, r.rssKB);
      acc[label].status = r.status;
    }
  }
  return Object.fromEntries(
    Object.entries(acc).map(([label, a]) => {
      const times = a.times.sort((x, y) => x - y);
      return [label, { label, wallMs: times[Math.floor(times.length / 2)], peakRssMB: a.rss / 1024, status: a.status }];
    }),
  );
}

function runOnce(label, nodeArgs) {
  {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, ['--import', rssHook, ...nodeArgs], {
      encoding: 'utf8',
      maxBuffer: 1 << 30,
      env: { ...process.env, NO_COLOR: '1' },
    });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const m = /LEAKSCOPE_BENCH_MAXRSS_KB=(\d+)/.exec(r.stderr ?? '');
    if (!m) throw new Error(`${label}: no RSS reported (exit ${r.status}): ${(r.stderr ?? '').slice(0, 500)}`);
    return { ms, rssKB: Number(m[1]), status: r.status ?? -1 };
  }
}

const results = { node: process.version, cores: availableParallelism(), extraCaCerts: Boolean(process.env.NODE_EXTRA_CA_CERTS), runs, date: new Date().toISOString(), dumps: [], series: undefined };
const fmt = (x, d = 2) => x.toFixed(d);
console.log(`node ${process.version}, ${availableParallelism()} cores, load average ${(() => { try { return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '); } catch { return '?'; } })()}`);
// Node reads this CA bundle at every start (0.05 s of each process here, baseline's too): figures
// taken with and without it differ by that much, and ratios too.
if (process.env.NODE_EXTRA_CA_CERTS) console.log(`NODE_EXTRA_CA_CERTS is set (${process.env.NODE_EXTRA_CA_CERTS}): every process, the baseline's too, reads it at start`);
console.log('size      format           MB      goroutines  wall ms   base ms  ratio  MB/s    gor/s      peak RSS MB');
for (const n of sizes) {
  const ok = fits(n);
  if (ok !== true) {
    notes.push(`${n} goroutines skipped: ${ok}`);
    console.log(`${String(n).padEnd(9)} skipped: ${ok}`);
    continue;
  }
  const base = ensureDump(n);
  const files = { debug2: `${base}.debug2.txt`, debug1: `${base}.debug1.txt`, debug0: `${base}.debug0.pb.gz` };
  for (const [format, file] of Object.entries(files)) {
    const bytes = statSync(file).size;
    const inspect = [cli, 'inspect', file, '--output', join(out, 'last.txt')];
    // A debug=2 file large enough to be read in parts is also measured on one thread and on two
    // (the default depends on the cores: parts only with three or more); the small formats also with
    // the JSON report (a few MB of output: part of their whole-process time).
    const parts = format === 'debug2' && bytes >= 96 * 1024 * 1024;
    const small = format !== 'debug2';
    const json = [cli, 'inspect', file, '--format', 'json', '--output', join(out, 'last.json')];
    const m = measureTogether({
      baseline: [join(here, 'count-newlines.mjs'), file],
      tool: inspect,
      ...(parts ? { one: [...inspect, '--threads', '1'], two: [...inspect, '--threads', '2'] } : {}),
      ...(small ? { json } : {}),
    });
    const variants = [
      [format, m.tool],
      ...(parts ? [[`${format} 1 thread`, m.one], [`${format} 2 threads`, m.two]] : []),
      ...(small ? [[`${format} json`, m.json]] : []),
    ];
    for (const [name, tool] of variants) {
      const row = {
        goroutines: n,
        format: name,
        file,
        bytes,
        baselineMs: m.baseline.wallMs,
        wallMs: tool.wallMs,
        ratio: tool.wallMs / m.baseline.wallMs,
        mbPerSec: bytes / 1e6 / (tool.wallMs / 1000),
        goroutinesPerSec: n / (tool.wallMs / 1000),
        peakRssMB: tool.peakRssMB,
        baselinePeakRssMB: m.baseline.peakRssMB,
        exit: tool.status,
      };
      results.dumps.push(row);
      console.log(
        `${String(n).padEnd(9)} ${name.padEnd(16)} ${fmt(bytes / 1e6, 1).padEnd(7)} ${String(n).padEnd(11)} ${fmt(row.wallMs, 0).padEnd(9)} ${fmt(row.baselineMs, 0).padEnd(8)} ${fmt(row.ratio).padEnd(6)} ${fmt(row.mbPerSec, 0).padEnd(7)} ${fmt(row.goroutinesPerSec, 0).padEnd(10)} ${fmt(row.peakRssMB, 0)}`,
      );
    }
  }
}

if (!args.includes('--skip-rules')) {
  // Rules on many distinct stacks: 40,000 goroutines in 20,000 stacks (bench/gen -wide). The rules
  // alone are timed in-process (bench/rules-time.mjs), next to analyze as the baseline of the run.
  const prefix = 'w20000';
  if (!existsSync(join(out, `${prefix}.debug2.txt`))) {
    console.error('generating a 20,000-stack dump …');
    execFileSync(generator(), ['-n', '40000', '-shapes', '20000', '-wide', '-prefix', prefix, '-out', out], { stdio: 'inherit' });
  }
  results.rules = [];
  for (const ext of ['debug2.txt', 'debug1.txt', 'debug0.pb.gz']) {
    const file = join(out, `${prefix}.${ext}`);
    const samples = [];
    for (let i = 0; i < runs; i++) {
      const r = spawnSync(process.execPath, [join(here, 'rules-time.mjs'), file], { encoding: 'utf8', maxBuffer: 1 << 26 });
      if (r.status !== 0) throw new Error(`rules-time ${file}: exit ${r.status}: ${r.stderr.slice(0, 500)}`);
      samples.push(JSON.parse(r.stdout));
    }
    const med = (k) => samples.map((x) => x[k]).sort((x, y) => x - y)[Math.floor(samples.length / 2)];
    const row = { file, groups: samples[0].groups, goroutines: samples[0].goroutines, rulesMs: med('rulesMs'), rulesCpuMs: med('rulesCpuMs'), analyzeMs: med('analyzeMs') };
    results.rules.push(row);
    console.log(`rules on ${row.groups} groups (${ext}): ${fmt(row.rulesMs, 0)} ms (CPU ${fmt(row.rulesCpuMs, 0)} ms), analyze ${fmt(row.analyzeMs, 0)} ms`);
  }
}

if (!args.includes('--skip-distinct')) {
  const count = 20000;
  const prefix = `distinct${count}`;
  const file = join(out, `${prefix}.debug2.txt`);
  if (!existsSync(file)) {
    console.error(`generating ${count} goroutines on distinct stacks …`);
    execFileSync(generator(), ['-distinct', String(count), '-out', out], { stdio: 'inherit' });
  }
  const m = measureTogether({
    baseline: [join(here, 'count-newlines.mjs'), file],
    tool: [cli, 'inspect', file, '--output', join(out, 'last.txt')],
    norules: [cli, 'inspect', file, '--no-rules', '--output', join(out, 'last.txt')],
    // The JSON report says every group with its frames and key: ~4 times the dump's size.
    json: [cli, 'inspect', file, '--format', 'json', '--output', join(out, 'last.json')],
  });
  const stagesRuns = [];
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(process.execPath, [join(here, 'stage-time.mjs'), file, '--again'], { encoding: 'utf8', maxBuffer: 1 << 26 });
    if (r.status !== 0) throw new Error(`stage-time ${file}: exit ${r.status}: ${r.stderr.slice(0, 500)}`);
    stagesRuns.push(JSON.parse(r.stdout));
  }
  const med = (xs) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  const stageNames = Object.keys(stagesRuns[0].stages);
  const perStage = Object.fromEntries(stageNames.map((k) => [k, med(stagesRuns.map((r) => r.stages[k].cpuMs))]));
  const groups = stagesRuns[0].groups;
  const usPerStack = med(stagesRuns.map((r) => r.usPerGroup));
  const againPerStage = Object.fromEntries(stageNames.map((k) => [k, med(stagesRuns.map((r) => r.again.stages[k].cpuMs))]));
  const againUsPerStack = med(stagesRuns.map((r) => r.again.usPerGroup));
  results.distinct = {
    file, bytes: statSync(file).size, goroutines: stagesRuns[0].goroutines, groups,
    baselineMs: m.baseline.wallMs, wallMs: m.tool.wallMs, ratio: m.tool.wallMs / m.baseline.wallMs, peakRssMB: m.tool.peakRssMB,
    noRulesMs: m.norules.wallMs, noRulesRatio: m.norules.wallMs / m.baseline.wallMs, noRulesPeakRssMB: m.norules.peakRssMB,
    jsonMs: m.json.wallMs, jsonRatio: m.json.wallMs / m.baseline.wallMs, jsonPeakRssMB: m.json.peakRssMB, jsonBytes: statSync(join(out, 'last.json')).size,
    stageCpuMs: perStage, usPerStack, againStageCpuMs: againPerStage, againUsPerStack,
  };
  const d = results.distinct;
  console.log(`${count} distinct stacks (${fmt(d.bytes / 1e6, 1)} MB debug=2, ${groups} groups): ${fmt(d.wallMs, 0)} ms (baseline ${fmt(d.baselineMs, 0)} ms, ratio ${fmt(d.ratio)}), peak RSS ${fmt(d.peakRssMB, 0)} MB; without rules ${fmt(d.noRulesMs, 0)} ms (ratio ${fmt(d.noRulesRatio)}), peak RSS ${fmt(d.noRulesPeakRssMB, 0)} MB`);
  console.log(`  --format json (${fmt(d.jsonBytes / 1e6, 0)} MB of JSON): ${fmt(d.jsonMs, 0)} ms (ratio ${fmt(d.jsonRatio)}), peak RSS ${fmt(d.jsonPeakRssMB, 0)} MB`);
  console.log(`  CPU per stage, in-process (median of ${runs}): ${stageNames.map((k) => `${k} ${fmt(perStage[k], 0)} ms`).join(', ')}; ${fmt(usPerStack, 1)} µs per distinct stack`);
  console.log(`  the same dump again in that process (a series' next snapshot: code compiled, heap grown): ${stageNames.map((k) => `${k} ${fmt(againPerStage[k], 0)} ms`).join(', ')}; ${fmt(againUsPerStack, 1)} µs per distinct stack`);
}

if (!args.includes('--skip-pileup')) {
  // Issue 13, shape 1 at scale: 777 queries in WaitGroup.Wait, 144 lookups each (111,888) queued for
  // one RWMutex whose holder waits elsewhere (bench/gen -pileup). Timed against the newline count of
  // the same run, and checked: the first finding is the pile-up and counts every query and lookup.
  const [queries, children] = [777, 144];
  const prefix = `pileup${queries}x${children}`;
  if (!existsSync(join(out, `${prefix}.debug2.txt`))) {
    console.error(`generating the ${queries} × ${children} lock pile-up …`);
    execFileSync(generator(), ['-pileup', String(queries), '-children', String(children), '-out', out], { stdio: 'inherit' });
  }
  results.pileup = [];
  for (const ext of ['debug2.txt', 'debug1.txt', 'debug0.pb.gz']) {
    const file = join(out, `${prefix}.${ext}`);
    const report = join(out, 'pileup.json');
    const m = measureTogether({ baseline: [join(here, 'count-newlines.mjs'), file], tool: [cli, 'inspect', file, '--format', 'json', '--output', report] });
    const first = JSON.parse(readFileSync(report, 'utf8')).findings[0];
    const want = queries * children + queries;
    const ok = /^core\/(lock-pileup|lock-held-blocked)$/.test(first?.ruleId ?? '') && first.evidence.goroutines >= want;
    const row = { file, bytes: statSync(file).size, wallMs: m.tool.wallMs, baselineMs: m.baseline.wallMs, ratio: m.tool.wallMs / m.baseline.wallMs, peakRssMB: m.tool.peakRssMB, first: first && { ruleId: first.ruleId, severity: first.severity, goroutines: first.evidence.goroutines, title: first.title }, ok };
    results.pileup.push(row);
    console.log(`pile-up ${queries} × ${children} (${ext}): ${fmt(row.wallMs, 0)} ms (baseline ${fmt(row.baselineMs, 0)} ms, ratio ${fmt(row.ratio)}), peak RSS ${fmt(row.peakRssMB, 0)} MB; first: ${first?.severity} ${first?.ruleId} counting ${first?.evidence.goroutines} of ${want}${ok ? '' : '  <-- WRONG'}`);
    if (!ok) notes.push(`pile-up ${ext}: the first finding is not the pile-up counting ${want} goroutines: ${first?.ruleId} ${first?.evidence.goroutines}`);
  }
}

const cap64 = join(out, 'g250000.debug2-cap64.txt');
if (existsSync(cap64)) {
  // Go's 64 MiB cap: the capped dump must be reported as truncated by the runtime's limit.
  const r = spawnSync(process.execPath, [cli, 'inspect', cap64, '--format', 'json', '--output', join(out, 'cap64.json')], { encoding: 'utf8' });
  let snap;
  try {
    snap = JSON.parse(readFileSync(join(out, 'cap64.json'), 'utf8')).snapshots[0];
  } catch {
    snap = undefined;
  }
  const w = snap?.warnings?.find((x) => x.code === 'truncated');
  const recognised = snap?.truncated === true && /exactly 64 MiB/.test(w?.message ?? '');
  results.cap64 = { file: cap64, bytes: statSync(cap64).size, exit: r.status, goroutines: snap?.total, truncated: snap?.truncated, recognised };
  console.log(`64 MiB-capped debug=2 (${statSync(cap64).size} bytes): ${recognised ? 'reported as truncated by the runtime limit' : 'NOT recognised'}, ${snap?.total} goroutines read (a lower bound), exit ${r.status}`);
}

if (!skipSeries) {
  const dir = ensureSeries();
  const files = readdirSync(dir).map((f) => join(dir, f));
  const bytes = files.reduce((s, f) => s + statSync(f).size, 0);
  const { baseline, trend: tool } = measureTogether({ baseline: [join(here, 'count-newlines.mjs'), ...files], trend: [cli, 'trend', dir, '--output', join(out, 'trend.txt')] });
  results.series = { snapshots: files.length, bytes, report: 'text', baselineMs: baseline.wallMs, wallMs: tool.wallMs, ratio: tool.wallMs / baseline.wallMs, peakRssMB: tool.peakRssMB, exit: tool.status };
  console.log(`trend over ${files.length} debug=1 snapshots (${fmt(bytes / 1e6, 0)} MB), text report: ${fmt(tool.wallMs, 0)} ms (baseline ${fmt(baseline.wallMs, 0)} ms, ratio ${fmt(results.series.ratio)}), peak RSS ${fmt(tool.peakRssMB, 0)} MB, exit ${tool.status}`);
  if (trendJson) {
    const { j } = measureTogether({ j: [cli, 'trend', dir, '--format', 'json', '--output', join(out, 'trend.json')] });
    results.seriesJson = { wallMs: j.wallMs, ratio: j.wallMs / baseline.wallMs, peakRssMB: j.peakRssMB, outputBytes: statSync(join(out, 'trend.json')).size, exit: j.status };
    console.log(`  with --format json: ${fmt(j.wallMs, 0)} ms, peak RSS ${fmt(j.peakRssMB, 0)} MB, ${fmt(results.seriesJson.outputBytes / 1e6, 0)} MB of JSON`);
  }
}

if (!args.includes('--skip-bundle')) {
  // Issue 14: a support bundle of 40 processes × 12 goroutine profiles (debug=0) with heap profiles,
  // logs and describe text beside them, packed the collector's way (a tar of 12 tar.xz), made once
  // from live Go processes (test/live/bundleprog). `check` over it, every file read in one stream.
  const bundle = await ensureBundle();
  const bytes = statSync(bundle).size;
  const { baseline, check } = measureTogether({ baseline: [join(here, 'count-newlines.mjs'), bundle], check: [cli, 'check', bundle, '--output', join(out, 'bundle.txt')] });
  results.bundle = { processes: 40, snapshots: 480, bytes, baselineMs: baseline.wallMs, wallMs: check.wallMs, ratio: check.wallMs / baseline.wallMs, peakRssMB: check.peakRssMB, exit: check.status };
  console.log(`check over a bundle of 40 processes × 12 debug=0 snapshots (${fmt(bytes / 1e6, 1)} MB tar of tar.xz): ${fmt(check.wallMs, 0)} ms (baseline ${fmt(baseline.wallMs, 0)} ms, ratio ${fmt(results.bundle.ratio)}), peak RSS ${fmt(check.peakRssMB, 0)} MB, exit ${check.status}`);
}

async function ensureBundle() {
  const dir = join(out, 'bundle');
  const done = join(dir, 'bundle.tar');
  if (existsSync(done)) return done;
  mkdirSync(dir, { recursive: true });
  const kit = await import('../test/live/bundleprog/collect.mjs');
  const bin = kit.buildProg(dir);
  const env = kit.goEnv(dir);
  const pods = [];
  try {
    for (let i = 0; i < 40; i++) pods.push(await kit.startPod(bin, `rancher-7d9f8b6c4-p${String(i).padStart(4, '0')}`, { env, leak: i % 4 === 0 }));
    const tar = await kit.collect({ pods, loops: 12, outDir: dir, grow: 25, cpu: false });
    execFileSync('mv', [tar, done]);
  } finally {
    for (const p of pods) await kit.stopPod(p);
  }
  return done;
}

results.notes = notes;
try {
  results.load = readFileSync('/proc/loadavg', 'utf8').trim();
} catch {
  // not Linux
}
writeFileSync(join(out, 'results.json'), JSON.stringify(results, null, 2) + '\n');
console.log(`results: ${join(out, 'results.json')}`);
