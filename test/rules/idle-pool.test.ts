/**
 * Workers created at start-up (by main, init or a constructor), bounded in number, that have waited
 * about as long as the process has run are an idle pool: info, never "nobody sends".
 */
import { describe, expect, it } from 'vitest';
import { runRules } from '../../src/rules/index.js';
import { analysis, group } from './build.js';

const recv = (pkg: string, line: number) => [
  'runtime.gopark @ /usr/lib/go/src/runtime/proc.go:363',
  'runtime.chanrecv1 @ /usr/lib/go/src/runtime/chan.go:442',
  `example.com/daemon/internal/${pkg}.(*Worker).next @ /src/daemon/internal/${pkg}/worker.go:${line}`,
  `example.com/daemon/internal/${pkg}.(*Worker).serve @ /src/daemon/internal/${pkg}/worker.go:${line + 20}`,
];

describe('idle start-up pools', () => {
  const workers = (pkg: string, creator: string, min: number) =>
    group({ count: 10, waitKind: 'chan-receive', state: 'chan receive', frames: recv(pkg, 31), creator: `${creator} @ /src/daemon/main.go:40`, wait: { min, max: 3598 } });
  const session = group({ count: 164, waitKind: 'io', state: 'IO wait', frames: ['example.com/daemon/internal/stream.(*Session).copy @ /src/daemon/internal/stream/session.go:77'], wait: { min: 12, max: 2595 } });

  it('10 + 10 workers made by main and a constructor, parked for the whole uptime: info', () => {
    const fs = runRules(analysis([workers('ingest', 'main.main', 3590), workers('export', 'example.com/daemon/internal/export.NewPool', 3591), session]));
    const recvs = fs.filter((f) => f.ruleId === 'core/blocked-receive');
    expect(recvs).toHaveLength(2);
    for (const f of recvs) {
      expect(f.severity).toBe('info');
      expect(f.title).toMatch(/^Idle loops/);
    }
  });

  it('the same workers started later than the rest (per request) are not a start-up pool', () => {
    const fs = runRules(analysis([workers('ingest', 'example.com/daemon/internal/api.(*Handler).serve', 600), session, group({ count: 1, waitKind: 'chan-receive', frames: recv('clock', 9), wait: { min: 3598, max: 3598 } })]));
    const f = fs.find((x) => x.ruleId === 'core/blocked-receive' && x.evidence.goroutines === 10);
    expect(f?.severity).toBe('warning');
  });
});
