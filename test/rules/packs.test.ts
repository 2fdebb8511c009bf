/**
 * The built-in packs are valid data: they pass the schema, their ids are unique, every detector they
 * name exists, every template placeholder is bound, and `rules/leakscope.schema.json` (for editors)
 * equals the schema in code. `LEAKSCOPE_UPDATE_SCHEMA=1 npx vitest run test/rules/packs.test.ts`
 * rewrites the JSON file.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { templateVars, placeholders, render } from '../../src/rules/evidence.js';
import { BUILTIN_PACKS, builtinPack, DETECTORS, parsePack, RULES_DIR, schemaDocument } from '../../src/rules/index.js';
import { analysis, group } from './build.js';

const rules = BUILTIN_PACKS.flatMap((p) => builtinPack(p).rules);

describe('built-in packs', () => {
  it('load and validate, with unique ids prefixed by their pack', () => {
    for (const p of BUILTIN_PACKS) for (const r of builtinPack(p).rules) expect(r.id.startsWith(`${p}/`)).toBe(true);
    expect(new Set(rules.map((r) => r.id)).size).toBe(rules.length);
    expect(rules.length).toBeGreaterThanOrEqual(20);
  });

  it('name only existing detectors, and every rule has a match or a detector', () => {
    for (const r of rules) {
      const names = r.detector === undefined ? [] : Array.isArray(r.detector) ? r.detector : [r.detector];
      for (const n of names) expect(DETECTORS[n], `${r.id}: ${n}`).toBeDefined();
      expect(r.match !== undefined || names.length > 0, r.id).toBe(true);
    }
  });

  it('bind every placeholder of every template and variant', () => {
    const g = group({ count: 1, waitKind: 'chan-send', frames: ['main.f @ /m.go:1'] });
    const base = Object.keys(templateVars(analysis([g]), g, [], 1, 1));
    for (const r of rules) {
      const names = r.detector === undefined ? [] : Array.isArray(r.detector) ? r.detector : [r.detector];
      const known = new Set([...base, ...names.flatMap((n) => DETECTORS[n].vars ?? [])]);
      const texts = [r.title, r.explanation, r.cause, r.fix, ...Object.values(r.variants ?? {}).flatMap((v) => [v.title, v.explanation, v.cause, v.fix])];
      for (const t of texts) for (const p of placeholders(t ?? '')) expect(known.has(p), `${r.id}: {${p}}`).toBe(true);
    }
  });

  it('say one of what they count in the singular', () => {
    const t = '{count} requests wait at {site}; {count} HTTP handlers read; {count} connections wait for {count} goroutines';
    expect(render(t, { count: '1', site: 'main.go:50' })).toBe('1 request waits at main.go:50; 1 HTTP handler read; 1 connection waits for 1 goroutine');
    // Only a count of exactly one: 11, 2,001 and 0.1 keep the plural.
    expect(render(t, { count: '11', site: 'a.go:1' })).toBe('11 requests wait at a.go:1; 11 HTTP handlers read; 11 connections wait for 11 goroutines');
    expect(render('{n} requests wait', { n: '2,001' })).toBe('2,001 requests wait');
  });

  it('tells a broken pack file by line and field', () => {
    const bad = () => parsePack('pack: acme\nrules:\n  - id: acme/x\n    severity: loud\n', 'acme.yaml');
    expect(bad).toThrow('acme.yaml:3: rules[0].category: is required\n');
    expect(bad).toThrow('acme.yaml:4: rules[0].severity: must be one of "error", "warning", "info"');
  });

  it('ship the schema for editors, equal to the one in code', () => {
    const file = join(RULES_DIR, 'leakscope.schema.json');
    const want = `${JSON.stringify(schemaDocument(), null, 2)}\n`;
    if (process.env.LEAKSCOPE_UPDATE_SCHEMA) writeFileSync(file, want);
    expect(readFileSync(file, 'utf8')).toBe(want);
  });
});
