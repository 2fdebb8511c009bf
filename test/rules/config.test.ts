/**
 * User config: discovery from the working directory upward, `--rules FILE`, YAML and JSON, strict
 * validation with file:line:field errors (fixtures/malformed-*), and what a config changes in the
 * findings (overrides, disable, added rules, suppressions).
 */
import { mkdirSync, mkdtempSync, copyFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, findConfig, loadConfig, parseConfig } from '../../src/rules/config.js';
import { runRules } from '../../src/rules/index.js';
import { analysis, group } from './build.js';

const FIX = join(import.meta.dirname, 'fixtures');

function errorOf(file: string): ConfigError {
  try {
    loadConfig({ cwd: FIX, file });
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error(`${file} loaded without error`);
}

describe('config errors name file, line and field', () => {
  it.each([
    ['malformed-type.yaml', ['malformed-type.yaml:9: rules[0].match.minCount: must be integer']],
    ['malformed-unknown-key.yaml', ['malformed-unknown-key.yaml:4: overrides["core/blocked-send"].treshold: unknown key']],
    ['malformed-syntax.yaml', ['malformed-syntax.yaml:4: All sequence items must start at the same column']],
    [
      'malformed-references.yaml',
      [
        'malformed-references.yaml:2: overrides["core/blocked-sends"]: unknown rule id "core/blocked-sends" (did you mean "core/blocked-send"?)',
        'malformed-references.yaml:6: disable[1]: unknown rule id "kubernetes/no-such-rule"',
        /^malformed-references\.yaml:11: rules\[0\]\.detector: unknown detector "telepathy"/,
      ],
    ],
    [
      'malformed-suppress.yaml',
      [
        'malformed-suppress.yaml:2: suppress[0].func: must be a valid regular expression',
        'malformed-suppress.yaml:4: suppress[1].reason: is required',
        'malformed-suppress.yaml:5: suppress[2]: needs one of func, file, site or group',
        'malformed-suppress.yaml:7: gate.failOn: must be one of "error", "warning", "info"',
        'malformed-suppress.yaml:8: gate.maxTotal: must be >= 0',
      ],
    ],
    [
      'malformed-enum.json',
      [
        'malformed-enum.json:2: packs[1]: must be one of "core", "kubernetes"',
        'malformed-enum.json:7: rules[0].severity: must be one of "error", "warning", "info"',
        /^malformed-enum\.json:8: rules\[0\]\.match\.waitKind: must be one of "chan-send"/,
      ],
    ],
  ] as const)('%s', (file, expected) => {
    const e = errorOf(file);
    expect(e.exitCode).toBe(2);
    expect(e.file).toBe(file);
    const lines = e.message.split('\n');
    expect(lines).toHaveLength(expected.length);
    expected.forEach((x, i) => (typeof x === 'string' ? expect(lines[i]).toBe(x) : expect(lines[i]).toMatch(x)));
  });

  it('says when --rules names a missing file', () => {
    expect(errorOf('nope.yaml').message).toBe('nope.yaml: no such file');
  });

  it('rejects unknown top-level keys (strict)', () => {
    expect(() => parseConfig('rulez: []\n', 'x.yaml')).toThrow('x.yaml:1: rulez: unknown key');
  });
});

describe('config discovery', () => {
  it('finds .leakscope.yaml from a nested working directory upward, and none elsewhere', () => {
    const root = mkdtempSync(join(tmpdir(), 'leakscope-cfg-'));
    const deep = join(root, 'svc', 'cmd', 'api');
    mkdirSync(deep, { recursive: true });
    copyFileSync(join(FIX, 'project', '.leakscope.yaml'), join(root, '.leakscope.yaml'));
    const { config, path } = loadConfig({ cwd: deep });
    expect(path).toBe(join(root, '.leakscope.yaml'));
    expect(config.gate).toEqual({ maxTotal: 10000, maxGroup: 2000, maxGrowth: 0.5, failOn: 'error' });
    // A nearer .leakscope.json wins; an empty file is an empty config.
    writeFileSync(join(root, 'svc', '.leakscope.json'), '{"disable": ["core/race"]}');
    expect(loadConfig({ cwd: deep }).config).toEqual({ disable: ['core/race'] });
    writeFileSync(join(root, 'svc', 'cmd', '.leakscope.yml'), '');
    expect(loadConfig({ cwd: deep })).toMatchObject({ config: {} });
    expect(findConfig(tmpdir()) === undefined || !findConfig(tmpdir())!.startsWith(root)).toBe(true);
  });

  it('reports a discovered file relative to the working directory', () => {
    const root = mkdtempSync(join(tmpdir(), 'leakscope-cfg-'));
    mkdirSync(join(root, 'sub'));
    writeFileSync(join(root, '.leakscope.yaml'), 'disable:\n  - core/nope\n');
    expect(() => loadConfig({ cwd: join(root, 'sub') })).toThrow('../.leakscope.yaml:2: disable[0]: unknown rule id "core/nope"');
  });
});

describe('what a config changes', () => {
  const { config } = loadConfig({ cwd: FIX, file: 'project/.leakscope.yaml' });
  const send = (count: number, fn: string) =>
    group({ count, waitKind: 'chan-send', state: 'chan send', frames: [`${fn} @ /w/x.go:10`] });

  it('overrides levels of a built-in rule by id', () => {
    const a = analysis([send(3, 'example.com/svc.emit')]);
    expect(runRules(a)[0].severity).toBe('warning');
    const custom = runRules(a, { config: { overrides: { 'core/blocked-send': { levels: [{ severity: 'error', when: { minCount: 3 } }] } } } });
    expect(custom[0].severity).toBe('error');
  });

  it('adds user rules, which win over built-ins on the same group', () => {
    const f = runRules(analysis([send(4, 'example.com/acme/queue.(*Q).Enqueue')]), { config });
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ ruleId: 'acme/queue-backlog', severity: 'error', pack: 'user' });
    expect(f[0].title).toBe('4 producers stuck on the acme queue at x.go:10');
  });

  it('suppresses known-benign groups by function regex, and disables rules', () => {
    const tick = group({
      count: 3000,
      waitKind: 'select',
      state: 'select',
      frames: ['example.com/acme/cron.(*Scheduler).tick @ /w/cron/s.go:40'],
      creator: 'example.com/acme/cron.New @ /w/cron/s.go:12',
    });
    const a = analysis([tick]);
    expect(runRules(a).map((f) => f.ruleId)).toEqual(['core/unstopped-loop']);
    expect(runRules(a, { config })).toEqual([]);
    expect(runRules(a, { config: { disable: ['core/unstopped-loop', 'core/dominant-group'] } })).toEqual([]);
    expect(runRules(a, { config: { suppress: [{ group: tick.id, reason: 'known' }] } })).toEqual([]);
  });
});
