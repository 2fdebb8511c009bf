/**
 * samples/module-bugs: programs built inside copies of real projects' packages (Debian's
 * golang-*-dev sources, GOPATH mode), so that every frame of the program carries a well-known module
 * path that the built-in dependency list would otherwise skip. The dump tells the program's module
 * (the test's package), the stuck sites are named at warning or above, the holder only where it is
 * seen, and a lock with waiters and no possible holder is reported as leaked.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze/index.js';
import { readDump } from '../../src/read/index.js';
import { runRules } from '../../src/rules/index.js';
import { SAMPLES } from '../helpers/paths.js';
import { summary } from './e2e.js';
import { namesSite } from './excerpts.js';

interface Case {
  readonly case: string;
  readonly module: string;
  readonly files: { readonly path: string }[];
  readonly stuck: { readonly function: string; readonly line: number }[];
  /** Goroutines waiting behind the stuck sites: a loud finding naming a stuck site counts them among its consequences. */
  readonly consequences?: { readonly function: string; readonly line: number; readonly count: number }[];
  readonly holder?: { readonly function: string; readonly line: number };
  readonly verdictRule?: { readonly ruleId: string; readonly variant: string };
}

const ROOT = join(SAMPLES, 'module-bugs');
const cases: Case[] = existsSync(ROOT)
  ? readdirSync(ROOT).filter((d) => existsSync(join(ROOT, d, 'expected.json'))).map((d) => JSON.parse(readFileSync(join(ROOT, d, 'expected.json'), 'utf8')) as Case)
  : [];

describe('samples/module-bugs: programs that are themselves well-known modules', () => {
  it('holds the four shapes (re-entry through a callback, a blocking send under the lock, a lock leaked in a timer callback, callers coalesced behind a stuck singleflight leader)', () => {
    expect(cases.map((c) => c.case).sort()).toEqual(['groupcache-getter-stall', 'lru-evict-reenter', 'memberlist-ack-timer', 'raft-observer-send']);
  });
  for (const c of cases) {
    for (const f of c.files) {
      it(`${c.case}/${f.path}`, async () => {
        const dump = await readDump(join(ROOT, c.case, f.path));
        const a = analyze(dump.snapshots[0]);
        expect(a.programModules?.map((m) => m.module)).toContain(c.module);
        const fs = runRules(a);
        const loud = fs.filter((x) => x.severity !== 'info');
        for (const s of c.stuck) expect(loud.some((x) => namesSite(x, s)), `${s.function}:${s.line}\n${summary(fs)}`).toBe(true);
        for (const q of c.consequences ?? []) {
          const f = loud.find((x) => c.stuck.some((s) => namesSite(x, s)) && x.evidence.groups.some((g) => g.role === 'consequence' && g.site?.func === q.function && g.site.line === q.line));
          expect(f, `${q.function}:${q.line}\n${summary(fs)}`).toBeDefined();
          const behind = f!.evidence.groups.filter((g) => g.role === 'consequence' && g.site?.func === q.function && g.site.line === q.line);
          expect(behind.reduce((n, g) => n + g.count, 0)).toBe(q.count);
          // Every one of them is held (not one per stuck goroutine, as behind a WaitGroup's children).
          expect(f!.evidence.goroutines, f!.evidence.facts.join('\n')).toBeGreaterThanOrEqual(q.count + c.stuck.length);
          expect(f!.evidence.facts.filter((x) => /goroutines they started/.test(x)), f!.evidence.facts.join('\n')).toEqual([]);
          // Not goroutines waiting for children they started: whoever waits in singleflight's Do is named by it.
          expect(loud.some((x) => x.ruleId === 'core/waitgroup-stuck'), summary(fs)).toBe(false);
        }
        if (c.holder) {
          const self = loud.find((x) => x.ruleId === 'core/double-lock');
          expect(self?.evidence.facts.some((x) => x.includes(c.holder!.function.slice(c.holder!.function.lastIndexOf('/') + 1))), summary(fs)).toBe(true);
        }
        if (c.verdictRule) {
          // The leaked-lock variant's title (findings do not carry their variant).
          const v = loud.find((x) => x.ruleId === c.verdictRule!.ruleId && x.severity === 'error' && /^Lock leaked on a return path/.test(x.title));
          expect(v, summary(fs)).toBeDefined();
          // No holder is named where none is seen: no double-lock or held-lock finding blames a goroutine.
          expect(loud.filter((x) => x.ruleId === 'core/double-lock' || x.ruleId === 'core/lock-held-blocked'), summary(fs)).toEqual([]);
        }
      });
    }
  }
});
