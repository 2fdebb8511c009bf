/**
 * Client pools at their limit (database/sql's `SetMaxOpenConns`, a Redis pool's `MaxActive`, a
 * generic resource pool's size): goroutines parked in the pool's wait (`(*DB).conn`,
 * `(*Pool).waitVacantConn`, `(*Pool).Acquire`) wait for a resource because every one is taken.
 * Whether the resources taken are doing work tells a saturated pool from a leaking one: a goroutine
 * inside a call of the pool's library holds one while it runs, and so may one further in the
 * waiters' own function (past its query: iterating rows in the program's code, answering); a resource
 * held by a value never given back (Rows, Tx, a pooled connection never closed or released) has no
 * goroutine at all. `variant: busy` (info) when some goroutine may hold one; otherwise the leak text.
 *
 * What a pool looks like is the rule's data (`params`): `wait`, the waiter's innermost frame past the
 * runtime and sync's; `use`, the library's frames (a goroutine in one uses a resource); `background`,
 * the library's own goroutines (no users); `holding` (parked in `holdingWait`), goroutines each of
 * which stands for a resource held (database/sql's watchers of an open Rows or Tx; net/http's reader
 * of a connection whose response body is still open), said by `holdingText` and `holdingFact`. The
 * defaults are database/sql's.
 */
import type { Analysis, AnalyzedGroup, SiteFrame } from '../../analyze/types.js';
import type { Detector, ResolvedRule, RuleContext } from '../candidate.js';
import { goroutines, num, shortFunc, siteText } from '../frames.js';
import { re } from '../match.js';

/** What one pool library looks like in a dump (regular expressions on function names). */
export interface PoolShape {
  readonly wait: RegExp;
  readonly use: RegExp;
  readonly background?: RegExp;
  readonly holding?: RegExp;
  /** The wait kind a `holding` goroutine is parked in (a connection's reader waiting for its body: `select`), any when unset. */
  readonly holdingWait?: string;
}

/** database/sql: the opener and cleaner, and the watchers of Rows and Tx contexts, are its own. */
export const SQL_POOL: PoolShape = {
  wait: /^database\/sql\.\(\*DB\)\.conn$/,
  use: /^database\/sql\./,
  background: /^database\/sql\.(\(\*DB\)\.(connectionOpener|connectionCleaner|connectionResetter)|OpenDB\.func\d+|\(\*(Rows|Tx)\)\.awaitDone)$/,
  holding: /^database\/sql\.\(\*(Rows|Tx)\)\.awaitDone$/,
};

/**
 * Frames a waiter is parked under before its pool's: the runtime's, sync's (a pool waiting on a Cond)
 * and a weighted semaphore's (a pool counting its resources with one).
 */
const SYNC_WAIT = /^(sync\.(runtime_\w+|\(\*Cond\)\.Wait)|golang\.org\/x\/sync\/semaphore\.\(\*Weighted\)\.Acquire)$/;

/** The innermost frame past the runtime and sync's waits: the call the goroutine is parked in. */
function parkedIn(g: AnalyzedGroup): SiteFrame | undefined {
  return g.frames.find((f) => f.origin !== 'runtime' && !SYNC_WAIT.test(f.func));
}

/** Waiting for a pool slot: the pool's wait is the innermost frame past the runtime (not dialing a new connection). */
export function waitsForSlot(g: AnalyzedGroup, shape: PoolShape): boolean {
  const f = parkedIn(g);
  return f !== undefined && shape.wait.test(f.func);
}

/**
 * The waits of the built-in pool rules (rules/core.yaml: core/db-pool-exhausted, core/pool-exhausted,
 * core/http-conns-exhausted): goroutines parked in one wait for a pool's resource, which those rules
 * judge (who holds them, an excerpt that does not show), not for a channel's other side.
 */
const KNOWN_POOL_WAITS: PoolShape = {
  wait: /^database\/sql\.\(\*DB\)\.conn$|^net\/http\.\(\*Transport\)\.getConn$|^github\.com\/(gomodule|garyburd)\/redigo\/redis\.\(\*Pool\)\.(waitVacantConn|get)$|^github\.com\/jackc\/puddle(\/v2)?\.\(\*Pool(\[[^\]]*\])?\)\.(Acquire|acquire)$|^github\.com\/(go-redis\/redis|redis\/go-redis)(\/v\d+)?\/internal\/pool\.\(\*ConnPool\)\.waitTurn$/,
  use: /$^/,
};

/** Waiting for a resource of a pool a built-in rule knows (`KNOWN_POOL_WAITS`). */
export function waitsForPool(g: AnalyzedGroup): boolean {
  return waitsForSlot(g, KNOWN_POOL_WAITS);
}

interface PoolUse {
  /** Goroutines inside calls of the pool's library (they hold, or are getting, a resource). */
  readonly inFlight: AnalyzedGroup[];
  /** Goroutines that each stand for a resource held (`holding`). */
  readonly holding: number;
}

/** Once per analysis and shape: asked by the candidate of each waiting site. */
function poolUse(a: Analysis, shape: PoolShape): PoolUse {
  let byShape = useMemo.get(a);
  if (!byShape) useMemo.set(a, (byShape = new Map()));
  let use = byShape.get(shape);
  if (!use) byShape.set(shape, (use = poolUseOf(a, shape)));
  return use;
}

const useMemo = new WeakMap<Analysis, Map<PoolShape, PoolUse>>();

function poolUseOf(a: Analysis, shape: PoolShape): PoolUse {
  const inFlight: AnalyzedGroup[] = [];
  let holding = 0;
  for (const g of a.groups) {
    if (waitsForSlot(g, shape)) continue;
    let uses = false;
    for (const f of g.frames) {
      if (!shape.use.test(f.func)) continue;
      if (shape.holding?.test(f.func) && (!shape.holdingWait || g.waitKind === shape.holdingWait)) holding += g.count;
      if (shape.background?.test(f.func)) {
        uses = false;
        break;
      }
      uses = true;
    }
    if (uses) inFlight.push(g);
  }
  return { inFlight, holding };
}

/**
 * Goroutines of the waiters' own function that are not waiting for a resource: past their query
 * (iterating rows in the program's code, writing the answer), each may hold one.
 */
function pastTheWait(a: Analysis, waiter: AnalyzedGroup, shape: PoolShape): AnalyzedGroup[] {
  const func = waiter.blockingSite?.func;
  if (!func) return [];
  return a.groups.filter((g) => g !== waiter && !waitsForSlot(g, shape) && g.frames.some((f) => f.func === func));
}

/** The rule's pool, from its params (`wait`, `use`, `background`, `holding`), else database/sql's. */
function shapeOf(ctx: RuleContext, rule: ResolvedRule): PoolShape {
  const wait = ctx.param(rule, 'wait', '');
  if (!wait) return SQL_POOL;
  const opt = (name: string) => {
    const p = ctx.param(rule, name, '');
    return p ? re(p) : undefined;
  };
  const holdingWait = ctx.param(rule, 'holdingWait', '');
  return { wait: re(wait), use: re(ctx.param(rule, 'use', wait)), background: opt('background'), holding: opt('holding'), ...(holdingWait ? { holdingWait } : {}) };
}

export const poolWaitDetector: Detector = {
  description: 'goroutines waiting for a slot of a client pool (params: `wait`, `use`, `background`, `holding`; database/sql by default): `variant: busy` while other goroutines are in the pool library\'s calls or further in the same function, `variant: excerpt` in an excerpt showing none, else the pool leaked its resources',
  vars: ['inFlight', 'awaiting', 'waitFunc'],
  refine(ctx, rule, c) {
    const g = c.root;
    const shape = shapeOf(ctx, rule);
    if (!g || !waitsForSlot(g, shape)) return null;
    const calls = ctx.param(rule, 'calls', 'database calls');
    const use = poolUse(ctx.analysis, shape);
    const past = pastTheWait(ctx.analysis, g, shape).filter((x) => !use.inFlight.includes(x));
    const holders = [...use.inFlight, ...past];
    const n = holders.reduce((s, x) => s + x.count, 0);
    const held = use.holding;
    const awaiting = held
      ? ` ${ctx.param(rule, 'holdingText', '{n} of database/sql watch the context of an open `Rows` or `Tx` (`awaitDone`): each such value still holds its connection.').replace('{n}', goroutines(held))}`
      : '';
    const facts = n
      ? [`${num(n)} goroutine${n === 1 ? '' : 's'} may hold ${ctx.param(rule, 'resources', 'connections')} (in ${calls}, or further in ${shortFunc(g.blockingSite!.func)}): ${holders.slice(0, 3).map((x) => `${num(x.count)} at ${shortFunc(x.blockingSite?.func ?? x.frames[0].func)} (${siteText(x.blockingSite)})`).join(', ')}`]
      : [ctx.param(rule, 'noneFact', 'no goroutine of the dump is in a database call or further in the waiting function: the connections in use are held by values never closed (Rows, Tx, Conn)')];
    if (held) facts.push(ctx.param(rule, 'holdingFact', '{n} open Rows/Tx wait for their context (database/sql awaitDone)').replace('{n}', num(held)));
    // An excerpt shows what its author chose: a holder not shown is unknown, not absent.
    const excerpt = ctx.analysis.snapshot.context?.kind === 'excerpt';
    if (excerpt && !n) facts[0] = `the dump is an excerpt: it shows no goroutine in ${ctx.param(rule, 'call', 'a database call')}, but what it does not show is unknown`;
    return {
      ...c,
      ...(n ? { variant: 'busy' } : excerpt ? { variant: 'excerpt' } : {}),
      vars: { ...c.vars, inFlight: num(n), awaiting, waitFunc: shortFunc(parkedIn(g)!.func) },
      facts: [...c.facts, ...facts],
    };
  },
};
