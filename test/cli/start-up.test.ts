/**
 * What a start of the CLI parses: `--version`, `--help` and usage errors need only the commands'
 * definitions (commander and the options), so the bundle's main.js and the chunks it imports
 * statically hold no reading, analysis or rules code and load no node:crypto; the commands' actions
 * load those when they run (src/cli/actions.ts), and the actions load the glob walker only for folder
 * and glob inputs (src/cli/inputs.ts). Read from the built bundle and its source maps.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, run } from './run.js';

const DIR = dirname(BIN);
const STATIC = /(?:from|import)\s*"(\.\/[^"]+\.js)"/g;
const DYNAMIC = /import\("(\.\/[^"]+\.js)"\)/g;

/** The files a start loads before any action runs: main.js and what it imports statically, transitively. */
function staticallyLoaded(): string[] {
  const seen = new Set<string>(['main.js']);
  for (const f of seen) for (const m of readFileSync(join(DIR, f), 'utf8').matchAll(STATIC)) seen.add(m[1].slice(2));
  return [...seen];
}

/** Source files of a bundle file, from its source map (`src/read/index.ts`, `node_modules/…`). */
function sourcesOf(file: string): string[] {
  const map = JSON.parse(readFileSync(join(DIR, `${file}.map`), 'utf8')) as { sources: string[] };
  return map.sources.map((s) => s.replace(/^(\.\.\/)+/, ''));
}

describe('CLI start-up', () => {
  beforeAll(ensureBuilt, 240_000);

  it('parses no reading, analysis or rules code before a command runs', () => {
    const files = staticallyLoaded();
    const sources = files.flatMap(sourcesOf);
    expect(sources).toContain('src/cli/main.ts');
    expect(sources).toContain('src/cli/commands/inspect.ts');
    for (const heavy of ['src/read/index.ts', 'src/analyze/index.ts', 'src/rules/engine.ts', 'src/rules/config.ts', 'src/cli/pipeline.ts', 'src/cli/actions.ts']) {
      expect(sources, heavy).not.toContain(heavy);
    }
    for (const f of files) expect(readFileSync(join(DIR, f), 'utf8'), f).not.toMatch(/from\s*"node:crypto"/);
  });

  it('parses no glob walker (tinyglobby, fdir, picomatch) with the actions: only folder and glob inputs load it', () => {
    const actions = staticallyLoaded().flatMap((f) => [...readFileSync(join(DIR, f), 'utf8').matchAll(DYNAMIC)].map((m) => m[1].slice(2)));
    const withActions = new Set(actions.filter((f) => sourcesOf(f).includes('src/cli/actions.ts')));
    for (const f of withActions) for (const m of readFileSync(join(DIR, f), 'utf8').matchAll(STATIC)) withActions.add(m[1].slice(2));
    const sources = [...withActions].flatMap(sourcesOf);
    expect(sources).toContain('src/cli/inputs.ts');
    for (const walker of ['node_modules/tinyglobby', 'node_modules/fdir', 'node_modules/picomatch']) {
      expect(sources.filter((s) => s.startsWith(walker)), walker).toEqual([]);
    }
  });

  it('loads the actions when a command runs', async () => {
    const lazy = staticallyLoaded().flatMap((f) => [...readFileSync(join(DIR, f), 'utf8').matchAll(DYNAMIC)].map((m) => m[1].slice(2)));
    expect(lazy.flatMap(sourcesOf)).toContain('src/cli/actions.ts');
    const r = await run(['inspect', join(DIR, '..', '..', 'samples', 'lock-pileup', 'goroutine.debug1.txt')]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/core\/lock-pileup/);
  });
});
