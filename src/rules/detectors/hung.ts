/**
 * `hung-set`: per-session goroutine sets that hang. A session (a stream, an exec, a connection) runs
 * one goroutine per role — one copies I/O, one reads input, one waits for a process — so its groups
 * have the same count (`proportionalSets`). When every role of such a set has been parked for hours,
 * the sessions are hung, not busy: one finding for the whole set, naming each role.
 *
 * Start-up pools are no sessions: a small group started by `main`, `init` or a constructor is left out
 * (two pools of 10 workers idle since start-up have equal counts and long waits too).
 */
import type { AnalyzedGroup } from '../../analyze/types.js';
import { candidate, type Detector } from '../candidate.js';
import { enclosing, num, waitText } from '../frames.js';
import { STARTUP } from './pool.js';
import { roleOf } from './roles.js';
import { setsFor } from './scale.js';

/** Started once at start-up, and few: a pool's workers, not a session's. */
function startupGroup(g: AnalyzedGroup, maxWorkers: number): boolean {
  return g.count <= maxWorkers && !!g.creator && STARTUP.test(enclosing(g.creator.func));
}

export const hungSetDetector: Detector = {
  description: 'per-session goroutine sets (equal counts, one group per role) that have all been parked for hours',
  vars: ['sessions', 'roleCount', 'roles', 'roleList', 'longest'],
  find(ctx, rule) {
    const minWait = ctx.param(rule, 'minWaitMinutes', 60);
    const maxWorkers = ctx.param(rule, 'maxWorkers', 64);
    const minGroups = ctx.param(rule, 'minGroups', 2);
    const out = [];
    for (const set of setsFor(ctx, rule)) {
      const roles = set.filter((g) => !startupGroup(g, maxWorkers) && g.waitKind !== 'running' && g.waitKind !== 'runnable' && (g.wait?.max ?? 0) >= minWait);
      if (roles.length < minGroups) continue;
      const [root, ...related] = roles;
      const goroutines = roles.reduce((n, g) => n + g.count, 0);
      const sessions = Math.min(...roles.map((g) => g.count));
      const longest = roles.reduce((m, g) => Math.max(m, g.wait!.max), 0);
      const names = roles.map(roleOf);
      out.push(
        candidate(rule, root, {
          related,
          goroutines,
          claimsRelated: true,
          absorbs: true,
          vars: {
            sessions: num(sessions),
            roleCount: String(roles.length),
            roles: names.join(', '),
            roleList: roles.map((g, i) => `${names[i]}: ${num(g.count)} goroutines, parked ${waitText(g.wait)}`).join('; '),
            longest: `${num(longest)} minute${longest === 1 ? '' : 's'}`,
          },
          facts: roles.map((g, i) => `role: ${names[i]}, ${num(g.count)} goroutines, parked ${waitText(g.wait)}`),
        }),
      );
    }
    return out;
  },
};
