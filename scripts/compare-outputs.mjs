#!/usr/bin/env node
/**
 * Record what the built CLI says about every sample and corpus dump, and compare two such records
 * byte for byte: the check that a refactoring left every output unchanged.
 *
 *   node scripts/compare-outputs.mjs record <dir> [--cli dist/cli/main.js] [--corpus ../shared/corpus] [--formats json,table]
 *   node scripts/compare-outputs.mjs compare <before-dir> <after-dir>
 *
 * `record` runs `inspect --format json` on each dump file under samples/ (and each series folder),
 * again with `--source <sample>` for samples that hold Go source, and on each file of the corpus.
 * For every run it writes stdout (`.json`) and the exit code plus stderr (`.meta`); `--formats` adds
 * runs in other output formats (`.table`, `.markdown`…) beside the JSON ones. Runs go from the
 * repository root with relative paths, so records of one checkout compare equal. `compare` exits 1
 * and lists the runs whose files differ or exist on one side only.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Files of a sample folder that are not dumps. */
const NOT_DUMP = /(\.go|^go\.mod|^go\.sum|^expected\.json|^LICENSE.*|^README.*|\.sh)$/;
const CORPUS_NOT_DUMP = /^(README\.md|SOURCES\.tsv)$/;
/** Two runs at a time: the machine's cores are shared. */
const JOBS = 2;

function usage() {
  console.error('usage: compare-outputs.mjs record <dir> [--cli <main.js>] [--corpus <dir>] [--formats json,…] | compare <before> <after>');
  process.exit(2);
}

function option(args, name, fallback) {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
}

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : e.isFile() ? [join(dir, e.name)] : []));
}

function hasGoSource(dir) {
  return filesUnder(dir).some((f) => f.endsWith('.go'));
}

/** Every run: a name (the record's file stem) and the CLI arguments. */
function runs(corpus) {
  const out = [];
  const samples = join(REPO, 'samples');
  for (const c of readdirSync(samples).sort()) {
    const dir = join(samples, c);
    if (!statSync(dir).isDirectory() || !existsSync(join(dir, 'expected.json'))) continue;
    const rel = relative(REPO, dir);
    const source = hasGoSource(dir);
    const top = readdirSync(dir).sort().filter((f) => statSync(join(dir, f)).isFile() && !NOT_DUMP.test(f));
    for (const f of top) {
      out.push({ name: `samples/${c}/${f}`, args: [join(rel, f)] });
      if (source) out.push({ name: `samples/${c}/${f}+source`, args: [join(rel, f), '--source', rel] });
    }
    const series = join(dir, 'series');
    if (existsSync(series)) {
      for (const f of readdirSync(series).sort()) out.push({ name: `samples/${c}/series/${f}`, args: [join(rel, 'series', f)] });
      out.push({ name: `samples/${c}/series(folder)`, args: [join(rel, 'series')] });
    }
  }
  if (corpus && existsSync(corpus)) {
    for (const f of filesUnder(corpus)) {
      if (CORPUS_NOT_DUMP.test(f.split('/').pop())) continue;
      out.push({ name: `corpus/${relative(corpus, f)}`, args: [relative(REPO, f)] });
    }
  } else {
    console.error(`compare-outputs: no corpus at ${corpus}; recording samples only`);
  }
  return out;
}

function stem(name) {
  return name.replace(/[/\\]/g, '__');
}

function run(cli, args, format) {
  return new Promise((done) => {
    execFile(process.execPath, [cli, 'inspect', ...args, '--format', format], { cwd: REPO, maxBuffer: 1 << 30, encoding: 'buffer' }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : String(err.code ?? err.signal)) : 0;
      done({ code, stdout, stderr });
    });
  });
}

async function record(dir, cli, corpus, formats) {
  mkdirSync(dir, { recursive: true });
  const todo = runs(corpus).flatMap((r) => formats.map((format) => ({ ...r, format })));
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const r = todo[next++];
      const res = await run(cli, r.args, r.format);
      const name = r.format === 'json' ? stem(r.name) : `${stem(r.name)}.${r.format}`;
      writeFileSync(join(dir, `${name}.${r.format === 'json' ? 'json' : 'out'}`), res.stdout);
      writeFileSync(join(dir, `${name}.meta`), `args: ${r.args.join(' ')}${r.format === 'json' ? '' : ` --format ${r.format}`}\nexit: ${res.code}\nstderr:\n${res.stderr.toString('utf8')}`);
    }
  };
  await Promise.all(Array.from({ length: JOBS }, worker));
  console.log(`recorded ${todo.length} runs into ${dir}`);
}

function compare(a, b) {
  const left = new Set(readdirSync(a));
  const right = new Set(readdirSync(b));
  const all = [...new Set([...left, ...right])].sort();
  const diff = [];
  for (const f of all) {
    if (!left.has(f) || !right.has(f)) diff.push(`${f}: only in ${left.has(f) ? a : b}`);
    else if (!readFileSync(join(a, f)).equals(readFileSync(join(b, f)))) diff.push(`${f}: differs`);
  }
  const runsCount = all.filter((f) => f.endsWith('.meta')).length;
  if (diff.length > 0) {
    console.log(`${diff.length} of ${all.length} files differ (${runsCount} runs):`);
    for (const d of diff) console.log(`  ${d}`);
    process.exit(1);
  }
  console.log(`identical: ${runsCount} runs, ${all.length} files byte for byte`);
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === 'record' && args[0]) {
  const cli = resolve(option(args, '--cli', join(REPO, 'dist/cli/main.js')));
  if (!existsSync(cli)) {
    console.error(`compare-outputs: ${cli} not found; run npm run build first`);
    process.exit(2);
  }
  const formats = option(args, '--formats', 'json').split(',').filter(Boolean);
  await record(resolve(args[0]), cli, resolve(option(args, '--corpus', join(REPO, '../shared/corpus'))), formats);
} else if (cmd === 'compare' && args[0] && args[1]) {
  compare(resolve(args[0]), resolve(args[1]));
} else usage();
