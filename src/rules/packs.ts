/**
 * Built-in rule packs are data: `rules/<pack>.yaml` at the package root (shipped: package.json
 * `files` has `rules`). They are validated by the same schema as user rules when first loaded.
 * `resolveRules` applies a user config: packs to use, overrides by id, disabled ids, added rules.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ResolvedRule } from './candidate.js';
import type { LeakscopeConfig, Rule, RuleOverride, RulePack } from './types.js';
import { formatIssue, parseText, validateParsed } from './validate.js';

export const BUILTIN_PACKS = ['core', 'kubernetes'] as const;
export type BuiltinPack = (typeof BUILTIN_PACKS)[number];

/** `<package root>/rules/`: `src/rules/packs.ts` and `dist/rules/packs.js` are both two levels down. */
export const RULES_DIR = fileURLToPath(new URL('../../rules/', import.meta.url));

const loaded = new Map<string, RulePack>();

/** Parse and validate one pack file's text (also used for user pack files). */
export function parsePack(text: string, file: string): RulePack {
  const parsed = parseText(text, file);
  const issues = validateParsed('pack', parsed, file);
  if (issues.length) throw new Error(`invalid rule pack:\n${issues.map(formatIssue).join('\n')}`);
  return parsed.value as RulePack;
}

/** Parse and validate a built-in pack from its YAML source (`rules/<name>.yaml`). */
export function parseBuiltinPackSource(name: BuiltinPack): RulePack {
  const file = `${RULES_DIR}${name}.yaml`;
  return parsePack(readFileSync(file, 'utf8'), file);
}

/**
 * `npm run build` writes the packs, validated, as JSON beside the compiled module
 * (scripts/compile-packs.mjs); running from source (tests) reads the YAML.
 */
const COMPILED = fileURLToPath(new URL('./builtin-packs.json', import.meta.url));

export function builtinPack(name: BuiltinPack): RulePack {
  let p = loaded.get(name);
  if (!p) {
    if (existsSync(COMPILED)) {
      const all = JSON.parse(readFileSync(COMPILED, 'utf8')) as Record<string, RulePack>;
      for (const [k, v] of Object.entries(all)) loaded.set(k, v);
      p = loaded.get(name);
    }
    if (!p) {
      p = parseBuiltinPackSource(name);
      loaded.set(name, p);
    }
  }
  return p;
}

export function builtinRules(packs: readonly BuiltinPack[] = BUILTIN_PACKS): ResolvedRule[] {
  return packs.flatMap((name) => builtinPack(name).rules.map((r) => ({ ...r, pack: name })));
}

function applyOverride(r: ResolvedRule, o: RuleOverride): ResolvedRule {
  return {
    ...r,
    ...(o.enabled !== undefined ? { enabled: o.enabled } : {}),
    ...(o.severity ? { severity: o.severity } : {}),
    ...(o.levels ? { levels: o.levels } : {}),
    ...(o.match ? { match: { ...r.match, ...o.match } } : {}),
    ...(o.require ? { require: { ...r.require, ...o.require } } : {}),
    ...(o.params ? { params: { ...r.params, ...o.params } } : {}),
    ...(o.title ? { title: o.title } : {}),
    ...(o.explanation ? { explanation: o.explanation } : {}),
    ...(o.cause ? { cause: o.cause } : {}),
    ...(o.fix ? { fix: o.fix } : {}),
  };
}

/**
 * The rules in effect: built-in packs (or those named in `config.packs`), then `extra` packs, with user
 * rules replacing built-ins of the same id, then overrides and `disable` applied by id.
 */
export function resolveRules(config: LeakscopeConfig = {}, extra: readonly RulePack[] = []): ResolvedRule[] {
  let rules = builtinRules(config.packs ?? BUILTIN_PACKS);
  const add = (list: readonly Rule[], pack: string) => {
    for (const r of list) {
      const i = rules.findIndex((x) => x.id === r.id);
      const rr = { ...r, pack };
      if (i >= 0) rules[i] = rr;
      else rules.push(rr);
    }
  };
  for (const p of extra) add(p.rules, p.pack);
  add(config.rules ?? [], 'user');
  const overrides = config.overrides ?? {};
  rules = rules.map((r) => (overrides[r.id] ? applyOverride(r, overrides[r.id]) : r));
  const off = new Set(config.disable ?? []);
  return rules.map((r) => (off.has(r.id) ? { ...r, enabled: false } : r));
}

/** Every rule id known with this config (for checking `overrides`/`disable` keys). */
export function knownRuleIds(config: LeakscopeConfig = {}): Set<string> {
  const ids = new Set(builtinRules().map((r) => r.id));
  for (const r of config.rules ?? []) ids.add(r.id);
  return ids;
}
