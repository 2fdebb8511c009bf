/**
 * A consumer parked in a network write (a relay's consumer whose peer stopped reading): does the
 * function it writes from set a deadline? Without one, a peer that stops reading holds the write
 * forever, and whatever waits on the consumer with it.
 */
import type { GoFile, Node } from '../syntax/parser.js';
import { FUNC_TYPES, funcAtLine, nodesAtLine } from '../syntax/tree.js';
import { cause, type Cause } from './cause.js';

/** `conn.SetWriteDeadline(…)`, `conn.SetDeadline(…)`, `rc.SetWriteDeadline(…)` (http.ResponseController). */
const SETS_DEADLINE = /\bSet(Write)?Deadline\s*\(/;

/** A parameter `w http.ResponseWriter`: the function is (or is written like) an HTTP handler; `w` is captured. */
const HANDLER = /(\w+)\s+http\.ResponseWriter\b/;

const STATEMENTS = new Set(['expression_statement', 'short_var_declaration', 'assignment_statement', 'if_statement', 'return_statement']);

/**
 * The write at `line` of `file`, in a function that sets no deadline: a cause there. `parked` says
 * how many goroutines of `func` wait in it.
 */
export function writeWithoutDeadline(file: GoFile, line: number, func: string, parked: number): Cause | undefined {
  const fn = funcAtLine(file.root, line);
  if (!fn || !FUNC_TYPES.has(fn.type) || SETS_DEADLINE.test(fn.text)) return undefined;
  const stmt: Node | undefined = nodesAtLine(fn, line, STATEMENTS)[0];
  // An HTTP handler has no connection to set it on: its ResponseController does (Go 1.20+).
  const w = HANDLER.exec(fn.childForFieldName('parameters')?.text ?? '')?.[1];
  const how = w
    ? `http.NewResponseController(${w}).SetWriteDeadline(time.Now().Add(…)), Go 1.20+; an error from the write or Flush then ends the handler`
    : 'conn.SetWriteDeadline(time.Now().Add(…))';
  return cause(
    'write-without-deadline',
    file,
    stmt ?? line,
    `The consumer writes here with no write deadline (${parked} goroutine${parked === 1 ? '' : 's'} of ${func} parked in this write): a peer that stops reading holds the write, then the consumer's queue, then the loop that delivers to it, forever. Set a deadline before each write (${how}) and drop the consumer when it fails.`,
    'medium',
    fn,
  );
}
