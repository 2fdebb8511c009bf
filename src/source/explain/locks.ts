/**
 * Lock findings: at a blocked `X.Lock()`, which locks the goroutine already holds there (its own
 * function and the callers on its stack), and which other function of the package takes the same two
 * locks in the opposite order (or the same lock again); else which blocked goroutine holds the lock.
 */
import { lockCallAt, LockOrder, type Acquire } from '../patterns/lock-order.js';
import { lineOf, type GoFile } from '../syntax/parser.js';
import { ancestors, FUNC_TYPES, funcAtLine, funcName } from '../syntax/tree.js';
import { at, cause, type Cause, type Site, type SiteResult } from './cause.js';
import { explainLeakedLock } from './leaked-lock.js';

/** `dir#Account.mu` → `Account.mu` for messages. */
function show(key: string): string {
  return key.replace(/^.*#/, '').replace(/^ext:.*\//, '');
}

export function explainLockSite(s: Site): SiteResult {
  const order = new LockOrder(s.pkg);
  const mine = acquisitionAt(s, order, s.file, s.line);
  if (mine === undefined) return { causes: [], warnings: [], found: false };
  if (mine === null) return { causes: [], warnings: [], found: true };
  // Locks held by the callers on the blocked stack, at their calls.
  const held = [...mine.held];
  for (const fr of s.stack ?? []) {
    const f = s.pkg.files.find((x) => x.rel === fr.rel);
    const callerNode = f ? funcAtLine(f.root, fr.line) : undefined;
    if (!f || !callerNode) break;
    held.push(...order.heldAt(s.pkg.info(f, callerNode), fr.line));
  }
  const causes = inversions(order, mine, held);
  if (causes.length > 0) return { causes, warnings: [], found: true };
  // Nothing held here: the holder is another blocked goroutine that took this lock and waits for another.
  for (const p of s.peers ?? []) {
    if (p.file.rel === s.file.rel && p.line === s.line) continue;
    const pkg = s.ws.pkgOf(p.file);
    if (pkg !== s.pkg) continue;
    const theirs = acquisitionAt(s, order, p.file, p.line);
    if (!theirs) continue;
    const holding = theirs.held.find((h) => h.key === mine.key);
    if (!holding) continue;
    causes.push(cause('lock-order', holding.file, holding.node, `Goroutines blocked at ${at(p.file, p.line)} hold ${show(mine.key)} (taken here) while they wait for another lock, so ${at(s.file, s.line)} queues behind them.`, holding.exact && mine.exact ? 'high' : 'medium', holding.fn.node));
    causes.push(...inversions(order, theirs, theirs.held));
  }
  // Nobody in the dump holds it: the lock leaked on a path that left without Unlock.
  if (causes.length === 0) causes.push(...explainLeakedLock(s));
  return { causes, warnings: [], found: true };
}

/** The acquisition at `file:line` (undefined: no Lock call there; null: not tracked). */
function acquisitionAt(s: Site, order: LockOrder, file: GoFile, line: number): Acquire | null | undefined {
  const call = lockCallAt(file.root, line);
  if (!call) return undefined;
  const fnNode = ancestors(call).find((a) => FUNC_TYPES.has(a.type));
  if (!fnNode) return null;
  const pkg = s.ws.pkgOf(file) ?? s.pkg;
  return order.acquisitions(pkg.info(file, fnNode)).find((a) => a.node.startIndex === call.startIndex) ?? null;
}

/** Why `mine` can wait forever given the locks `held` when it is taken. */
function inversions(order: LockOrder, mine: Acquire, held: Acquire[]): Cause[] {
  const causes: Cause[] = [];
  const name = funcName(mine.fn.node);
  for (const h of held) {
    if (h.ident === mine.ident) {
      causes.push(cause('lock-reentry', mine.file, mine.node, `${h.node.text} is already held by this goroutine (${at(h.file, h.node)}) when it is taken again here: Go mutexes are not reentrant, so this waits forever.`, h.exact && mine.exact ? 'high' : 'medium', mine.fn.node, lineOf(h.node)));
      continue;
    }
    if (h.key === mine.key) {
      causes.push(cause('lock-order', mine.file, mine.node, `${name} holds one ${show(mine.key)} (${h.node.text}, ${at(h.file, h.node)}) while it takes another (${mine.node.text}) here: two calls that pass the same two objects in opposite order deadlock. Take the two locks in a fixed order (e.g. by ID) or under one outer lock.`, h.exact && mine.exact ? 'high' : 'medium', mine.fn.node, lineOf(h.node)));
      continue;
    }
    for (const other of order.all()) {
      if (other.key !== h.key) continue;
      const first = other.held.find((x) => x.key === mine.key);
      if (!first) continue;
      const exact = h.exact && mine.exact && other.exact && first.exact;
      const msg = `Opposite lock order: ${name} takes ${show(h.key)} (${at(h.file, h.node)}) then ${show(mine.key)} (${at(mine.file, mine.node)}), while ${funcName(other.fn.node)} takes ${show(mine.key)} (${at(first.file, first.node)}) then ${show(h.key)} here${other.via ? ` (inside ${other.via})` : ''}. Two goroutines doing both deadlock; take the locks in one order.`;
      causes.push(cause('lock-order', other.file, other.node, msg, exact ? 'high' : 'medium', other.fn.node, lineOf(first.node)));
      causes.push(cause('lock-order', h.file, h.node, `${name} holds ${show(h.key)} from here while it waits for ${show(mine.key)} at ${at(mine.file, mine.node)}; ${funcName(other.fn.node)} takes them the other way round (${at(other.file, other.node)}).`, exact ? 'medium' : 'low', mine.fn.node));
    }
  }
  return causes;
}
