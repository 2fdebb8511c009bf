/**
 * A Cond nobody signals (`core/stuck-wait`, cond): at a blocked `x.cond.Wait()`, the `Signal` and
 * `Broadcast` calls on a Cond of the same class (`Queue.ready`) in the package, and what keeps them
 * from running: a branch around them, a return before them; and the functions that change what
 * the waiters test (a field in the condition of the loop around `Wait`) without signalling at all.
 */
import { lockClass, objectPath } from '../patterns/lock-path.js';
import { contains, find, kids, lineOf, type Node } from '../syntax/parser.js';
import { ancestors, exprList, FUNC_TYPES, methodCall, nodesAtLine, ownDescendants, runsBefore } from '../syntax/tree.js';
import { cause, type Cause } from './cause.js';
import { place, type LocatedFrame } from './confirm.js';

const SIGNAL = /^(Signal|Broadcast)$/;
const BRANCH = new Set(['if_statement', 'expression_case', 'type_case', 'default_case', 'communication_case']);

export function explainCondWait(site: LocatedFrame): Cause[] {
  const wait = nodesAtLine(site.file.root, site.line, new Set(['call_expression'])).find((c) => methodCall(c)?.name === 'Wait');
  const op = wait && methodCall(wait)!.op;
  const obj = op && objectPath(site.file, op);
  const cls = obj && obj.path.length > 0 ? lockClass(site.pkg, site.file, obj) : undefined;
  if (!wait || !obj || !cls) return [];
  const owner = cls.slice(0, cls.lastIndexOf('.'));
  const tested = testedFields(wait, obj.rootText);
  const signals: { file: LocatedFrame['file']; call: Node; fn: Node }[] = [];
  const writers: { file: LocatedFrame['file']; node: Node; fn: Node }[] = [];
  for (const f of site.pkg.files) {
    for (const c of find(f.root, 'call_expression')) {
      const m = methodCall(c);
      const o = m && SIGNAL.test(m.name) ? objectPath(f, m.op) : undefined;
      const fn = ancestors(c).find((a) => FUNC_TYPES.has(a.type));
      if (o && fn && lockClass(site.pkg, f, o) === cls) signals.push({ file: f, call: c, fn });
    }
    for (const a of find(f.root, ['assignment_statement', 'inc_statement', 'dec_statement'])) {
      const left = a.type === 'assignment_statement' ? exprList(a.childForFieldName('left')) : [a.namedChild(0)!];
      const hit = left.find((l) => l.type === 'selector_expression' && tested.has(l.childForFieldName('field')!.text) && site.pkg.typeOf(f, l.childForFieldName('operand')!) === owner);
      const fn = ancestors(a).find((x) => FUNC_TYPES.has(x.type));
      if (hit && fn) writers.push({ file: f, node: a, fn });
    }
  }
  const where = place(site, site.line);
  const causes: Cause[] = [];
  if (signals.length === 0) {
    causes.push(cause('missing-signal', site.file, wait, `Nothing in the package calls Signal or Broadcast on a ${cls}: ${wait.text} waits forever.`, 'high'));
  }
  for (const s of signals) {
    const branch = ancestors(s.call, s.fn).find((a) => BRANCH.has(a.type));
    const writesFirst = writers.some((w) => w.fn.startIndex === s.fn.startIndex && w.node.startIndex < s.call.startIndex);
    if (branch) {
      const head = branch.type === 'if_statement' ? `if ${branch.childForFieldName('condition')?.text ?? ''}` : branch.text.split('\n')[0].replace(/:$/, '');
      causes.push(cause('signal-skipped', s.file, s.call, `${s.call.text} runs only under \`${head}\`: when that does not hold, ${writesFirst ? 'the state the waiters test changes but ' : ''}the goroutines in ${wait.text} (${where}) are never woken. Signal on every path that changes what they wait for.`, writesFirst ? 'high' : 'medium', s.fn, lineOf(branch)));
    }
    for (const ret of ownDescendants(s.fn, 'return_statement')) {
      if (ret.startIndex > s.call.startIndex || runsBefore(s.call, ret, s.fn) || contains(ret, s.call)) continue;
      causes.push(cause('signal-skipped', s.file, ret, `This return leaves before ${s.call.text} (line ${lineOf(s.call)}): the goroutines in ${wait.text} (${where}) are not woken on this path.`, 'medium', s.fn));
    }
  }
  const signalling = new Set(signals.map((s) => `${s.file.rel}:${s.fn.startIndex}`));
  for (const w of writers) {
    if (signalling.has(`${w.file.rel}:${w.fn.startIndex}`) || contains(w.fn, wait)) continue;
    causes.push(cause('missing-signal', w.file, w.node, `This changes ${w.node.text.split(/\s*[-+]?=|\+\+|--/)[0]}, which the waiters in ${wait.text} (${where}) test, but this function never calls Signal or Broadcast: they sleep on although the condition may now hold.`, 'high', w.fn));
  }
  return causes;
}

/** Fields of `root` tested by the loop around the Wait (`for len(q.items) == 0 && !q.closed`). */
function testedFields(wait: Node, root: string): Set<string> {
  const loop = ancestors(wait).find((a) => a.type === 'for_statement');
  const parts = loop ? kids(loop) : [];
  const cond = parts.find((c) => c.type !== 'block' && c.type !== 'for_clause' && c.type !== 'range_clause') ?? parts.find((c) => c.type === 'for_clause')?.childForFieldName('condition');
  const out = new Set<string>();
  if (!cond) return out;
  for (const s of find(cond, 'selector_expression')) {
    let base = s.childForFieldName('operand')!;
    while (base.type === 'selector_expression') base = base.childForFieldName('operand')!;
    if (base.text === root) out.add(s.childForFieldName('field')!.text);
  }
  return out;
}
