/**
 * The build ships the built-in packs pre-validated as JSON (scripts/compile-packs.mjs), so that a run
 * without a user config loads neither yaml nor ajv. The JSON must be exactly what the YAML parses to.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILTIN_PACKS, parseBuiltinPackSource } from '../../src/rules/packs.js';
import { REPO } from '../helpers/paths.js';

describe('compiled built-in packs', () => {
  it('equal the validated YAML sources', () => {
    // A scratch package inside node_modules, so the compiled code resolves yaml and ajv from the repo.
    const out = mkdtempSync(join(REPO, 'node_modules', '.leakscope-packs-'));
    try {
      const tsc = join(REPO, 'node_modules/typescript/bin/tsc');
      execFileSync(process.execPath, [tsc, '-p', join(REPO, 'tsconfig.build.json'), '--outDir', join(out, 'dist')], { stdio: 'pipe' });
      cpSync(join(REPO, 'rules'), join(out, 'rules'), { recursive: true });
      cpSync(join(REPO, 'scripts'), join(out, 'scripts'), { recursive: true });
      execFileSync(process.execPath, [join(out, 'scripts/compile-packs.mjs')], { stdio: 'pipe' });
      const compiled = JSON.parse(readFileSync(join(out, 'dist/rules/builtin-packs.json'), 'utf8'));
      expect(Object.keys(compiled).sort()).toEqual([...BUILTIN_PACKS].sort());
      for (const name of BUILTIN_PACKS) expect(compiled[name]).toEqual(parseBuiltinPackSource(name));
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
