/**
 * Input expansion (src/cli/inputs.ts, tinyglobby underneath): a folder is walked recursively, its own
 * files before those of its subfolders, dot-files and dot-folders skipped, and a symbolic link loop
 * lists each real file once; globs match files only, naturally sorted.
 */
import { copyFileSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expandInputs, glob } from '../../src/cli/inputs.js';
import { SAMPLES } from '../helpers/paths.js';

function tree(): string {
  const root = mkdtempSync(join(tmpdir(), 'leakscope-inputs-'));
  mkdirSync(join(root, 'b', 'deep'), { recursive: true });
  mkdirSync(join(root, 'a'));
  mkdirSync(join(root, '.git'));
  const dump = join(SAMPLES, 'blocked-receive', 'goroutine.debug1.txt');
  for (const f of ['dump-10.txt', 'dump-2.txt', 'a/x.txt', 'b/y.txt', 'b/deep/z.txt', '.hidden', '.git/HEAD']) copyFileSync(dump, join(root, f));
  writeFileSync(join(root, 'b', 'notes.md'), 'not a dump\n');
  // b/loop → the root: a walk that follows it naively lists everything again, 40 levels deep.
  symlinkSync('..', join(root, 'b', 'loop'));
  return root;
}

describe('input expansion', () => {
  it('walks a folder: own files first (natural order), then subfolders by name; no dot entries; a link loop adds nothing', async () => {
    const root = tree();
    const files = (await expandInputs([root])).map((f) => f.path.slice(root.length + 1));
    expect(files).toEqual(['dump-2.txt', 'dump-10.txt', 'a/x.txt', 'b/notes.md', 'b/y.txt', 'b/deep/z.txt']);
    expect((await expandInputs([root])).every((f) => f.listed && f.root === root)).toBe(true);
  });

  it('globs match files only, naturally sorted, once each through links', async () => {
    const root = tree();
    expect((await glob(join(root, 'dump-*.txt'))).map((p) => p.slice(root.length + 1))).toEqual(['dump-2.txt', 'dump-10.txt']);
    expect((await glob(join(root, '**', '*.txt'))).map((p) => p.slice(root.length + 1)).sort()).toEqual(['a/x.txt', 'b/deep/z.txt', 'b/y.txt', 'dump-10.txt', 'dump-2.txt']);
    expect(await glob(join(root, '*'))).not.toContain(join(root, 'a'));
  });
});

describe('standard input', () => {
  it('named twice is refused before reading: it can be read once', async () => {
    await expect(expandInputs(['-', 'x.txt', '-'])).rejects.toThrow(/- \(standard input\) is named more than once/);
    expect((await expandInputs(['-'])).map((f) => f.path)).toEqual(['-']);
  });
});
