/**
 * Go's names for closures, read the way the compiler writes them: `.func3`, nested `.func1.2` (old Go)
 * or `.func1.func2`, go-statement and defer wrappers `.gowrap1` / `.deferwrap1` (Go 1.21+), `.func·001`
 * (Go ≤ 1.4) and method values `-fm`. One definition for the analyzer and the rules.
 */
const CLOSURE_SUFFIX = /(?:\.(?:func\d+|gowrap\d+|deferwrap\d+|func·\d+|\d+)|-fm)$/;

const closureMemo = new Map<string, boolean>();
const enclosingMemo = new Map<string, string>();

/** Is `func` a closure (or wrapper) of some enclosing function? Memoized: names repeat across groups. */
export function isClosure(func: string): boolean {
  let r = closureMemo.get(func);
  if (r === undefined) {
    r = CLOSURE_SUFFIX.test(func);
    closureMemo.set(func, r);
  }
  return r;
}

/** `pkg.(*Store).listAndWatch.func3` → `pkg.(*Store).listAndWatch`; non-closures are returned as is. */
export function enclosing(func: string): string {
  let f = enclosingMemo.get(func);
  if (f === undefined) {
    f = func;
    while (CLOSURE_SUFFIX.test(f)) f = f.replace(CLOSURE_SUFFIX, '');
    enclosingMemo.set(func, f);
  }
  return f;
}

/**
 * The functions a closure is nested in, innermost first: `p.F.func1.2` → [`p.F.func1`, `p.F`].
 * Package-level closures (`p.glob..func1`, `p.init.func1`) name no function that could be waiting.
 */
export function enclosingFunctions(func: string): string[] {
  return [...enclosingNames(func)];
}

/**
 * `enclosingFunctions(func)`, made once per name and shared (frozen): asked about the outermost
 * frames of every group, tens of thousands of times on distinct stacks.
 */
export function enclosingNames(func: string): readonly string[] {
  let out = enclosingFunctionsMemo.get(func);
  if (out === undefined) {
    const list: string[] = [];
    let f = func;
    while (CLOSURE_SUFFIX.test(f)) {
      f = f.replace(CLOSURE_SUFFIX, '');
      if (f.endsWith('.glob.') || f.endsWith('.init')) break;
      list.push(f);
    }
    out = Object.freeze(list);
    enclosingFunctionsMemo.set(func, out);
  }
  return out;
}

const enclosingFunctionsMemo = new Map<string, readonly string[]>();

const RECEIVER = /^(.*)\.\(\*?([^)]+)\)\.[^.]+$/;
const receiverMemo = new Map<string, string | undefined>();

/** The receiver type of a method, or of the method a closure is in: `pkg.(*T).m.func1` → `pkg.T`; undefined for functions. */
export function receiverType(func: string): string | undefined {
  if (receiverMemo.has(func)) return receiverMemo.get(func);
  const m = RECEIVER.exec(enclosing(func));
  const t = m ? `${m[1]}.${m[2]}` : undefined;
  receiverMemo.set(func, t);
  return t;
}
