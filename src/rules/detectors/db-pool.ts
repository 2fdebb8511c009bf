/**
 * database/sql pools: goroutines parked in `(*DB).conn` wait for a connection because the pool is at
 * its limit (`SetMaxOpenConns`). Whether the connections in use are doing work tells a saturated pool
 * from a leaking one: a goroutine inside a database call holds a connection while it runs, and so
 * may one further in the waiters' own function (past its query: iterating rows in the program's code,
 * answering); a connection held by a `*sql.Rows`, `*sql.Tx` or `*sql.Conn` that was never closed has
 * no goroutine at all. `variant: busy` (info) when some goroutine may hold one; otherwise the leak text.
 */
import type { Analysis, AnalyzedGroup } from '../../analyze/types.js';
import type { Detector } from '../candidate.js';
import { innermostCall, num, shortFunc, siteText } from '../frames.js';

const SQL = 'database/sql.';
const WAIT = 'database/sql.(*DB).conn';
/** database/sql's own goroutines: the opener and cleaner, and the watchers of Rows and Tx contexts. */
const BACKGROUND = /^database\/sql\.(\(\*DB\)\.(connectionOpener|connectionCleaner|connectionResetter)|OpenDB\.func\d+|\(\*(Rows|Tx)\)\.awaitDone)$/;
const AWAIT_DONE = /^database\/sql\.\(\*(Rows|Tx)\)\.awaitDone$/;

/** Waiting for a pool slot: `(*DB).conn` is the innermost frame past the runtime (not dialing a new connection). */
export function waitsForConnection(g: AnalyzedGroup): boolean {
  return innermostCall(g)?.func === WAIT;
}

interface PoolUse {
  /** Goroutines inside database calls (they hold, or are getting, a connection). */
  readonly inFlight: AnalyzedGroup[];
  /** Goroutines watching the context of an open Rows or Tx (each such value holds a connection). */
  readonly awaiting: number;
}

/** Once per analysis: asked by the candidate of each waiting site. */
function poolUse(a: Analysis): PoolUse {
  let use = useMemo.get(a);
  if (!use) useMemo.set(a, (use = poolUseOf(a)));
  return use;
}

const useMemo = new WeakMap<Analysis, PoolUse>();

function poolUseOf(a: Analysis): PoolUse {
  const inFlight: AnalyzedGroup[] = [];
  let awaiting = 0;
  for (const g of a.groups) {
    if (waitsForConnection(g)) continue;
    let sql = false;
    for (const f of g.frames) {
      if (!f.func.startsWith(SQL)) continue;
      if (AWAIT_DONE.test(f.func)) awaiting += g.count;
      if (BACKGROUND.test(f.func)) {
        sql = false;
        break;
      }
      sql = true;
    }
    if (sql) inFlight.push(g);
  }
  return { inFlight, awaiting };
}

/**
 * Goroutines of the waiters' own function that are not waiting for a connection: past their query
 * (iterating rows in the program's code, writing the answer), each may hold one.
 */
function pastTheQuery(a: Analysis, waiter: AnalyzedGroup): AnalyzedGroup[] {
  const func = waiter.blockingSite?.func;
  if (!func) return [];
  return a.groups.filter((g) => g !== waiter && !waitsForConnection(g) && g.frames.some((f) => f.func === func));
}

export const dbPoolDetector: Detector = {
  description: 'goroutines waiting for a database/sql connection: `variant: busy` while other goroutines are in database calls or further in the same function, else the pool leaked its connections',
  vars: ['inFlight', 'awaiting'],
  refine(ctx, _rule, c) {
    const g = c.root;
    if (!g || !waitsForConnection(g)) return null;
    const use = poolUse(ctx.analysis);
    const past = pastTheQuery(ctx.analysis, g).filter((x) => !use.inFlight.includes(x));
    const holders = [...use.inFlight, ...past];
    const n = holders.reduce((s, x) => s + x.count, 0);
    const awaiting = use.awaiting
      ? ` ${num(use.awaiting)} goroutine${use.awaiting === 1 ? '' : 's'} of database/sql watch the context of an open \`Rows\` or \`Tx\` (\`awaitDone\`): each such value still holds its connection.`
      : '';
    const facts = n
      ? [`${num(n)} goroutine${n === 1 ? '' : 's'} may hold connections (in database calls, or further in ${shortFunc(g.blockingSite!.func)}): ${holders.slice(0, 3).map((x) => `${num(x.count)} at ${shortFunc(x.blockingSite?.func ?? x.frames[0].func)} (${siteText(x.blockingSite)})`).join(', ')}`]
      : ['no goroutine of the dump is in a database call or further in the waiting function: the connections in use are held by values never closed (Rows, Tx, Conn)'];
    if (use.awaiting) facts.push(`${num(use.awaiting)} open Rows/Tx wait for their context (database/sql awaitDone)`);
    // An excerpt shows what its author chose: a holder not shown is unknown, not absent.
    const excerpt = ctx.analysis.snapshot.context?.kind === 'excerpt';
    if (excerpt && !n) facts[0] = 'the dump is an excerpt: it shows no goroutine in a database call, but what it does not show is unknown';
    return {
      ...c,
      ...(n ? { variant: 'busy' } : excerpt ? { variant: 'excerpt' } : {}),
      vars: { ...c.vars, inFlight: num(n), awaiting },
      facts: [...c.facts, ...facts],
    };
  },
};
