/** One reading of a printed Go function name for the rules and the reports (they once cut it in two ways). */
import { describe, expect, it } from 'vitest';
import { shortFunc } from '../../src/model/func-name.js';

describe('shortFunc', () => {
  it.each([
    ['k8s.io/client-go/tools/cache.(*Reflector).watch.func1', 'cache.(*Reflector).watch.func1'],
    ['main.main', 'main.main'],
    ['sync.(*Mutex).Lock', 'sync.(*Mutex).Lock'],
    ['gopkg.in/yaml%2ev2.Unmarshal', 'yaml%2ev2.Unmarshal'],
    // Type arguments and receivers may hold slashes: the package path ends before them.
    ['example.com/x/pkg.Map[example.com/y.Key,int]', 'pkg.Map[example.com/y.Key,int]'],
    ['example.com/x/pkg.(*List[example.com/y.T]).Push', 'pkg.(*List[example.com/y.T]).Push'],
    ['example.com/x/pkg.F[...]', 'pkg.F[...]'],
    ['', ''],
  ])('%s → %s', (func, short) => {
    expect(shortFunc(func)).toBe(short);
  });
});
