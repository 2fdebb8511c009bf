/**
 * The vocabulary of channel flow, shared by the tracer (tracer.ts) and its backward (defs.ts) and
 * forward (uses.ts) steps: the places a channel value can be held, and what the tracer reports about
 * one channel (where it was made, the operations on it, where it leaves the package).
 */
import type { GoFile, Node } from '../syntax/parser.js';
import type { Binding } from '../syntax/scope.js';
import type { FuncInfo, GoPackage, TypeName } from '../workspace/package.js';

export type Place =
  | { readonly kind: 'var'; readonly file: GoFile; readonly b: Binding }
  | { readonly kind: 'field'; readonly type: TypeName; readonly field: string; readonly scope: GoPackage }
  | { readonly kind: 'return'; readonly fn: FuncInfo; readonly index: number }
  | { readonly kind: 'make'; readonly file: GoFile; readonly node: Node };

export type OpKind = 'send' | 'recv' | 'range' | 'close';

/** A use of the channel in a function, passed down to a callee: how the flow reached an op. */
export interface Anchor {
  readonly file: GoFile;
  readonly node: Node;
}

export interface ChanOp {
  readonly kind: OpKind;
  /** send_statement, unary_expression (`<-c`), for_statement (range) or call_expression (close). */
  readonly node: Node;
  readonly file: GoFile;
  readonly fn: FuncInfo;
  /** The select statement when the op is the communication of a select case. */
  readonly select?: Node;
  readonly exact: boolean;
  /** Argument uses, outermost first, through which the channel reached `fn`. */
  readonly trail: Anchor[];
}

export interface Origin {
  /** make: created here; nil: declared and never assigned; param/field/unknown: where tracing stopped. */
  readonly kind: 'make' | 'nil' | 'param' | 'field' | 'unknown';
  readonly file?: GoFile;
  readonly node?: Node;
  /** For make: the capacity expression text ('' = unbuffered). */
  readonly capacity?: string;
  readonly exact: boolean;
}

export interface Escape {
  readonly file: GoFile;
  readonly node: Node;
  readonly why: string;
}

export interface ChannelFlow {
  /** The channel is (also) kept in a struct field. */
  readonly fields: boolean;
  readonly origins: Origin[];
  readonly ops: ChanOp[];
  readonly escapes: Escape[];
}

/** The caller's `file:line` for a function on the blocked stack (from the frame above it). */
export type CallerHint = (fn: FuncInfo) => { rel: string; line: number } | undefined;
