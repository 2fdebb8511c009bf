/**
 * `findStuck` looks at no channel, WaitGroup or leftover wait in a context where `stuckReason` can
 * call only a lock or Cond wait stuck (`anyWaitMayBeStuck` false: a plain profile, a crash). That
 * must stay what `stuckReason` says: asked about every waiter of the sample dumps as each kind of
 * wait, in every context, with and without the evidence it weighs (an unreferenced object, no live
 * children), it finds none of those waits stuck where the skip applies, and finds some elsewhere.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze/index.js';
import type { Waiter } from '../../src/analyze/types.js';
import type { DumpContextKind } from '../../src/model/dump.js';
import { anyWaitMayBeStuck, stuckReason } from '../../src/rules/waits/stuck.js';
import type { StuckWait } from '../../src/rules/waits/types.js';
import { SAMPLES, filesUnder } from '../helpers/paths.js';
import { snapshotsOf } from '../helpers/snapshots.js';

const CONTEXTS: readonly DumpContextKind[] = ['test-timeout', 'leak-report', 'deadlock', 'synctest-deadlock', 'signal', 'crash', 'profile', 'excerpt'];
const SKIPPED: readonly StuckWait['kind'][] = ['channel', 'waitgroup', 'leftover'];

describe('waits findStuck skips', () => {
  it('are waits stuckReason finds stuck in no such context', async () => {
    const dumps = [...filesUnder(join(SAMPLES, 'deadlocks'), /\.txt$/).slice(0, 40), ...filesUnder(join(SAMPLES, 'excerpts', 'go1.19'), /\.txt$/)];
    const waiters: Waiter[] = [];
    for await (const { snapshot: s } of snapshotsOf(dumps)) waiters.push(...(analyze(s).waits?.waiters ?? []));
    expect(waiters.length).toBeGreaterThan(100);
    // Waits of a minute and more, too: age is what makes a lock or Cond wait stuck anywhere.
    expect(waiters.some((w) => (w.detail.waitMinutes ?? 0) >= 1)).toBe(true);
    let elsewhere = 0;
    for (const context of CONTEXTS) {
      for (const w of waiters) {
        for (const kind of SKIPPED) {
          for (const orphan of [undefined, 'no other goroutine references the channel']) {
            for (const noChildren of [false, true]) {
              const why = stuckReason(w, kind, context, orphan, noChildren);
              if (!anyWaitMayBeStuck(context)) expect(why, `${context} ${kind}`).toBeUndefined();
              else if (why !== undefined) elsewhere++;
            }
          }
        }
      }
    }
    expect(elsewhere).toBeGreaterThan(0);
    expect(CONTEXTS.filter((c) => !anyWaitMayBeStuck(c))).toEqual(['crash', 'profile']);
  });
});
