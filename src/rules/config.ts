/**
 * User config: `.leakscope.yaml` / `.leakscope.yml` / `.leakscope.json`, found from the working
 * directory upward, or the file given with `--rules FILE`. YAML or JSON, validated by the strict schema
 * of `src/rules/schema.ts` (unknown keys rejected), then checked against the rules it refers to. Every
 * problem names file, line and field: `.leakscope.yaml:12: rules[2].match.minCount: must be integer`.
 * A `ConfigError` maps to exit code 2.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { DETECTORS } from './detectors/index.js';
import { knownRuleIds } from './packs.js';
import type { LeakscopeConfig } from './types.js';
import { ConfigError } from './config-error.js';
import { fieldName, parseText, validateParsed, type ParsedText, type ValidationIssue } from './validate.js';

export { ConfigError, isConfigError } from './config-error.js';

/** Looked for in this order in each directory, from the working directory up to the root. */
export const CONFIG_NAMES = ['.leakscope.yaml', '.leakscope.yml', '.leakscope.json'] as const;

export interface LoadConfigOptions {
  /** Where discovery starts; default `process.cwd()`. */
  cwd?: string;
  /** `--rules FILE`: use this file, no discovery. */
  file?: string;
}

export interface LoadedConfig {
  readonly config: LeakscopeConfig;
  /** Absolute path of the file read; undefined when none was found. */
  readonly path?: string;
}

/** The first config file from `cwd` upward, or undefined. */
export function findConfig(cwd: string): string | undefined {
  let dir = resolve(cwd);
  for (;;) {
    for (const name of CONFIG_NAMES) {
      const p = join(dir, name);
      if (existsSync(p) && statSync(p).isFile()) return p;
    }
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

export function loadConfig(opts: LoadConfigOptions = {}): LoadedConfig {
  const cwd = resolve(opts.cwd ?? process.cwd());
  const path = opts.file ? (isAbsolute(opts.file) ? opts.file : resolve(cwd, opts.file)) : findConfig(cwd);
  if (!path) return { config: {} };
  const shown = displayName(cwd, path, opts.file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : `cannot be read (${code ?? String(e)})`;
    throw new ConfigError(shown, [{ file: shown, line: 0, field: '', message: why }]);
  }
  return { config: parseConfig(text, shown), path };
}

/** Validate config text; throws `ConfigError` naming `file` (as given) in every message. */
export function parseConfig(text: string, file: string): LeakscopeConfig {
  if (!text.trim()) return {};
  const parsed = parseText(text, file);
  let issues = validateParsed('config', parsed, file);
  if (!issues.length) issues = checkReferences(parsed, file);
  if (issues.length) throw new ConfigError(file, issues);
  return (parsed.value ?? {}) as LeakscopeConfig;
}

/** What the schema cannot know: rule ids in `overrides`/`disable`, detector names, duplicate ids. */
function checkReferences(parsed: ParsedText, file: string): ValidationIssue[] {
  const config = (parsed.value ?? {}) as LeakscopeConfig;
  const known = knownRuleIds(config);
  const issues: ValidationIssue[] = [];
  const at = (path: (string | number)[], message: string, key = false) =>
    issues.push({ file, line: parsed.lineOf(path, key), field: fieldName(path), message });
  for (const id of Object.keys(config.overrides ?? {})) {
    if (!known.has(id)) at(['overrides', id], unknownId(id, known), true);
  }
  (config.disable ?? []).forEach((id, i) => {
    if (!known.has(id)) at(['disable', i], unknownId(id, known));
  });
  const seen = new Map<string, number>();
  (config.rules ?? []).forEach((r, i) => {
    const prev = seen.get(r.id);
    if (prev !== undefined) at(['rules', i, 'id'], `duplicate rule id (also rules[${prev}])`);
    seen.set(r.id, i);
    const names = r.detector === undefined ? [] : Array.isArray(r.detector) ? r.detector : [r.detector];
    names.forEach((n, j) => {
      if (!DETECTORS[n]) {
        const path = Array.isArray(r.detector) ? ['rules', i, 'detector', j] : ['rules', i, 'detector'];
        at(path, `unknown detector "${n}" (known: ${Object.keys(DETECTORS).sort().join(', ')})`);
      }
    });
    if (!r.match && !names.length) at(['rules', i], 'needs `match` or `detector`');
  });
  return issues.sort((a, b) => a.line - b.line);
}

function unknownId(id: string, known: Set<string>): string {
  let best: string | undefined;
  let bestD = 4;
  for (const k of known) {
    const d = distance(id, k);
    if (d < bestD) [best, bestD] = [k, d];
  }
  return `unknown rule id "${id}"${best ? ` (did you mean "${best}"?)` : ''}`;
}

/** Edit distance, for "did you mean". */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

function displayName(cwd: string, path: string, given?: string): string {
  if (given && !isAbsolute(given)) return given;
  const rel = relative(cwd, path);
  return rel && rel.length < path.length ? rel : path;
}
