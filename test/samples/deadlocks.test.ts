/**
 * The deadlock samples (samples/deadlocks/, see samples/README.md "Deadlocks and stuck goroutines"), at
 * read level: for every case and every dump its expected.json lists, `readDump` yields at least one
 * snapshot, and every stuck site is in a group of some snapshot: a frame with that function, that line
 * and a file ending in `/<file>`, in a group whose waitKind is the expected one. Healthy cases list no
 * sites; their dumps must still read. Cases or files missing on disk are skipped.
 *
 * Leak reports: under Go 1.19 our goleak look-alike prints goleak's older record shape, which keeps
 * the runtime's `goroutine N [state]:` header inside each record; under Go 1.23 goleak's newer shape
 * (` Goroutine N in state S, with F on top of the stack:` and no `goroutine N [` header), read by
 * read/leakrecord.ts. Both must give every stuck site.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Dump, Group, WaitKind } from '../../src/model/dump.js';
import { readDump } from '../../src/read/index.js';
import { SAMPLES } from '../helpers/paths.js';

const ROOT = join(SAMPLES, 'deadlocks');

interface Site {
  function: string;
  file: string;
  line: number;
  states: Record<string, string>;
  waitKind: WaitKind;
  note: string;
}
interface DeadlockExpected {
  schema: string;
  case: string;
  taxonomy: string;
  verdict: 'deadlock' | 'leak' | 'healthy';
  files: { path: string; go: string; kind: 'test-timeout' | 'leak-report' | 'sigquit' }[];
  stuck: Site[];
}

const TAXONOMY = new Set([
  'resource/double-lock', 'resource/abba', 'resource/rwmutex-recursive-rlock', 'communication/channel',
  'communication/channel-context', 'communication/cond', 'communication/channel-waitgroup',
  'mixed/channel-lock', 'mixed/channel-waitgroup', 'mixed/lock-waitgroup', 'healthy',
]);

const CASES = existsSync(ROOT)
  ? readdirSync(ROOT).filter((d) => existsSync(join(ROOT, d, 'expected.json'))).sort()
  : [];

/** The new goleak record shape: its records carry no `goroutine N [` header of their own. */
function groupsAt(dump: Dump, s: Site): Group[] {
  return dump.snapshots.flatMap((snap) => snap.groups).filter((g) =>
    g.frames.some((f) => f.func === s.function && f.line === s.line && (f.file === s.file || f.file.endsWith(`/${s.file}`))));
}

describe.skipIf(CASES.length === 0)('deadlock samples', () => {
  it('cover the taxonomy: at least 20 buggy and 5 healthy cases', () => {
    const all = CASES.map((c) => JSON.parse(readFileSync(join(ROOT, c, 'expected.json'), 'utf8')) as DeadlockExpected);
    expect(all.filter((e) => e.verdict !== 'healthy').length).toBeGreaterThanOrEqual(20);
    expect(all.filter((e) => e.verdict === 'healthy').length).toBeGreaterThanOrEqual(5);
    expect(new Set(all.map((e) => e.taxonomy))).toEqual(TAXONOMY);
  });

  describe.each(CASES)('%s', (name) => {
    const expected = JSON.parse(readFileSync(join(ROOT, name, 'expected.json'), 'utf8')) as DeadlockExpected;

    it('expected.json is well-formed', () => {
      expect(expected.schema).toBe('leakscope-deadlock/v1');
      expect(expected.case).toBe(name);
      expect(TAXONOMY.has(expected.taxonomy)).toBe(true);
      expect(expected.files.length).toBeGreaterThan(0);
      expect(expected.stuck.length === 0).toBe(expected.verdict === 'healthy');
      for (const s of expected.stuck) expect(s.file.startsWith(`${name}/`), s.file).toBe(true);
    });

    for (const f of expected.files) {
      const path = join(ROOT, name, f.path);
      const present = existsSync(path);
      const test = present ? it : it.skip;
      test(`${f.path}: every stuck site is read, with its wait kind`, async () => {
        const dump = await readDump(path);
        expect(dump.snapshots.length).toBeGreaterThanOrEqual(1);
        const total = dump.snapshots.reduce((n, s) => n + s.total, 0);
        expect(total).toBeGreaterThanOrEqual(1);
        expect(total).toBeLessThanOrEqual(50);
        for (const s of expected.stuck) {
          const at = groupsAt(dump, s);
          expect(at.length, `${s.function} ${s.file}:${s.line}`).toBeGreaterThan(0);
          expect(at.map((g) => g.waitKind), `${s.function} ${s.file}:${s.line}`).toContain(s.waitKind);
        }
      });
    }
  });
});
