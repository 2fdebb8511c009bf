/**
 * The stages the commands share: config → read → analyze → rules, with reader warnings reported on
 * stderr. No analysis happens here: each step is one library call.
 */
import { analyze } from '../analyze/index.js';
import type { Analysis, SimilarityLevel } from '../analyze/types.js';
import type { Dump, RaceReport } from '../model/dump.js';
import { isInputError, readDump, readDumpsSettled, type ReadOptions } from '../read/index.js';
import { diagnoseRaces, resolveRules, runRules } from '../rules/index.js';
import type { Finding } from '../rules/types.js';
import { loadConfig } from '../rules/config.js';
import type { SkippedMember } from '../read/archive.js';
import type { BundleCounts, BundleOptions } from '../read/bundle.js';
import { isArchiveFile, loadBundle, peekStdin, placed, placeFile, totalCounts } from './bundles.js';
import { mtimeOf, type InputFile } from './inputs.js';
import { warn } from './output.js';
import type { LoadedInput, Setup } from './types.js';

export type { LoadedInput, Setup };
import type { RulesFlags } from './options.js';
import { inputSize, progressAllowed, progressBar } from './progress.js';

/** The reader's options, and the limits of archives (--max-entries, --max-depth). */
export type BundleReadOptions = ReadOptions & BundleOptions;

export function setup(flags: RulesFlags & { level?: SimilarityLevel; format?: string; output?: string }): Setup {
  const { config } = loadConfig(typeof flags.rules === 'string' ? { file: flags.rules } : {});
  const a = config.analyze ?? {};
  return {
    config,
    rules: flags.rules !== false,
    // Only when the caller says which format it writes: never for JSON or piped output.
    progress: flags.format !== undefined && progressAllowed({ format: flags.format, output: flags.output }),
    analyzeOptions: {
      level: flags.level ?? 'exact',
      ...(a.helperPackages ? { helperPackages: a.helperPackages } : {}),
      ...(a.userModules ? { userModules: a.userModules } : {}),
    },
  };
}

/**
 * Read and analyze one input. A file found by expanding a folder or glob that is not a dump is
 * skipped with a warning (undefined); a named one is an error (the reader's InputError).
 */
export async function load(input: InputFile, s: Setup, readOptions: ReadOptions = {}): Promise<LoadedInput | undefined> {
  let dump: Dump;
  const size = inputSize(input.path);
  const bar = s.progress ? progressBar(input.path, size) : undefined;
  const opts = bar ? { ...readOptions, onProgress: bar.onProgress } : readOptions;
  try {
    // The reader chooses how (a large file in parts on several threads: src/read/index.ts).
    dump = await readDump(input.path, opts);
  } catch (e) {
    bar?.done();
    if (skippable(input, e)) return undefined;
    throw e;
  }
  bar?.done();
  return analyzed(input, dump, s);
}

/** A file found through a folder or glob that is not a dump: skipped with a warning. */
function skippable(input: InputFile, e: unknown): boolean {
  if (input.listed && isInputError(e) && (e.code === 'not-a-dump' || e.code === 'empty' || e.code === 'wrong-profile')) {
    warn(`${e.message}; skipped`);
    return true;
  }
  return false;
}

function analyzed(input: InputFile, dump: Dump, s: Setup): LoadedInput {
  reportWarnings(dump);
  const analyses = dump.snapshots.map((snap) => analyze(snap, s.analyzeOptions));
  const mtime = mtimeOf(input.path);
  const where = placed(placeFile(input));
  return mtime === undefined ? { path: input.path, dump, analyses, ...where } : { path: input.path, dump, analyses, mtime, ...where };
}

/**
 * Several inputs are read in parallel (worker threads for large files, src/read/parallel.ts); archives
 * among them are read as streams, each goroutine dump in them one loaded input.
 */
export async function loadAll(inputs: readonly InputFile[], s: Setup, readOptions: BundleReadOptions = {}): Promise<Loaded> {
  let opts = readOptions;
  const stdin = inputs.some((i) => i.path === '-') ? await peekStdin(readOptions.stdin ?? process.stdin) : undefined;
  if (stdin) opts = { ...opts, stdin: stdin.rest };
  const archive = inputs.map((i) => (i.path === '-' ? !!stdin?.archive : isArchiveFile(i.path)));
  if (!archive.some(Boolean)) return loadFiles(inputs, s, opts);
  const parts: LoadedInput[][] = inputs.map(() => []);
  const plain = inputs.filter((_, i) => !archive[i]);
  const plainLoaded = await loadFiles(plain, s, opts);
  inputs.forEach((input, i) => {
    if (!archive[i]) parts[i] = plainLoaded.filter((l) => l.path === input.path);
  });
  const counts: BundleCounts[] = [];
  const skipped: SkippedMember[] = [];
  for (let i = 0; i < inputs.length; i++) {
    if (!archive[i]) continue;
    const b = await loadBundle(inputs[i], s, opts, inputs[i].path === '-' ? stdin!.rest : undefined);
    parts[i] = b.loaded;
    counts.push(b.counts);
    skipped.push(...b.skipped);
  }
  return Object.assign(parts.flat(), { bundleCounts: totalCounts(counts), bundleSkipped: skipped });
}

/**
 * What loadAll read; `bundleCounts` when archives were among the inputs (how their files were used),
 * and `bundleSkipped`: their members that were skipped or read part-way, and why.
 */
export type Loaded = LoadedInput[] & { bundleCounts?: BundleCounts; bundleSkipped?: SkippedMember[] };

async function loadFiles(inputs: readonly InputFile[], s: Setup, readOptions: ReadOptions): Promise<LoadedInput[]> {
  const out: LoadedInput[] = [];
  if (inputs.length <= 1) {
    for (const input of inputs) {
      const l = await load(input, s, readOptions);
      if (l) out.push(l);
    }
    return out;
  }
  const read = await readDumpsSettled(inputs.map((i) => i.path), readOptions);
  read.forEach((r, i) => {
    if (r.ok) out.push(analyzed(inputs[i], r.dump, s));
    else if (!skippable(inputs[i], r.error)) throw r.error;
  });
  return out;
}

/** Partial results are results, with a warning: truncation, incomplete stacks, skipped lines. */
export function reportWarnings(dump: Dump): void {
  for (const s of dump.snapshots) {
    const where = dump.snapshots.length > 1 ? `${s.source} (snapshot ${s.index + 1})` : s.source;
    if (s.truncated) warn(`${where}: the input ends inside the dump; counts are lower bounds`);
    const partial = s.groups.filter((g) => g.partial).reduce((n, g) => n + g.count, 0);
    if (partial > 0) warn(`${where}: ${partial} goroutine${partial === 1 ? '' : 's'} with an incomplete stack`);
  }
  const diags = [...dump.warnings, ...dump.snapshots.flatMap((s) => s.warnings)].filter(
    (d) => d.severity === 'warning' && d.code !== 'truncated' && d.code !== 'partial-goroutine',
  );
  for (const d of diags.slice(0, 3)) warn(`${dump.source}${d.line ? `:${d.line}` : ''}: ${d.message}`);
  if (diags.length > 3) warn(`${dump.source}: ${diags.length - 3} more reader warnings (see --format json)`);
}

/** Rule findings for each analysis; a dump's race reports go with its first snapshot. */
export function findingsFor(loaded: readonly { dump: Dump; analyses: Analysis[] }[], s: Setup): Finding[] {
  if (!s.rules) return [];
  const out: Finding[] = [];
  for (const l of loaded) {
    if (l.analyses.length === 0 && l.dump.races.length) out.push(...diagnoseRaces(l.dump.races, { config: s.config }));
    l.analyses.forEach((a, i) => {
      out.push(...runRules(a, { config: s.config, ...(i === 0 && l.dump.races.length ? { races: l.dump.races } : {}) }));
    });
  }
  return out;
}

export function racesOf(loaded: readonly { dump: Dump }[]): RaceReport[] {
  return loaded.flatMap((l) => l.dump.races);
}

/** Ids of the rules that ran (for JUnit's one case per rule). */
export function ruleIds(s: Setup): string[] {
  if (!s.rules) return [];
  return resolveRules(s.config)
    .filter((r) => r.enabled !== false)
    .map((r) => r.id);
}

/**
 * `--source DIR`: frames whose files map into the checkout are the program's code, whatever their
 * import path (`userModules`); the inputs are analysed again when that adds modules. Says which.
 */
export async function withSourceModules<T extends Loaded>(loaded: T, s: Setup, sourceDir: string | undefined): Promise<T> {
  if (!sourceDir || loaded.length === 0) return loaded;
  const { sourceModules } = await import('../source/index.js');
  const mods = sourceModules(sourceDir, loaded.flatMap((l) => l.analyses.flatMap((a) => a.groups.flatMap((g) => g.frames))));
  if (mods.length === 0) return loaded;
  warn(`source: taken as the program's code (their frames map into ${sourceDir}): ${mods.join(', ')}`);
  const have = s.analyzeOptions.userModules ?? [];
  const add = mods.filter((m) => !have.includes(m));
  if (add.length === 0) return loaded;
  const opts = { ...s.analyzeOptions, userModules: [...have, ...add] };
  (s as { analyzeOptions: Setup['analyzeOptions'] }).analyzeOptions = opts;
  for (const l of loaded) (l as { analyses: Analysis[] }).analyses = l.dump.snapshots.map((snap) => analyze(snap, opts));
  return loaded;
}

/** `--source DIR`: likely-cause lines from the program's Go source; notes go to stderr. */
export async function withSource(findings: Finding[], analyses: Analysis[], sourceDir: string | undefined, maxFileBytes?: number): Promise<Finding[]> {
  if (!sourceDir || findings.length === 0) return findings;
  // web-tree-sitter and the Go grammar load only with --source.
  const { explainWithSource } = await import('../source/index.js');
  const r = await explainWithSource(findings, analyses, { sourceDir, ...(maxFileBytes ? { maxFileBytes } : {}) });
  for (const w of r.warnings.slice(0, 5)) warn(w);
  return r.findings;
}
