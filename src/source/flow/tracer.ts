/**
 * Follow a channel value through one package: backwards from the expression at the blocking site to
 * where the channel is created (`make`), through parameters (call sites), results (`return`),
 * variables and struct fields; then forwards from there to every place it flows, collecting the
 * operations on it (send, receive, range, close) and where it escapes the package.
 */
import { endLineOf, find, lineOf, type GoFile, type Node } from '../syntax/parser.js';
import { resolve, usesOf, type Binding } from '../syntax/scope.js';
import { callArgs, enclosingFunc, exprList, unparen, upParens } from '../syntax/tree.js';
import type { GoPackage } from '../workspace/package.js';
import type { Workspace } from '../workspace/workspace.js';
import { assigned, fieldDefs, returnDefs } from './defs.js';
import type { Anchor, CallerHint, ChannelFlow, ChanOp, Escape, OpKind, Origin, Place } from './types.js';
import { classifyUse } from './uses.js';

const MAX_PLACES = 2000;

function placeKey(p: Place): string {
  switch (p.kind) {
    case 'var': return `v:${p.b.key}`;
    case 'field': return `f:${p.type ?? `${p.scope.dir}?`}.${p.field}`;
    case 'return': return `r:${p.fn.key}:${p.index}`;
    case 'make': return `m:${p.file.rel}:${p.node.startIndex}`;
  }
}

function isLhs(n: Node): boolean {
  const p = upParens(n).parent;
  if (p?.type !== 'expression_list') return false;
  const st = p.parent;
  return (st?.type === 'assignment_statement' || st?.type === 'short_var_declaration') && st.childForFieldName('left')?.startIndex === p.startIndex;
}

export class ChannelTracer {
  private readonly origins: Origin[] = [];
  private readonly ops = new Map<string, ChanOp>();
  private readonly escapes: Escape[] = [];
  private readonly seenBack = new Set<string>();
  private readonly seenFwd = new Set<string>();

  constructor(private readonly ws: Workspace, private readonly hint?: CallerHint) {}

  private pkg(file: GoFile): GoPackage {
    const p = this.ws.pkgOf(file);
    if (!p) throw new Error(`no package for ${file.rel}`);
    return p;
  }

  /** Trace the channel that `expr` (in `file`) evaluates to. */
  trace(file: GoFile, expr: Node): ChannelFlow {
    const start = this.evalExpr(file, expr);
    if (start) {
      this.back(start, true);
      for (const o of [...this.origins]) {
        const p = this.originPlace(o);
        if (p) this.fwd(p, o.exact, []);
      }
      this.fwd(start, true, []); // when backward stopped early, the start still has its own uses
    }
    const fields = [...this.seenFwd, ...this.seenBack].some((k) => k.startsWith('f:'));
    return { fields, origins: this.origins, ops: [...this.ops.values()], escapes: this.escapes };
  }

  private readonly originPlaces = new Map<Origin, Place>();
  private originPlace(o: Origin): Place | undefined {
    return this.originPlaces.get(o);
  }
  private origin(place: Place, o: Origin): void {
    this.origins.push(o);
    this.originPlaces.set(o, place);
  }

  /** The place an expression denotes, if it can hold a channel we can follow. */
  evalExpr(file: GoFile, expr: Node): Place | undefined {
    const e = unparen(expr);
    switch (e.type) {
      case 'identifier': {
        const b = resolve(file.rel, e);
        return b ? { kind: 'var', file, b } : undefined;
      }
      case 'selector_expression': {
        const op = e.childForFieldName('operand')!;
        const pkg = this.pkg(file);
        if (pkg.namesImport(file, op)) return undefined;
        return { kind: 'field', type: pkg.typeOf(file, op), field: e.childForFieldName('field')!.text, scope: pkg };
      }
      case 'call_expression': {
        const f = unparen(e.childForFieldName('function')!);
        const args = callArgs(e);
        if (f.text === 'make' && args[0]?.type === 'channel_type') return { kind: 'make', file, node: e };
        if (f.type === 'channel_type' || (f.type === 'parenthesized_expression' && f.text.includes('chan'))) {
          return args[0] ? this.evalExpr(file, args[0]) : undefined; // conversion (<-chan T)(c)
        }
        const c = this.pkg(file).callee(file, e);
        return c && c !== 'external' ? { kind: 'return', fn: c.fn, index: 0 } : undefined;
      }
      default:
        return undefined;
    }
  }

  // ---- backwards: where does the value come from? ----

  private back(place: Place, exact: boolean): void {
    const key = placeKey(place);
    if (this.seenBack.has(key) || this.seenBack.size > MAX_PLACES) return;
    this.seenBack.add(key);
    switch (place.kind) {
      case 'make': {
        const cap = callArgs(place.node)[1];
        this.origin(place, { kind: 'make', file: place.file, node: place.node, capacity: cap ? cap.text : '', exact });
        return;
      }
      case 'var':
        return this.backVar(place.file, place.b, place, exact);
      case 'field': {
        const defs = fieldDefs(place);
        if (defs.length === 0) this.origin(place, { kind: 'field', exact });
        for (const d of defs) {
          if (d.nil || d.expr.type === 'nil') this.origin(place, { kind: 'nil', file: d.file, node: d.expr, exact: exact && d.exact });
          else this.backExpr(d.file, d.expr, place, exact && d.exact);
        }
        return;
      }
      case 'return': {
        const defs = returnDefs(place.fn, place.index);
        if (defs.length === 0) this.origin(place, { kind: 'unknown', file: place.fn.file, node: place.fn.node, exact });
        for (const d of defs) (d.expr ? this.backExpr(place.fn.file, d.expr, place, exact) : d.place && this.back(d.place, exact));
        return;
      }
    }
  }

  private backExpr(file: GoFile, expr: Node, from: Place, exact: boolean): void {
    const p = this.evalExpr(file, expr);
    if (p) this.back(p, exact);
    else this.origin(from, { kind: 'unknown', file, node: expr, exact: false });
  }

  private backVar(file: GoFile, b: Binding, place: Place, exact: boolean): void {
    if (b.kind === 'param' && b.func) {
      const fn = this.pkg(file).info(file, b.func);
      let callers = fn.pkg.callersOf(fn);
      const h = this.hint?.(fn);
      const hinted = h ? callers.filter((c) => c.site.file.rel === h.rel && lineOf(c.site.call) <= h.line && h.line <= endLineOf(c.site.call)) : [];
      if (hinted.length > 0) callers = hinted;
      if (callers.length === 0) return this.origin(place, { kind: 'param', file, node: b.decl, exact });
      const args = callers.flatMap((c) => {
        const arg = callArgs(c.site.call)[b.paramIndex ?? -1];
        return arg ? [{ c, arg, p: this.evalExpr(c.site.file, arg) }] : [];
      });
      // Several call sites are ambiguous only when they pass different channels.
      const multi = new Set(args.map((a) => (a.p ? placeKey(a.p) : `?${a.arg.startIndex}`))).size > 1;
      for (const { c, arg } of args) this.backExpr(c.site.file, arg, place, exact && c.exact && !multi);
      return;
    }
    if (b.kind !== 'local' && b.kind !== 'global') return this.origin(place, { kind: 'unknown', file, node: b.decl, exact });
    const defs: { file: GoFile; expr?: Node; place?: Place }[] = [];
    const st = b.stmt;
    const declDef = st ? assigned(this.pkg(file), file, st, b.decl) : undefined;
    if (declDef) defs.push(declDef);
    const region = b.func ? [b.func] : this.pkg(file).files.map((f) => f.root);
    for (const r of region) {
      for (const n of find(r, 'assignment_statement')) {
        if (n.childForFieldName('operator')?.text !== '=') continue;
        for (const l of exprList(n.childForFieldName('left'))) {
          if (l.type === 'identifier' && l.text === b.name && resolve(file.rel, l)?.key === b.key) {
            const d = assigned(this.pkg(file), file, n, l);
            if (d) defs.push(d);
          }
        }
      }
    }
    const noValue = st?.type === 'var_spec' && !st.childForFieldName('value');
    if (defs.length === 0) return this.origin(place, { kind: noValue ? 'nil' : 'unknown', file, node: b.decl, exact });
    for (const d of defs) {
      if (d.expr?.type === 'nil') this.origin(place, { kind: 'nil', file, node: d.expr, exact });
      else if (d.expr) this.backExpr(d.file, d.expr, place, exact);
      else if (d.place) this.back(d.place, exact);
    }
  }

  // ---- forwards: where does the value go, and what is done with it? ----

  private fwd(place: Place, exact: boolean, trail: Anchor[]): void {
    const key = placeKey(place);
    if (this.seenFwd.has(key) || this.seenFwd.size > MAX_PLACES) return;
    this.seenFwd.add(key);
    switch (place.kind) {
      case 'make':
        return this.use(place.file, place.node, exact, trail);
      case 'var': {
        const regions = place.b.func ? [{ f: place.file, r: place.b.func }] : this.pkg(place.file).files.map((f) => ({ f, r: f.root }));
        for (const { f, r } of regions) for (const u of usesOf(f.rel, place.b, r)) if (!isLhs(u)) this.use(f, u, exact, trail);
        return;
      }
      case 'field':
        for (const pkg of place.type ? place.scope.seeing(place.type, place.field) : [place.scope]) for (const f of pkg.files) {
          for (const n of find(f.root, 'selector_expression')) {
            if (n.childForFieldName('field')?.text === place.field && !isLhs(n)) {
              const m = pkg.typeMatches(pkg.typeOf(f, n.childForFieldName('operand')!), place.type);
              if (m !== false) this.use(f, n, exact && m === true, trail);
            }
          }
        }
        return;
      case 'return': {
        const callers = place.fn.pkg.callersOf(place.fn);
        if (callers.length === 0) this.escapes.push({ file: place.fn.file, node: place.fn.node, why: 'returned to callers outside the package' });
        for (const c of callers) {
          const call = upParens(c.site.call);
          const list = call.parent;
          const st = list?.parent;
          if (list?.type === 'expression_list' && (st?.type === 'short_var_declaration' || st?.type === 'assignment_statement') && exprList(st.childForFieldName('right')).length === 1) {
            const t = exprList(st.childForFieldName('left'))[place.index];
            const p = t ? this.target(c.site.file, t) : undefined;
            if (p) this.fwd(p, exact && c.exact, trail);
          } else if (list?.type === 'expression_list' && st?.type === 'return_statement' && place.index > 0) {
            const outer = enclosingFunc(call);
            if (outer) this.fwd({ kind: 'return', fn: this.pkg(c.site.file).info(c.site.file, outer), index: place.index }, exact && c.exact, trail);
          } else if (place.index === 0) this.use(c.site.file, c.site.call, exact && c.exact, trail);
        }
        return;
      }
    }
  }

  private target(file: GoFile, t: Node): Place | undefined {
    if (t.type === 'identifier') {
      if (t.text === '_') return undefined;
      const b = resolve(file.rel, t);
      return b ? { kind: 'var', file, b } : undefined;
    }
    if (t.type === 'selector_expression') return this.evalExpr(file, t);
    return undefined;
  }

  private addOp(kind: OpKind, node: Node, file: GoFile, exact: boolean, trail: Anchor[], select?: Node): void {
    const key = `${kind}:${file.rel}:${node.startIndex}`;
    const fnNode = enclosingFunc(node);
    if (!fnNode) return;
    const prev = this.ops.get(key);
    if (prev && (prev.exact || !exact)) return;
    this.ops.set(key, { kind, node, file, fn: this.pkg(file).info(file, fnNode), select, exact, trail });
  }

  /** What happens to the channel value at expression `node`. */
  private use(file: GoFile, node: Node, exact: boolean, trail: Anchor[]): void {
    const u = classifyUse(this.pkg(file), file, node, (f, t) => this.target(f, t));
    if (!u) return;
    if (u.kind === 'op') this.addOp(u.op, u.node, file, exact, trail, u.select);
    else if (u.kind === 'escape') this.escapes.push({ file, node: u.node, why: u.why });
    else this.fwd(u.place, exact && u.exact, u.via ? [...trail, { file, node: u.via }] : trail);
  }
}
