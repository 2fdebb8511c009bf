/**
 * Channel operations in the source: the send, receive or select at a blocking line, the traced op
 * there, where the channel was made, whether an op repeats, and where an op (or the call that handed
 * the channel down to it) sits inside a given function.
 */
import type { ChannelFlow, ChanOp, Origin } from '../flow/types.js';
import { contains, kids, lineOf, type GoFile, type Node } from '../syntax/parser.js';
import { ancestors, FUNC_TYPES, nodesAtLine } from '../syntax/tree.js';
import type { GoPackage } from '../workspace/package.js';

const SEND = new Set(['send_statement']);
const SELECT = new Set(['select_statement']);

/** The send statement at a line. */
export function sendAt(root: Node, line: number): Node | undefined {
  return nodesAtLine(root, line, SEND)[0];
}

/** A receive at a line: `<-c` (unary), or the range loop whose `for` is on the line. */
export function receiveAt(root: Node, line: number): Node | undefined {
  const recv = nodesAtLine(root, line, new Set(['unary_expression', 'for_statement'])).filter(
    (n) => (n.type === 'unary_expression' && n.childForFieldName('operator')?.text === '<-') || (n.type === 'for_statement' && lineOf(n) === line && kids(n).some((k) => k.type === 'range_clause')),
  );
  return recv.find((n) => n.type === 'for_statement') ?? recv[0];
}

/** The select statement at a line. */
export function selectAt(root: Node, line: number): Node | undefined {
  return nodesAtLine(root, line, SELECT)[0];
}

/** The op of `flow` at `node`, or one made up for it (the blocked op itself may not be a traced use). */
export function opAt(flow: ChannelFlow, pkg: GoPackage, file: GoFile, node: Node, kind: ChanOp['kind']): ChanOp {
  const hit = flow.ops.find((o) => o.file.rel === file.rel && o.node.startIndex === node.startIndex && o.kind === kind);
  if (hit) return hit;
  const fnNode = ancestors(node).find((a) => FUNC_TYPES.has(a.type))!;
  return { kind, node, file, fn: pkg.info(file, fnNode), exact: true, trail: [] };
}

export function makeOrigin(flow: ChannelFlow): Origin | undefined {
  return flow.origins.find((o) => o.kind === 'make');
}

/** Is an op repeated: inside a loop of its function, or in a goroutine started inside a loop? */
export function repeated(op: ChanOp): boolean {
  const chain = [op.node, ...op.trail.map((t) => t.node).reverse()];
  return chain.some((n) => ancestors(n).some((a) => a.type === 'for_statement'));
}

/** The node of `op`, or of the call that handed the channel down to it, inside function `fn` of file `rel`. */
export function anchorIn(op: ChanOp, rel: string, fn: Node): Node | undefined {
  return [{ file: op.file, node: op.node }, ...[...op.trail].reverse()].find((a) => a.file.rel === rel && contains(fn, a.node))?.node;
}
