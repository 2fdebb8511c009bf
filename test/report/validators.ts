/**
 * Real validators for the report formats: ajv with the official SARIF 2.1.0 schema (vendored in
 * schemas/, see its README) and with leakscope's own JSON schema, and a small XML well-formedness
 * checker for JUnit (no XML parser is installed, and one is not worth a dependency for this).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { reportJsonSchema } from '../../src/report/json-schema.js';
import { REPO } from '../helpers/paths.js';

export const SARIF_SCHEMA_PATH = join(REPO, 'test', 'report', 'schemas', 'sarif-schema-2.1.0.json');

/**
 * RFC 3986 `URI-reference` / `URI`, checked by hand (ajv-formats is not installed): only characters
 * a URI may hold, `%` followed by two hex digits, a valid scheme when there is one, and no `:` in the
 * first segment of a relative reference.
 */
function uriReference(s: string): boolean {
  if (!/^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?#]|%[0-9A-Fa-f]{2})*$/.test(s)) return false;
  const scheme = s.match(/^([^/?#:]*):/);
  if (scheme) return /^[A-Za-z][A-Za-z0-9+.-]*$/.test(scheme[1]);
  return true;
}

function uri(s: string): boolean {
  return uriReference(s) && /^[A-Za-z][A-Za-z0-9+.-]*:/.test(s);
}

/** RFC 3339 date-time. */
function dateTime(s: string): boolean {
  return /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s));
}

let sarif: ValidateFunction | undefined;

/**
 * The SARIF schema is JSON Schema draft-04. Ajv 8 implements draft-07, which keeps the meaning of every
 * keyword this schema uses (type, properties, additionalProperties, required, enum, items, minItems,
 * uniqueItems, minimum/maximum, pattern, format, anyOf, oneOf, $ref, default, description); the only
 * draft-04 spellings in it are the root `id` (draft-07: `$id`) and its draft-04 `$schema`, which are
 * mapped here. It has no boolean `exclusiveMinimum`/`exclusiveMaximum`, the one draft-04 keyword whose
 * meaning changed.
 */
export function sarifValidator(): ValidateFunction {
  if (sarif) return sarif;
  const raw = JSON.parse(readFileSync(SARIF_SCHEMA_PATH, 'utf8')) as Record<string, unknown>;
  const text = JSON.stringify(raw);
  if (/"exclusiveM(in|ax)imum"\s*:\s*(true|false)/.test(text)) throw new Error('schema uses draft-04 boolean exclusive bounds');
  const { id, $schema: _draft04, ...rest } = raw;
  const ajv = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true });
  ajv.addFormat('uri', uri);
  ajv.addFormat('uri-reference', uriReference);
  ajv.addFormat('date-time', dateTime);
  sarif = ajv.compile({ ...rest, $id: id as string });
  return sarif;
}

let report: ValidateFunction | undefined;

export function reportValidator(): ValidateFunction {
  if (!report) {
    const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
    report = ajv.compile(reportJsonSchema);
  }
  return report;
}

export function errorsText(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).slice(0, 10).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`).join('\n');
}

/**
 * XML 1.0 well-formedness, enough for JUnit: one root element, every tag closed in order, attributes
 * quoted and unique, `&` only in the five predefined entities or character references, `<` never in
 * text or attribute values, only characters XML allows.
 */
export function checkXml(xml: string): void {
  // eslint-disable-next-line no-control-regex
  const bad = xml.match(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/);
  if (bad) throw new Error(`character U+${bad[0].charCodeAt(0).toString(16)} not allowed in XML`);
  let i = 0;
  const stack: string[] = [];
  let roots = 0;
  const checkText = (t: string, where: string) => {
    for (const m of t.matchAll(/&([^;]*);?/g)) {
      if (!/^(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+)$/.test(m[1]) || !m[0].endsWith(';')) throw new Error(`bad entity ${m[0]} in ${where}`);
    }
  };
  if (xml.startsWith('<?xml')) i = xml.indexOf('?>') + 2;
  while (i < xml.length) {
    const lt = xml.indexOf('<', i);
    const text = xml.slice(i, lt === -1 ? xml.length : lt);
    if (stack.length === 0 && text.trim() !== '') throw new Error(`text outside the root: ${text.slice(0, 40)}`);
    checkText(text, 'text');
    if (text.includes('>') && text.includes(']]>')) throw new Error(']]> in text');
    if (lt === -1) break;
    const gt = xml.indexOf('>', lt);
    if (gt === -1) throw new Error('unterminated tag');
    const tag = xml.slice(lt + 1, gt);
    if (tag.startsWith('/')) {
      const name = tag.slice(1).trim();
      if (stack.pop() !== name) throw new Error(`closing </${name}> does not match`);
    } else {
      const selfClosing = tag.endsWith('/');
      const body = selfClosing ? tag.slice(0, -1) : tag;
      const m = body.match(/^([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*\s*=\s*(?:"[^"<]*"|'[^'<]*'))*)\s*$/);
      if (!m) throw new Error(`malformed tag <${tag.slice(0, 60)}>`);
      const names = new Set<string>();
      for (const a of m[2].matchAll(/([A-Za-z_][\w.-]*)\s*=\s*("[^"]*"|'[^']*')/g)) {
        if (names.has(a[1])) throw new Error(`duplicate attribute ${a[1]}`);
        names.add(a[1]);
        checkText(a[2], `attribute ${a[1]}`);
      }
      if (stack.length === 0) roots++;
      if (!selfClosing) stack.push(m[1]);
    }
    i = gt + 1;
  }
  if (stack.length) throw new Error(`unclosed <${stack[stack.length - 1]}>`);
  if (roots !== 1) throw new Error(`expected one root element, found ${roots}`);
}
