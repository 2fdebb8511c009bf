/**
 * Handles opened per call and never closed (a `*sql.DB` from `sql.Open` in a request handler). The
 * dump shows the library's goroutine of each handle, but not who opened it: its stack starts in the
 * library. So the checkout is searched for the calls that open one outside start-up code (`main`,
 * `init`), where the handle is neither closed nor kept: directly, or through a helper that returns it
 * (`openLedger`), at the helper's callers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { find, lineOf, type GoFile, type Node } from '../syntax/parser.js';
import { ASSIGNMENTS, assignedTo, calleeText, enclosingFunc, exprList, funcName, ownDescendants } from '../syntax/tree.js';
import type { Workspace } from '../workspace/workspace.js';
import { cause, type Cause } from './cause.js';

/** A kind of handle: the calls that open one, what it is called and holds, and the text a file must hold to be parsed. */
export interface HandleOpener {
  readonly calls: RegExp;
  readonly what: string;
  /** What each handle keeps until closed ("its goroutine and pooled connections"). */
  readonly keeps: string;
  readonly needle: string;
}

/** At most this many places: past them, the pattern is everywhere and a list helps nobody. */
const MAX_CAUSES = 5;

/**
 * The calls of the checkout (non-test files, outside vendor/) that open a handle and drop it, with
 * `open` the number of such handles the dump holds.
 */
export function openedPerCall(ws: Workspace, opener: HandleOpener, open: number): Cause[] {
  const out: Cause[] = [];
  for (const rel of ws.index.files) {
    if (out.length >= MAX_CAUSES) break;
    if (!rel.endsWith('.go') || rel.endsWith('_test.go') || /(^|\/)vendor\//.test(rel)) continue;
    let text: string;
    try {
      text = readFileSync(join(ws.index.root, rel), 'utf8');
    } catch {
      continue;
    }
    if (!text.includes(opener.needle)) continue;
    const file = ws.file(rel);
    if (!file) continue;
    for (const call of find(file.root, 'call_expression')) {
      if (!opener.calls.test(calleeText(call))) continue;
      out.push(...droppedAt(file, call, calleeText(call), opener, open));
    }
  }
  return out.slice(0, MAX_CAUSES);
}

/** Where the handle `call` opens is dropped: at the call, or at the callers of the helper returning it. */
function droppedAt(file: GoFile, call: Node, callee: string, { what, keeps }: HandleOpener, open: number): Cause[] {
  const fn = enclosingFunc(call);
  if (!fn || startUp(fn)) return [];
  const name = assignedName(call);
  if (name && closes(fn, name)) return [];
  const helper = funcName(fn);
  if (returned(fn, call, name)) {
    // A helper returning the handle: its callers in the file drop it (or keep it).
    const out: Cause[] = [];
    const bare = fn.type === 'function_declaration' || fn.type === 'method_declaration' ? fn.childForFieldName('name')?.text : undefined;
    if (!bare) return out;
    for (const c of find(file.root, 'call_expression')) {
      const t = calleeText(c);
      if (t !== bare && !t.endsWith(`.${bare}`)) continue;
      const g = enclosingFunc(c);
      if (!g || startUp(g)) continue;
      const v = assignedName(c);
      if (v && (closes(g, v) || kept(g, v))) continue;
      out.push(cause('opened-per-call', file, c, `${funcName(g)} gets a ${what} from ${bare} (which opens it with ${callee} at line ${lineOf(call)}) on every call and never closes it: each one keeps ${keeps} (${open} open in the dump). Open it once at start-up and share it, or defer its Close().`, 'medium', g));
    }
    return out;
  }
  if (name && kept(fn, name)) return [];
  return [cause('opened-per-call', file, call, `${callee} opens a ${what} here, in ${helper}, on every call, and nothing closes it: each one keeps ${keeps} (${open} open in the dump). Open it once at start-up and share it, or defer its Close().`, 'medium', fn)];
}

/** `main`, `init`, a test's `TestMain`: code that runs once. */
function startUp(fn: Node): boolean {
  return fn.type === 'function_declaration' && /^(main|init|TestMain)$/.test(fn.childForFieldName('name')?.text ?? '');
}

/** The variable the call's first result is assigned to (`db, err := sql.Open(…)` → `db`). */
function assignedName(call: Node): string | undefined {
  const p = call.parent?.type === 'expression_list' ? call.parent.parent : call.parent;
  if (!p || !ASSIGNMENTS.has(p.type)) return undefined;
  const left = assignedTo(p);
  return left[0]?.type === 'identifier' && left[0].text !== '_' ? left[0].text : undefined;
}

/** `name.Close()` anywhere in the function (a defer too). */
function closes(fn: Node, name: string): boolean {
  return find(fn, 'call_expression').some((c) => calleeText(c) === `${name}.Close`);
}

/** The handle leaves the function: the call returned directly, or its variable in a return. */
function returned(fn: Node, call: Node, name: string | undefined): boolean {
  if (call.parent?.type === 'expression_list' && call.parent.parent?.type === 'return_statement') return true;
  if (call.parent?.type === 'return_statement') return true;
  return !!name && ownDescendants(fn, 'return_statement').some((r) => find(r, 'identifier').some((i) => i.text === name));
}

/** The handle is stored somewhere that outlives the call (a field, a package variable, a map): kept, not dropped. */
function kept(fn: Node, name: string): boolean {
  for (const a of find(fn, 'assignment_statement')) {
    const right = exprList(a.childForFieldName('right'));
    if (!right.some((r) => r.text === name)) continue;
    if (exprList(a.childForFieldName('left')).some((l) => l.type !== 'identifier')) return true;
  }
  return find(fn, 'keyed_element').some((k) => k.text.endsWith(`: ${name}`) || k.text.endsWith(`:${name}`));
}
