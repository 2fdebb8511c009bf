/**
 * In a debug=1 dump every stuck set above the thresholds gets its own finding, not only the largest (a
 * second set of 960 identical goroutines, 12.7% of the dump, beside 6,200), while sets that scale with
 * other groups (per-object workers) stay quiet.
 */
import { describe, expect, it } from 'vitest';
import { runRules } from '../../src/rules/index.js';
import { analysis, group } from './build.js';

const at = (func: string, file: string, line: number, caller: string) => [
  `${func} @ /src/app/internal/${file}:${line}`,
  `${caller} @ /src/app/internal/${file}:${line + 40}`,
];

describe('debug=1: every set above the thresholds', () => {
  it('names the 960 beside the 6,200', () => {
    const big = group({ count: 6200, waitKind: 'unknown', frames: at('example.com/app/internal/fetch.(*Client).wait', 'fetch/client.go', 88, 'example.com/app/internal/fetch.(*Client).Do') });
    const second = group({ count: 960, waitKind: 'unknown', frames: at('example.com/app/internal/index.(*Shard).flush', 'index/shard.go', 142, 'example.com/app/internal/index.(*Shard).Put') });
    const rest = [17, 40, 120, 230].map((n, i) => group({ count: n, waitKind: 'io', frames: at(`example.com/app/internal/net.conn${i}`, 'net/conn.go', 10 + i, 'example.com/app/internal/net.serve') }));
    const fs = runRules(analysis([big, second, ...rest], { format: 'debug1' }));
    const hidden = fs.filter((f) => f.ruleId === 'core/hidden-state');
    expect(hidden.map((f) => f.evidence.goroutines)).toEqual([6200, 960]);
    expect(hidden[1].severity).toBe('warning');
  });

  it('leaves per-object sets that scale together alone', () => {
    const workers = ['a', 'b', 'c'].map((k, i) => group({ count: 900 + i, waitKind: 'unknown', frames: at(`example.com/app/internal/consumer.(*C).loop${k}`, 'consumer/c.go', 20 + i, 'example.com/app/internal/consumer.Start') }));
    const other = group({ count: 2000, waitKind: 'io', frames: at('example.com/app/internal/net.read', 'net/r.go', 5, 'example.com/app/internal/net.serve') });
    const fs = runRules(analysis([...workers, other], { format: 'debug1' }));
    expect(fs.filter((f) => f.ruleId === 'core/hidden-state')).toEqual([]);
  });
});
