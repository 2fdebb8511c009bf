/**
 * A sample's main.go changed by `edit`, written alone into a new temporary checkout: what a test of
 * `--source` needs to show that one fact of the source changes the cause. Edits keep the dump's lines
 * where they are (one line changed in place), or the source no longer matches the dump.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';

export function editedMain(sampleDir: string, edit: (src: string) => string): string {
  const src = readFileSync(join(sampleDir, 'main.go'), 'utf8');
  const out = edit(src);
  expect(out, 'the edit changes nothing').not.toBe(src);
  const dir = mkdtempSync(join(tmpdir(), 'leakscope-source-'));
  writeFileSync(join(dir, 'main.go'), out);
  return dir;
}
