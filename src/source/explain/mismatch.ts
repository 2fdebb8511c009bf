/**
 * Does the checkout match the dump? A frame's line must be code inside a function: a line past the
 * end of the file, a blank or comment line, or a line outside every function means the file changed
 * since the binary was built (or another version is checked out). Each such frame is named; the
 * causes found in such a checkout are less sure.
 */
import type { GoFile } from '../syntax/parser.js';
import { funcAtLine, nodesAtLine } from '../syntax/tree.js';

const COMMENT = new Set(['comment']);

/** Why `file:line` cannot be the line a frame of `func` ran; undefined when it can. */
export function frameMismatch(file: GoFile, line: number, func: string): string | undefined {
  if (line < 1 || line > file.lines.length) return `line ${line} is past the end (the file has ${file.lines.length} lines)`;
  const text = file.lines[line - 1].trim();
  if (text === '') return `line ${line} is blank`;
  const inBlock = () => nodesAtLine(file.root, line, COMMENT).some((c) => c.startPosition.row + 1 < line && c.endPosition.row + 1 > line);
  if (text.startsWith('//') || inBlock()) return `line ${line} is a comment`;
  // Package-level initialisers (`var x = f()`, `glob..func1`) run outside any function.
  if (!funcAtLine(file.root, line) && !/(^|\.)init(\.|$)|glob\.|\.init\.func\d+/.test(func)) return `line ${line} is outside any function`;
  return undefined;
}
