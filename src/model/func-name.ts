/**
 * Reading a Go function name as dumps print it (`k8s.io/client-go/tools/cache.(*Reflector).watch.func1`).
 * The package path ends at the last '/' before any '(' or '[': neither occurs in a package path, while
 * a receiver or type arguments after them may hold slashes of their own (`pkg.F[example.com/x.T]`).
 * One definition for the rules' messages and the reports.
 */

/** Index of the '/' that ends the package path's directories, or -1 (`main.main`, `sync.(*Mutex).Lock`). */
export function packageSlash(func: string): number {
  let limit = func.length;
  const paren = func.indexOf('(');
  if (paren >= 0) limit = paren;
  const bracket = func.indexOf('[');
  if (bracket >= 0 && bracket < limit) limit = bracket;
  return limit > 0 ? func.lastIndexOf('/', limit - 1) : -1;
}

/** The last path element and after: `k8s.io/client-go/tools/cache.(*Reflector).watch.func1` → `cache.(*Reflector).watch.func1`. */
export function shortFunc(func: string): string {
  return func.slice(packageSlash(func) + 1);
}
