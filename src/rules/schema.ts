/**
 * JSON Schemas of rule packs (`rules/*.yaml`) and of the user config (`.leakscope.yaml`), strict:
 * unknown keys are rejected. Mirrored to `rules/leakscope.schema.json` for editors (a test keeps the
 * two equal). Validation goes through ajv in `validate.ts`.
 */
import { WAIT_KINDS } from '../model/dump.js';

const severity = { enum: ['error', 'warning', 'info'] } as const;
const regex = { type: 'string', format: 'regex', minLength: 1 } as const;
const count = { type: 'integer', minimum: 0 } as const;
const share = { type: 'number', minimum: 0, maximum: 1 } as const;
const waitKind = { enum: [...WAIT_KINDS] } as const;

const groupMatchProps = {
  waitKind: { anyOf: [waitKind, { type: 'array', items: waitKind, minItems: 1 }] },
  notWaitKind: { type: 'array', items: waitKind },
  state: regex,
  func: regex,
  allFuncs: { type: 'array', items: regex, minItems: 1 },
  notFunc: regex,
  file: regex,
  site: regex,
  siteFile: regex,
  userSite: { type: 'boolean' },
  siteAtEntry: { type: 'boolean' },
  leaf: regex,
  creator: regex,
  labels: { type: 'object', additionalProperties: regex },
  minCount: count,
  maxCount: count,
  minShare: share,
  maxShare: share,
  minWaitMinutes: count,
  maxWaitMinutes: count,
  leaked: { type: 'boolean' },
  crashed: { type: 'boolean' },
  minTotal: count,
  headlineKind: {
    type: 'array',
    items: { enum: ['panic', 'fatal-error', 'signal', 'sigquit', 'test-timeout', 'exception', 'deadlock', 'log-fatal'] },
    minItems: 1,
  },
} as const;

const levelWhenProps = {
  ...groupMatchProps,
  minConsequences: count,
  minGoroutines: count,
  variant: { type: 'string', minLength: 1 },
} as const;

const template = { type: 'string', minLength: 1 } as const;

const ruleProps = {
  id: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]*/[a-z0-9][a-z0-9._-]*$' },
  description: { type: 'string' },
  category: { enum: ['leak', 'contention', 'deadlock', 'crash', 'race', 'resource', 'info'] },
  severity,
  levels: { type: 'array', items: { $ref: '#/definitions/level' } },
  match: { $ref: '#/definitions/match' },
  require: { $ref: '#/definitions/levelWhen' },
  with: { $ref: '#/definitions/match' },
  fallback: { type: 'boolean' },
  aggregate: { type: 'boolean' },
  cascade: { type: 'boolean' },
  detector: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 }] },
  params: { $ref: '#/definitions/params' },
  variants: { type: 'object', additionalProperties: { $ref: '#/definitions/variant' } },
  title: template,
  explanation: template,
  cause: template,
  fix: template,
  enabled: { type: 'boolean' },
} as const;

export const definitions = {
  match: { type: 'object', additionalProperties: false, properties: groupMatchProps },
  levelWhen: { type: 'object', additionalProperties: false, properties: levelWhenProps },
  level: {
    type: 'object',
    additionalProperties: false,
    required: ['severity', 'when'],
    properties: { severity, when: { $ref: '#/definitions/levelWhen' } },
  },
  variant: {
    type: 'object',
    additionalProperties: false,
    properties: { severity, omit: { type: 'boolean' }, title: template, explanation: template, cause: template, fix: template },
  },
  params: {
    type: 'object',
    additionalProperties: { type: ['number', 'string', 'boolean'] },
  },
  rule: {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'category', 'severity', 'title', 'explanation', 'cause', 'fix'],
    properties: ruleProps,
  },
  /** Changes to an existing rule by id: everything optional; `match`/`params` merge key by key. */
  override: {
    type: 'object',
    additionalProperties: false,
    properties: {
      enabled: { type: 'boolean' },
      severity,
      levels: ruleProps.levels,
      match: { $ref: '#/definitions/match' },
      require: { $ref: '#/definitions/levelWhen' },
      params: { $ref: '#/definitions/params' },
      title: template,
      explanation: template,
      cause: template,
      fix: template,
    },
  },
  suppression: {
    type: 'object',
    additionalProperties: false,
    required: ['reason'],
    anyOf: [{ required: ['func'] }, { required: ['file'] }, { required: ['group'] }, { required: ['site'] }],
    properties: {
      func: regex,
      file: regex,
      site: regex,
      group: { type: 'string', minLength: 1 },
      rule: { type: 'string', minLength: 1 },
      reason: { type: 'string', minLength: 1 },
    },
  },
  gate: {
    type: 'object',
    additionalProperties: false,
    properties: {
      maxTotal: count,
      maxGroup: count,
      /** Growth between two snapshots, as a ratio (0.5 = +50%). */
      maxGrowth: { type: 'number', minimum: 0 },
      /** Most goroutines one group may gain from the baseline (it fails only when it also doubles); 0 turns it off. */
      maxGroupGrowth: { type: 'integer', minimum: 0 },
      /** Archive members skipped or read part-way allowed (0 = fail on any). */
      maxSkipped: { type: 'integer', minimum: 0 },
      failOn: severity,
    },
  },
} as const;

/** A built-in or user rule pack file. */
export const packSchema = {
  $id: 'https://leakscope.dev/schema/pack.json',
  type: 'object',
  additionalProperties: false,
  required: ['pack', 'rules'],
  properties: {
    $schema: { type: 'string' },
    pack: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]*$' },
    description: { type: 'string' },
    rules: { type: 'array', items: { $ref: '#/definitions/rule' } },
  },
  definitions,
} as const;

/** `.leakscope.yaml` / `.leakscope.json` / `--rules FILE`. */
export const configSchema = {
  $id: 'https://leakscope.dev/schema/config.json',
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    /** Built-in packs to use (default: all). */
    packs: { type: 'array', items: { enum: ['core', 'kubernetes'] }, uniqueItems: true },
    rules: { type: 'array', items: { $ref: '#/definitions/rule' } },
    overrides: { type: 'object', additionalProperties: { $ref: '#/definitions/override' } },
    disable: { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true },
    suppress: { type: 'array', items: { $ref: '#/definitions/suppression' } },
    gate: { $ref: '#/definitions/gate' },
    analyze: {
      type: 'object',
      additionalProperties: false,
      properties: {
        helperPackages: { type: 'array', items: { type: 'string', minLength: 1 } },
        userModules: { type: 'array', items: { type: 'string', minLength: 1 } },
      },
    },
  },
  definitions,
} as const;

/** Both schemas in one document, as written to `rules/leakscope.schema.json`. */
export function schemaDocument(): object {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'leakscope rule packs and config',
    oneOf: [{ $ref: '#/definitions/config' }, { $ref: '#/definitions/pack' }],
    definitions: {
      ...definitions,
      config: { ...configSchema, $id: undefined, definitions: undefined },
      pack: { ...packSchema, $id: undefined, definitions: undefined },
    },
  };
}
