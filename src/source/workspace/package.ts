/**
 * One Go package of the source checkout: its files, functions and methods, call sites, struct fields
 * and a shallow notion of expression types (enough to tell `s.watch(…)` on a `*Store` from
 * `client.Watch(…)` on an imported type). No type checker: unknown stays unknown.
 *
 * Type names are canonical across the workspace: `dir#Name` for types declared in the checkout,
 * `ext:path.Name` for others.
 */
import { find, kids, walk, type GoFile, type Node } from '../syntax/parser.js';
import { resolve, usesOf } from '../syntax/scope.js';
import { assignedFrom, assignedTo, exprList, unparen, upParens } from '../syntax/tree.js';

export interface FuncInfo {
  readonly key: string;
  readonly node: Node;
  readonly file: GoFile;
  readonly pkg: GoPackage;
  /** Declared name ('' for literals). */
  readonly name: string;
  /** Canonical receiver type (methods only). */
  readonly recv?: string;
}

export interface CallSite {
  readonly call: Node;
  readonly file: GoFile;
}

export type TypeName = string | undefined;

/**
 * What a package asks of the checkout it belongs to: the other packages, by directory or import
 * path, and who imports it. The Workspace (workspace.ts) answers; it is the one that loads packages.
 */
export interface Packages {
  pkgByDir(dir: string, name?: string): GoPackage | undefined;
  pkgByImport(path: string): GoPackage | undefined;
  /** The directory holding import path `path`, when it is in the checkout. */
  dirOfImport(path: string): string | undefined;
  importersOf(pkg: GoPackage): GoPackage[];
  /** Say something about the resolution (an interface call whose implementation is not certain). */
  note?(msg: string): void;
  /** Does a frame of the dump run method `Type.method` (`LRU.Contains` for `pkg.(*LRU).Contains`)? */
  onStack?(typeMethod: string): boolean;
}
export type Callee = { fn: FuncInfo; exact: boolean } | 'external' | undefined;

export function funcKey(file: GoFile, node: Node): string {
  return `${file.rel}:${node.startIndex}`;
}

/** The named type under pointers/generics, as written (`Store`, `catalog.Client`). */
function rawType(t: Node | null | undefined): string | undefined {
  if (!t) return undefined;
  if (t.type === 'pointer_type' || t.type === 'parenthesized_type') return rawType(kids(t)[0]);
  if (t.type === 'generic_type') return rawType(t.childForFieldName('type'));
  if (t.type === 'type_identifier' || t.type === 'qualified_type') return t.text;
  return undefined;
}

const exported = (name: string) => /^[A-Z]/.test(name);

export class GoPackage {
  readonly funcs: FuncInfo[] = [];
  private readonly calls = new Map<string, CallSite[]>();
  /** type → (declaring file, field → type node); embedded fields keyed by their type name. */
  private readonly structs = new Map<string, { file: GoFile; fields: Map<string, Node> }>();
  private readonly imports = new Map<string, Map<string, string>>();
  /** Interface type → its declared method names (embedded interfaces not expanded). */
  private readonly ifaces = new Map<string, Set<string>>();
  private readonly impls = new Map<string, FuncInfo[]>();

  constructor(readonly ws: Packages, readonly dir: string, readonly files: GoFile[]) {
    for (const f of files) this.indexFile(f);
  }

  private indexFile(f: GoFile): void {
    const imp = new Map<string, string>();
    this.imports.set(f.rel, imp);
    for (const n of find(f.root, ['import_spec', 'function_declaration', 'method_declaration', 'type_spec', 'call_expression'])) {
      switch (n.type) {
        case 'import_spec': {
          const name = n.childForFieldName('name')?.text;
          const path = n.childForFieldName('path')?.text.replace(/["`]/g, '') ?? '';
          const alias = name && name !== '_' && name !== '.' ? name : (path.split('/').filter((p) => !/^v\d+$/.test(p)).pop() ?? '').replace(/^go-|[.-]go$/g, '');
          imp.set(alias, path);
          break;
        }
        case 'function_declaration':
          this.funcs.push({ key: funcKey(f, n), node: n, file: f, pkg: this, name: n.childForFieldName('name')?.text ?? '' });
          break;
        case 'method_declaration': {
          const recv = kids(n.childForFieldName('receiver')!)[0]?.childForFieldName('type');
          const raw = rawType(recv);
          this.funcs.push({ key: funcKey(f, n), node: n, file: f, pkg: this, name: n.childForFieldName('name')?.text ?? '', recv: raw ? `${this.dir}#${raw}` : undefined });
          break;
        }
        case 'type_spec': {
          const st = n.childForFieldName('type');
          const name = n.childForFieldName('name')?.text;
          if (st?.type === 'struct_type' && name) this.structs.set(name, { file: f, fields: this.structFields(st) });
          if (st?.type === 'interface_type' && name) this.ifaces.set(name, new Set(find(st, ['method_elem', 'method_spec']).map((m) => m.childForFieldName('name')?.text ?? '').filter((x) => x)));
          break;
        }
        case 'call_expression': {
          const fn = unparen(n.childForFieldName('function')!);
          const last = fn.type === 'selector_expression' ? fn.childForFieldName('field')?.text : fn.type === 'identifier' ? fn.text : '';
          if (last) {
            const list = this.calls.get(last) ?? [];
            list.push({ call: n, file: f });
            this.calls.set(last, list);
          }
          break;
        }
      }
    }
  }

  private structFields(st: Node): Map<string, Node> {
    const out = new Map<string, Node>();
    walk(st, (n) => {
      if (n.type !== 'field_declaration') return true;
      const names = n.childrenForFieldName('name').filter((x): x is Node => !!x);
      const type = n.childForFieldName('type');
      if (!type) return false;
      if (names.length === 0) {
        const b = rawType(type);
        if (b) out.set(b.split('.').pop()!, type);
      }
      for (const id of names) out.set(id.text, type);
      return false;
    });
    return out;
  }

  /** Does the package declare a struct type or a method receiver type `name`? */
  declares(name: string): boolean {
    return this.structs.has(name) || this.funcs.some((f) => f.recv === `${this.dir}#${name}`);
  }

  /** Is `name` an imported package name in `file` (and not shadowed there)? */
  isImport(file: GoFile, name: string): boolean {
    return this.imports.get(file.rel)?.has(name) ?? false;
  }

  /** Is `op` (the operand of `op.x`) the name of an imported package: an identifier that is not a variable? */
  namesImport(file: GoFile, op: Node): boolean {
    return op.type === 'identifier' && !resolve(file.rel, op) && this.isImport(file, op.text);
  }

  importPath(file: GoFile, alias: string): string | undefined {
    return this.imports.get(file.rel)?.get(alias);
  }

  /** Canonical name of a type written in `file`. */
  canon(file: GoFile, raw: string | undefined): TypeName {
    if (!raw) return undefined;
    const dot = raw.indexOf('.');
    if (dot < 0) return `${this.dir}#${raw}`;
    const path = this.importPath(file, raw.slice(0, dot));
    if (!path) return undefined;
    const other = this.ws.dirOfImport(path);
    return other !== undefined ? `${other}#${raw.slice(dot + 1)}` : `ext:${path}.${raw.slice(dot + 1)}`;
  }

  /** Canonical type of a field `field` of canonical type `type`, through one level of embedding. */
  fieldType(type: TypeName, field: string): TypeName {
    const owner = ownerOf(this.ws, type);
    const st = owner?.pkg.structs.get(owner.name);
    if (!owner || !st) return undefined;
    const t = st.fields.get(field);
    if (t) return owner.pkg.canon(st.file, rawType(t));
    for (const [name, ft] of st.fields) {
      if (rawType(ft)?.split('.').pop() === name && name !== owner.name) {
        const inner = owner.pkg.fieldType(owner.pkg.canon(st.file, rawType(ft)), field);
        if (inner) return inner;
      }
    }
    return undefined;
  }

  /** Does a value of type `have` have the methods/fields of `want` (same type, or embeds it)? */
  typeMatches(have: TypeName, want: TypeName): boolean | undefined {
    if (!have || !want) return undefined;
    if (have === want) return true;
    const owner = ownerOf(this.ws, have);
    const st = owner?.pkg.structs.get(owner.name);
    if (st) for (const ft of st.fields.values()) if (owner!.pkg.canon(st.file, rawType(ft)) === want) return true;
    return false;
  }

  /** A shallow canonical type of an expression in `file`: declared types, literals, fields. */
  typeOf(file: GoFile, expr: Node): TypeName {
    const e = unparen(expr);
    switch (e.type) {
      case 'identifier': {
        const b = resolve(file.rel, e);
        if (!b) return undefined;
        if (b.type) return this.canon(file, rawType(b.type));
        const st = b.stmt;
        if (st?.type === 'short_var_declaration' || st?.type === 'var_spec') {
          const lefts = assignedTo(st);
          const i = lefts.findIndex((n) => n.startIndex === b.decl.startIndex);
          const rights = assignedFrom(st);
          if (rights.length === lefts.length && rights[i] && rights[i].startIndex !== e.startIndex) return this.typeOf(file, rights[i]);
        }
        return undefined;
      }
      case 'unary_expression':
        return e.childForFieldName('operator')?.text === '&' ? this.typeOf(file, e.childForFieldName('operand')!) : undefined;
      case 'composite_literal':
        return this.canon(file, rawType(e.childForFieldName('type')));
      case 'selector_expression': {
        const op = e.childForFieldName('operand')!;
        if (this.namesImport(file, op)) return undefined;
        return this.fieldType(this.typeOf(file, op), e.childForFieldName('field')!.text);
      }
      default:
        return undefined;
    }
  }

  /** The FuncInfo of a function node of this package (declarations and literals). */
  info(file: GoFile, node: Node): FuncInfo {
    const key = funcKey(file, node);
    return this.funcs.find((f) => f.key === key) ?? { key, node, file, pkg: this, name: '' };
  }

  /**
   * What a call calls: a function or method of the checkout, a literal called in place, 'external'
   * (code outside the checkout, receivers of unrelated types), or undefined (builtins, func values).
   * `exact` is false when a method was matched by name only (receiver type unknown).
   */
  callee(file: GoFile, call: Node): Callee {
    const f = unparen(call.childForFieldName('function')!);
    if (f.type === 'func_literal') return { fn: this.info(file, f), exact: true };
    if (f.type === 'identifier') {
      const b = resolve(file.rel, f);
      if (b) {
        // `run := func(c chan T) {…}; run(ch)`: a local bound once to a literal.
        const rhs = b.stmt?.type === 'short_var_declaration' ? exprList(b.stmt.childForFieldName('right')) : [];
        const lit = rhs.length === 1 ? unparen(rhs[0]) : undefined;
        return lit?.type === 'func_literal' ? { fn: this.info(file, lit), exact: false } : undefined;
      }
      const decl = this.funcs.find((x) => x.name === f.text && x.recv === undefined);
      return decl ? { fn: decl, exact: true } : undefined;
    }
    if (f.type !== 'selector_expression') return undefined;
    const op = unparen(f.childForFieldName('operand')!);
    const name = f.childForFieldName('field')!.text;
    if (this.namesImport(file, op)) {
      const other = this.ws.pkgByImport(this.importPath(file, op.text)!);
      const fn = other?.funcs.find((x) => x.name === name && x.recv === undefined);
      return fn ? { fn, exact: true } : 'external';
    }
    const t = this.typeOf(file, op);
    if (t) {
      const owner = ownerOf(this.ws, t);
      if (!owner) return 'external';
      if (owner.pkg.ifaces.has(owner.name)) return this.viaInterface(file, call, owner.pkg, owner.name, name);
      const m = owner.pkg.funcs.filter((x) => x.name === name && x.recv !== undefined && owner.pkg.typeMatches(t, x.recv));
      return m.length > 0 ? { fn: m.find((x) => x.recv === t) ?? m[0], exact: true } : 'external';
    }
    // By name only: never a method of test code for a call outside it.
    const methods = this.funcs.filter((x) => x.name === name && x.recv !== undefined && (!isTest(x.file) || isTest(file)));
    return methods.length === 1 ? { fn: methods[0], exact: false } : 'external';
  }

  /**
   * An interface method call: the implementation when exactly one type of the packages that can see
   * the interface (its own, the caller's, its importers) has its method set, leaving out test code
   * for a call outside it; otherwise 'external', with a note naming the candidates.
   */
  private viaInterface(file: GoFile, call: Node, owner: GoPackage, iface: string, method: string): Callee {
    const key = `${iface}.${method}`;
    let all = owner.impls.get(key);
    if (!all) {
      const want = owner.ifaces.get(iface)!;
      const scope = new Set<GoPackage>([owner, this, ...(exported(iface) ? this.ws.importersOf(owner) : [])]);
      all = [];
      for (const p of scope) {
        const byRecv = new Map<string, FuncInfo[]>();
        for (const f of p.funcs) if (f.recv) byRecv.set(f.recv, [...(byRecv.get(f.recv) ?? []), f]);
        for (const ms of byRecv.values()) {
          const names = new Set(ms.map((m) => m.name));
          const m = ms.find((x) => x.name === method);
          if (m && [...want].every((n) => names.has(n))) all.push(m);
        }
      }
      owner.impls.set(key, all);
    }
    const found = all.filter((x) => !isTest(x.file) || isTest(file));
    if (found.length === 1) return { fn: found[0], exact: false };
    // The one the dump shows running (other than the method making the call: a wrapper calling its inner value).
    const inside = (x: FuncInfo) => x.file === file && x.node.startIndex <= call.startIndex && x.node.endIndex >= call.endIndex;
    const seen = found.filter((x) => !inside(x) && this.ws.onStack?.(`${x.recv!.slice(x.recv!.lastIndexOf('#') + 1)}.${method}`));
    if (seen.length === 1) return { fn: seen[0], exact: false };
    const at = `${file.rel}:${call.startPosition.row + 1}`;
    const list = found.slice(0, 4).map((x) => `${x.recv!.slice(x.recv!.lastIndexOf('#') + 1)}.${method} (${x.file.rel}:${x.node.startPosition.row + 1})`).join(', ');
    const more = found.length > 4 ? ` and ${found.length - 4} more` : '';
    this.ws.note?.(`the code behind interface ${iface} (${method}, called at ${at}) is not certain: ${found.length} implementation${found.length === 1 ? '' : 's'} in the checkout${found.length ? `: ${list}${more}` : ''}`);
    return 'external';
  }

  /** Call sites of a function or method in its package and (exported) in packages importing it. */
  callersOf(fn: FuncInfo): { site: CallSite; exact: boolean }[] {
    if (fn.node.type === 'func_literal') return literalCallers(fn);
    const out: { site: CallSite; exact: boolean }[] = [];
    const pkgs: GoPackage[] = [fn.pkg, ...(exported(fn.name) ? this.ws.importersOf(fn.pkg) : [])];
    for (const p of pkgs) {
      for (const site of p.calls.get(fn.name) ?? []) {
        const c = p.callee(site.file, site.call);
        if (c && c !== 'external' && c.fn.key === fn.key) out.push({ site, exact: c.exact });
      }
    }
    return out;
  }

  /** Packages whose code can use field `field` of canonical type `type`. */
  seeing(type: TypeName, field: string): GoPackage[] {
    const owner = ownerOf(this.ws, type)?.pkg ?? this;
    return [owner, ...(exported(field) ? this.ws.importersOf(owner) : [])];
  }
}

const isTest = (f: GoFile) => f.rel.endsWith('_test.go');

/** The package and local name of a canonical type of the checkout. */
function ownerOf(ws: Packages, type: TypeName): { pkg: GoPackage; name: string } | undefined {
  if (!type || type.startsWith('ext:')) return undefined;
  const hash = type.lastIndexOf('#');
  const dir = type.slice(0, hash);
  const name = type.slice(hash + 1);
  const pkg = ws.pkgByDir(dir);
  if (!pkg || pkg.declares(name)) return pkg ? { pkg, name } : undefined;
  // A type of the directory's external test package (`x_test`).
  const test = pkg.files[0] ? ws.pkgByDir(dir, `${pkg.files[0].pkgName}_test`) : undefined;
  return { pkg: test?.declares(name) ? test : pkg, name };
}

function literalCallers(fn: FuncInfo): { site: CallSite; exact: boolean }[] {
  const p = upParens(fn.node).parent;
  if (p?.type === 'call_expression') return [{ site: { call: p, file: fn.file }, exact: true }];
  const decl = p?.type === 'expression_list' && p.parent?.type === 'short_var_declaration' ? p.parent : undefined;
  const id = decl ? exprList(decl.childForFieldName('left'))[kids(p!).findIndex((k) => k.startIndex === fn.node.startIndex)] : undefined;
  const b = id?.type === 'identifier' ? resolve(fn.file.rel, id) : undefined;
  if (!b?.func) return [];
  return usesOf(fn.file.rel, b, b.func)
    .map((u) => upParens(u))
    .filter((u) => u.parent?.type === 'call_expression' && u.parent.childForFieldName('function')?.startIndex === u.startIndex)
    .map((u) => ({ site: { call: u.parent!, file: fn.file }, exact: false }));
}
