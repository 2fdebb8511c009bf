/**
 * programModules' last step, a creator in the checkout of a module found before (another module of
 * the same repository), decides each creator once while the modules found stay the same: goroutines
 * created at one `go` statement (each group with its own creator object) repeat the answer.
 */
import { describe, expect, it } from 'vitest';
import { programModules } from '../../src/analyze/modules.js';
import { snapshot, type Rec } from './fixtures.js';

// main.main in the checkout of github.com/o/r at /w/r; a module of the same repository checked out
// beside it (/w/other holds github.com/o/r/sub's package x).
const mainStack = 'github.com/o/r/pkg.Work /w/r/pkg/work.go:10\nmain.main /w/r/cmd/main.go:5';
const subCreator = { func: 'github.com/o/r/sub/x.Start', file: '/w/other/x/start.go', line: 7 };
const elsewhere = { func: 'example.com/lib.Go', file: '/elsewhere/lib/go.go', line: 3 };

function recs(n: number): Rec[] {
  const out: Rec[] = [{ frames: mainStack, state: 'running', id: 1 }];
  for (let i = 0; i < n; i++) {
    out.push({ frames: `github.com/o/r/sub/x.loop /w/other/x/loop.go:${i + 1}`, state: 'chan receive', id: 10 + i, creator: { ...(i % 2 ? elsewhere : subCreator) } });
  }
  return out;
}

describe('programModules from creators', () => {
  it('finds the other module of the repository once, however many groups its creator started', () => {
    for (const n of [1, 2, 7]) {
      const mods = programModules(snapshot('debug2', recs(n)));
      expect(mods).toEqual([
        { module: 'github.com/o/r', why: "main.main's checkout" },
        { module: 'github.com/o/r/sub', why: 'creates goroutines from the checkout of github.com/o/r' },
      ]);
    }
  });

  it('still decides a creator first seen after one that is not the program\'s', () => {
    const r = recs(4);
    // The first creators are from elsewhere; the sub module's creator comes last.
    r.push(r.splice(1, 1)[0]);
    const mods = programModules(snapshot('debug2', r));
    expect(mods.map((m) => m.module)).toEqual(['github.com/o/r', 'github.com/o/r/sub']);
  });
});
