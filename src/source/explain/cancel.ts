/**
 * A select whose way out is `case <-X.ctx.Done()`, where nothing ever calls the CancelFunc kept
 * beside the context (patterns/cancel.ts): the case is dead. The cause is where the owner waits
 * for this goroutine without cancelling first (a visible goroutine of the dump, in a method of the
 * same type, blocked in a Wait), and where the CancelFunc is stored and then forgotten.
 */
import { doneField, uncalledCancel } from '../patterns/cancel.js';
import { lineOf, type Node } from '../syntax/parser.js';
import { funcAtLine, funcName, methodCall, nodesAtLine } from '../syntax/tree.js';
import { at, cause, type Cause, type Site } from './cause.js';

export function explainUncalledCancel(s: Site, recv: Node): Cause[] {
  const d = doneField(s.pkg, s.file, recv);
  if (!d) return [];
  const u = uncalledCancel(s.pkg, d.owner, d.field);
  if (!u) return [];
  const causes: Cause[] = [];
  const what = `nothing in the package calls .${u.cancelField}, the CancelFunc of .${u.ctxField}`;
  // The owner's goroutine that waits for this one (Close → wg.Wait) without cancelling.
  for (const stack of s.others ?? []) {
    for (const fr of stack) {
      const fn = funcAtLine(fr.file.root, fr.line);
      if (!fn || fn.type !== 'method_declaration') continue;
      const info = fr.pkg.info(fr.file, fn);
      if (info.recv !== d.owner) continue;
      const wait = nodesAtLine(fr.file.root, fr.line, new Set(['call_expression'])).find((c) => methodCall(c)?.name === 'Wait');
      if (!wait) continue;
      causes.push(cause('never-cancelled', fr.file, wait, `${funcName(fn)} waits here (${wait.text}) for the goroutine at ${at(s.file, s.line)}, whose only way out is \`case <-${recv.text.replace(/^<-\s*/, '')}\`, but ${what}: the context is never cancelled, so both wait forever. Cancel before waiting (call the CancelFunc first).`, 'high', fn));
    }
  }
  const storeFn = funcAtLine(u.file.root, lineOf(u.store));
  causes.push(cause('never-cancelled', u.file, u.store, `The CancelFunc of ${u.ctxField} is kept here, but ${what}: \`case <-${recv.text.replace(/^<-\s*/, '')}\` at ${at(s.file, s.line)} can never fire.`, causes.length > 0 ? 'medium' : 'high', storeFn));
  return causes;
}
