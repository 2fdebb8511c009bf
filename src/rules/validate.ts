/**
 * Parse YAML/JSON text and validate it against a schema, with every problem named by file, line and
 * field: `.leakscope.yaml:12: rules[2].match.minCount: must be integer`. The line comes from the YAML
 * node at the failing JSON path (JSON is parsed as YAML too, so the same mapping serves both).
 */
import { createRequire } from 'node:module';
import type { Ajv as AjvType, ErrorObject, ValidateFunction } from 'ajv';
import type { Document, Node } from 'yaml';
import { configSchema, packSchema } from './schema.js';
import { textOrder } from './collate.js';

// ajv and yaml cost ~130 ms to load; every run without a user config or pack file skips them (the
// built-in packs ship pre-validated as JSON), so they are loaded on first use.
const require = createRequire(import.meta.url);
const ajvModule = () => require('ajv') as typeof import('ajv');
const yamlModule = () => require('yaml') as typeof import('yaml');

/** One problem in a config or pack file. */
export interface ValidationIssue {
  readonly file: string;
  /** 1-based; 0 when the position is unknown. */
  readonly line: number;
  /** `rules[2].match.minCount`; '' for the document itself. */
  readonly field: string;
  readonly message: string;
}

export function formatIssue(i: ValidationIssue): string {
  const where = i.line > 0 ? `${i.file}:${i.line}` : i.file;
  return i.field ? `${where}: ${i.field}: ${i.message}` : `${where}: ${i.message}`;
}

let ajv: AjvType | undefined;
const compiled = new Map<string, ValidateFunction>();

function validator(kind: 'config' | 'pack'): ValidateFunction {
  let v = compiled.get(kind);
  if (v) return v;
  if (!ajv) {
    ajv = new (ajvModule().Ajv)({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
    ajv.addFormat('regex', { type: 'string', validate: isRegex });
  }
  v = ajv.compile(kind === 'config' ? configSchema : packSchema);
  compiled.set(kind, v);
  return v;
}

export function isRegex(s: string): boolean {
  try {
    new RegExp(s);
    return true;
  } catch {
    return false;
  }
}

/** A parsed document: its plain value and a way to find the line of a path. */
export interface ParsedText {
  readonly value: unknown;
  readonly issues: ValidationIssue[];
  /** Line of the node at `path` (or of its nearest existing ancestor). */
  lineOf(path: readonly (string | number)[], key?: boolean): number;
}

/** Parse YAML or JSON text; syntax errors become issues with their line. */
export function parseText(text: string, file: string): ParsedText {
  const { LineCounter, parseDocument, isMap, isSeq } = yamlModule();
  const lc = new LineCounter();
  const doc: Document = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  const issues: ValidationIssue[] = doc.errors.map((e) => ({
    file,
    line: e.linePos?.[0]?.line ?? (e.pos ? lc.linePos(e.pos[0]).line : 0),
    field: '',
    message: e.message.split('\n')[0],
  }));
  const lineOf = (path: readonly (string | number)[], key = false): number => {
    let node: unknown = doc.contents;
    let line = node && (node as Node).range ? lc.linePos((node as Node).range![0]).line : 1;
    for (const seg of path) {
      if (isMap(node)) {
        const pair = node.items.find((p) => String((p.key as { value?: unknown })?.value ?? p.key) === String(seg));
        if (!pair) break;
        const k = pair.key as Node | undefined;
        const v = pair.value as Node | undefined;
        const target = key || !v?.range ? k : v;
        if (target?.range) line = lc.linePos(target.range[0]).line;
        node = pair.value;
      } else if (isSeq(node) && typeof seg === 'number') {
        const item = node.items[seg] as Node | undefined;
        if (!item) break;
        if (item.range) line = lc.linePos(item.range[0]).line;
        node = item;
      } else break;
    }
    return line;
  };
  return { value: issues.length ? undefined : doc.toJS({ maxAliasCount: 100 }), issues, lineOf };
}

/** `/rules/2/match/minCount` → ['rules', 2, 'match', 'minCount']. */
function segments(instancePath: string): (string | number)[] {
  if (!instancePath) return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/** ['rules', 2, 'match'] → `rules[2].match`; keys that are not identifiers are quoted. */
export function fieldName(path: readonly (string | number)[]): string {
  let out = '';
  for (const s of path) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(s)) out += out ? `.${s}` : s;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

function issueOf(e: ErrorObject, parsed: ParsedText, file: string): ValidationIssue {
  const path = segments(e.instancePath);
  const p = e.params as Record<string, unknown>;
  if (e.keyword === 'additionalProperties') {
    const key = String(p.additionalProperty);
    const full = [...path, key];
    return { file, line: parsed.lineOf(full, true), field: fieldName(full), message: 'unknown key' };
  }
  if (e.keyword === 'required') {
    const full = [...path, String(p.missingProperty)];
    return { file, line: parsed.lineOf(path), field: fieldName(full), message: 'is required' };
  }
  let message = e.message ?? 'is invalid';
  if (e.keyword === 'enum') message = `must be one of ${(p.allowedValues as unknown[]).map((x) => JSON.stringify(x)).join(', ')}`;
  if (e.keyword === 'format' && p.format === 'regex') message = 'must be a valid regular expression';
  return { file, line: parsed.lineOf(path), field: fieldName(path), message };
}

/** Drop the noise ajv adds for `anyOf`/`oneOf` when a more specific error at the same path exists. */
function prune(errors: ErrorObject[]): ErrorObject[] {
  const specific = errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf');
  const out: ErrorObject[] = [];
  const seen = new Set<string>();
  for (const e of specific.length ? specific : errors) {
    // anyOf: [enum, array] reports both branches; keep the first per path.
    const k = `${e.instancePath}|${e.keyword === 'type' || e.keyword === 'enum' ? 'shape' : e.keyword}|${JSON.stringify(e.params)}`;
    const shapeKey = `${e.instancePath}|shape`;
    if (seen.has(k) || ((e.keyword === 'type' || e.keyword === 'enum') && seen.has(shapeKey))) continue;
    seen.add(k);
    if (e.keyword === 'type' || e.keyword === 'enum') seen.add(shapeKey);
    out.push(e);
  }
  // A suppression missing all of func/file/group/site yields only `anyOf` + `required`s: say it once.
  return out;
}

/** Validate a parsed document; issues are sorted by line. */
export function validateParsed(kind: 'config' | 'pack', parsed: ParsedText, file: string): ValidationIssue[] {
  if (parsed.issues.length) return parsed.issues;
  const v = validator(kind);
  if (v(parsed.value ?? {})) return [];
  const errs = prune(v.errors ?? []);
  const anyOfSuppress = (v.errors ?? []).filter((e) => e.keyword === 'anyOf' && /^\/suppress\/\d+$/.test(e.instancePath));
  const issues = errs
    .filter((e) => !(anyOfSuppress.length && e.keyword === 'required' && /^\/suppress\/\d+$/.test(e.instancePath) &&
      ['func', 'file', 'group', 'site'].includes(String((e.params as Record<string, unknown>).missingProperty))))
    .map((e) => issueOf(e, parsed, file));
  for (const e of anyOfSuppress) {
    const path = segments(e.instancePath);
    issues.push({ file, line: parsed.lineOf(path), field: fieldName(path), message: 'needs one of func, file, site or group' });
  }
  return issues.sort((a, b) => a.line - b.line || textOrder(a.field, b.field));
}
