/**
 * Flag parsing shared by the commands: value parsers that reject bad values with a one-line message
 * (commander turns them into exit 2), and the options every report-writing command has.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import type { SimilarityLevel } from '../analyze/types.js';
import { FORMATS, type FormatName } from '../report/index.js';
import type { PathMapping } from '../report/types.js';
import type { Severity } from '../rules/types.js';

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

/** What every report-writing command accepts. */
export interface ReportFlags {
  format: FormatName;
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
  failOn?: Severity;
}

export function addReportOptions(cmd: Command, o: { stacks?: boolean; format?: FormatName } = {}): Command {
  cmd
    .addOption(new Option('-f, --format <name>', 'output format').choices([...FORMATS]).default(o.format ?? 'table'))
    .option('-o, --output <file>', 'write the report to FILE (atomically) instead of stdout')
    .option('--top <n>', 'groups shown in table and markdown output (default 10)', positiveInt)
    .option('--match <regex>', 'show only groups with a frame whose function or file matches', regex)
    .addOption(new Option('--level <level>', 'how stacks are grouped').choices(['exact', 'functions']).default('exact'))
    .option('--path-prefix <old=new>', 'map a path prefix in sarif/github/junit locations (repeatable)', pathPrefix);
  if (o.stacks) cmd.option('--stacks', "print each top group's stack");
  return cmd;
}

export function addRulesOptions(cmd: Command): Command {
  return cmd
    .option('--rules <file>', 'config file with rules, overrides, suppressions and gate limits (default: .leakscope.yaml found upward)')
    .option('--no-rules', 'do not run the rules');
}
