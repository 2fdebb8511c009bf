/**
 * Flag parsing shared by the commands: value parsers that reject bad values with a one-line message
 * (commander turns them into exit 2), and the options every report-writing command has.
 */
import { statSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { SimilarityLevel } from '../analyze/types.js';
import { FORMATS, isFormat, type FormatName } from '../report/registry.js';
import type { PathMapping } from '../report/types.js';
import type { BundleOptions } from '../read/bundle.js';
import type { ParallelOptions } from '../read/parallel.js';
import type { Severity } from '../rules/types.js';
import { UsageError } from './exit-codes.js';
import { checkOutput } from './output.js';

export function positiveInt(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) throw new InvalidArgumentError('expected a whole number ≥ 1.');
  return Number(value);
}

export function count(value: string): number {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError('expected a whole number ≥ 0.');
  return Number(value);
}

/** `0.5`, `50%` → 0.5. */
export function ratio(value: string): number {
  const m = value.trim().match(/^(\d+(?:\.\d+)?|\.\d+)(%?)$/);
  if (!m) throw new InvalidArgumentError('expected a ratio like 0.5 or a percentage like 50%.');
  return m[2] ? Number(m[1]) / 100 : Number(m[1]);
}

export function probability(value: string): number {
  const x = Number(value);
  if (!/^\s*(0?\.\d+|0|1)\s*$/.test(value) || !(x > 0 && x < 1)) throw new InvalidArgumentError('expected a number between 0 and 1.');
  return x;
}

/** `10s`, `5m`, `1h30m`, `250ms`, or plain seconds → milliseconds. */
export function duration(value: string): number {
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v) * 1000;
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  let rest = v;
  while (rest) {
    const m = rest.match(/^(\d+(?:\.\d+)?)(ms|s|m|h)/);
    if (!m) throw new InvalidArgumentError('expected a duration like 10s, 5m or 1h30m.');
    total += Number(m[1]) * units[m[2]];
    rest = rest.slice(m[0].length);
  }
  if (total <= 0) throw new InvalidArgumentError('expected a duration above zero.');
  return total;
}

/** `--interval SECONDS` → ms. */
export function seconds(value: string): number {
  const x = Number(value);
  if (!/^\s*\d+(\.\d+)?\s*$/.test(value) || !(x > 0)) throw new InvalidArgumentError('expected a number of seconds above zero.');
  return x * 1000;
}

export function regex(value: string): RegExp {
  try {
    return new RegExp(value);
  } catch (e) {
    throw new InvalidArgumentError(`not a valid regular expression (${(e as Error).message}).`);
  }
}

/** Repeatable `--path-prefix OLD=NEW`. */
export function pathPrefix(value: string, previous: PathMapping[] = []): PathMapping[] {
  const i = value.indexOf('=');
  if (i <= 0) throw new InvalidArgumentError('expected OLD=NEW, e.g. /go/src/example.com/app/=');
  return [...previous, { from: value.slice(0, i), to: value.slice(i + 1) }];
}

/** `-f sarif=leakscope.sarif`: one more report of the same run, written to its own file. */
export interface ReportSpec {
  readonly format: FormatName;
  readonly file?: string;
}

/**
 * Repeatable `-f NAME[=FILE]`: one run writes every report it is asked for. Collected here,
 * then split by splitFormats before the action: one format to stdout (or `--output`), the rest to files.
 */
export function formatSpec(value: string, previous: ReportSpec[] | string | undefined): ReportSpec[] {
  const list = Array.isArray(previous) ? previous : [];
  const i = value.indexOf('=');
  const name = (i < 0 ? value : value.slice(0, i)).trim();
  if (!isFormat(name)) throw new InvalidArgumentError(`unknown format '${name}' (choose from ${FORMATS.join(', ')}; NAME=FILE writes it to FILE).`);
  if (i >= 0 && value.slice(i + 1) === '') throw new InvalidArgumentError(`'${value}': no file after '='.`);
  return [...list, i < 0 ? { format: name } : { format: name, file: value.slice(i + 1) }];
}

/** `-f` given several times → `format` (+ `output`) for the main report, `reports` for the others. */
export function splitFormats(cmd: Command): void {
  const v = cmd.getOptionValue('format') as ReportSpec[] | FormatName;
  if (!Array.isArray(v)) return;
  const plain = v.filter((x) => x.file === undefined);
  if (plain.length > 1) throw new UsageError(`--format: ${plain.map((x) => x.format).join(' and ')} would both go to ${cmd.getOptionValue('output') ?? 'stdout'}; give all but one a file: -f sarif=leakscope.sarif`);
  const main = plain[0] ?? v[0];
  const rest = v.filter((x) => x !== main);
  const files = rest.map((x) => x.file!);
  if (main.file !== undefined) {
    if (cmd.getOptionValue('output') !== undefined) throw new UsageError(`--output and -f ${main.format}=${main.file}: every format has a file; drop --output or the file of one format`);
    files.push(main.file);
    cmd.setOptionValue('output', main.file);
  }
  const seen = new Set<string>();
  for (const f of files) {
    if (seen.has(f)) throw new UsageError(`--format: two reports would be written to ${f}`);
    seen.add(f);
    checkOutput(f, cmd.args);
  }
  cmd.setOptionValue('format', main.format);
  cmd.setOptionValue('reports', rest);
}

/** What every report-writing command accepts. */
export interface ReportFlags {
  format: FormatName;
  /** More reports of the same run (`-f junit=junit.xml`), each to its file. */
  reports?: ReportSpec[];
  output?: string;
  top?: number;
  match?: RegExp;
  stacks?: boolean;
  level: SimilarityLevel;
  pathPrefix?: PathMapping[];
}

export interface RulesFlags {
  /** `--rules FILE` (string), `--no-rules` (false), or neither (undefined). */
  rules?: string | false;
}

export interface GateFlags {
  maxTotal?: number;
  maxGroup?: number;
  maxGrowth?: number;
  maxGroupGrowth?: number;
  maxSkipped?: number;
  failOnSkipped?: boolean;
  failOn?: Severity;
}

export function addReportOptions(cmd: Command, o: { stacks?: boolean; format?: FormatName } = {}): Command {
  cmd
    .addOption(
      new Option('-f, --format <name[=file]>', `output format: ${FORMATS.join(', ')}; repeat with NAME=FILE to write several reports in one run`)
        .argParser(formatSpec)
        .default(o.format ?? 'table'),
    )
    .option('-o, --output <file>', 'write the report to FILE (atomically) instead of stdout')
    .option('--top <n>', 'groups shown in table and markdown output (default 10)', positiveInt)
    .option('--match <regex>', 'show only groups with a frame whose function or file matches', regex)
    .addOption(new Option('--level <level>', 'how stacks are grouped').choices(['exact', 'functions']).default('exact'))
    .option('--path-prefix <old=new>', 'map a path prefix in sarif/github/junit locations (repeatable)', pathPrefix);
  if (o.stacks) cmd.option('--stacks', "print each top group's stack");
  cmd.hook('preAction', (_root, action) => splitFormats(action));
  return cmd;
}

export function addRulesOptions(cmd: Command): Command {
  return cmd
    .option('--rules <file>', 'config file with rules, overrides, suppressions and gate limits (default: .leakscope.yaml found upward)')
    .option('--no-rules', 'do not run the rules');
}

/** `512MiB`, `2GB`, `64k`, `1048576` → bytes. Decimal (kB, MB, GB) and binary (KiB, MiB, GiB) units. */
export function size(value: string): number {
  const m = value.trim().match(/^(\d+(?:\.\d+)?)\s*([kmgt]?)(i?)(b?)$/i);
  if (!m || (m[3] && !m[2])) throw new InvalidArgumentError('expected a size like 1048576, 512MiB or 2GB.');
  const exp = ' kmgt'.indexOf(m[2].toLowerCase() || ' ');
  const base = m[3] || (m[2] && !m[4]) ? 1024 : 1000;
  const bytes = Math.floor(Number(m[1]) * base ** exp);
  if (!(bytes >= 1) || !Number.isSafeInteger(bytes)) throw new InvalidArgumentError('expected a size of at least 1 byte.');
  return bytes;
}

/** The reader's limits, as flags (SECURITY.md): every command that reads input has them. */
export interface ReadFlags {
  maxDecompressed?: number;
  maxLine?: number;
  maxSnapshots?: number;
  maxDownload?: number;
  maxProtobuf?: number;
  timeout?: number;
  threads?: number;
  maxEntries?: number;
  maxDepth?: number;
  /** `--excerpt` / `--no-excerpt`: the dump is a part cut from a larger one, or complete (default: told from its signs). */
  excerpt?: boolean;
}

export function addReadOptions(cmd: Command, o: { timeout?: boolean } = {}): Command {
  cmd
    .option('--max-decompressed <bytes>', 'refuse gzip input, or an archive, that decompresses to more than this (512MiB, 2GB…; default 4GiB)', size)
    .option('--max-line <chars>', 'cut longer lines, with a warning (default 1048576)', positiveInt)
    .option('--max-snapshots <n>', 'refuse an input holding more dumps than this (default 10000)', positiveInt)
    .option('--max-download <bytes>', 'refuse a URL response larger than this (default 256MiB)', size)
    .option('--max-protobuf <bytes>', 'refuse a protobuf profile larger than this (default 512MiB)', size)
    .option('--max-entries <n>', 'refuse an archive holding more entries than this (default 100000)', positiveInt)
    .option('--max-depth <n>', 'refuse archives nested deeper than this inside an archive (default 4)', count)
    .option('--threads <n>', 'threads that read input: several files at once, or one large debug=2 file in parts (default: the number of cores when there are 3 or more, else 1; 1: read in the main thread)', positiveInt)
    .option('--excerpt', 'the dumps are excerpts: a few goroutines cut from a larger dump (a bug report, a ticket), every one shown a suspect (default: told from signs such as a missing header, goroutine 1 absent, a stack without its header, `...`)')
    .option('--no-excerpt', 'the dumps are complete, whatever their signs');
  if (o.timeout !== false) cmd.option('--timeout <duration>', 'give up on a URL when connecting or a read stalls this long (default 10s to connect, 30s per read)', duration);
  return cmd;
}

/** ReadFlags → the reader's options (src/read/index.ts ReadOptions, and the threads of src/read/parallel.ts). */
export function readOptionsOf(f: ReadFlags): ParallelOptions & BundleOptions {
  return {
    ...(f.threads !== undefined ? { maxWorkers: f.threads } : {}),
    ...(f.maxDecompressed !== undefined ? { maxDecompressedBytes: f.maxDecompressed } : {}),
    ...(f.maxLine !== undefined ? { maxLineLength: f.maxLine } : {}),
    ...(f.maxSnapshots !== undefined ? { maxSnapshots: f.maxSnapshots } : {}),
    ...(f.maxDownload !== undefined ? { maxDownloadBytes: f.maxDownload } : {}),
    ...(f.maxProtobuf !== undefined ? { maxProtobufBytes: f.maxProtobuf } : {}),
    ...(f.maxEntries !== undefined ? { maxEntries: f.maxEntries } : {}),
    ...(f.maxDepth !== undefined ? { maxDepth: f.maxDepth } : {}),
    ...(f.excerpt !== undefined ? { excerpt: f.excerpt } : {}),
    ...(f.timeout !== undefined ? { connectTimeoutMs: f.timeout, readTimeoutMs: f.timeout } : {}),
  };
}

/** `--source DIR` must be a folder: checked before any work, like `--rules FILE`. */
export function checkSourceDir(dir: string | undefined): void {
  if (dir === undefined) return;
  let st;
  try {
    st = statSync(dir);
  } catch {
    throw new UsageError(`--source ${dir}: no such folder`);
  }
  if (!st.isDirectory()) throw new UsageError(`--source ${dir}: not a folder (give the checkout of the program's Go source)`);
}
