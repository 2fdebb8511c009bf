/**
 * Hand-built analyses for the HTML report tests, used where the real pipeline is not there yet. Every
 * frame is quoted from samples/apiproxy-leak/goroutine.debug2.txt (Go 1.19); counts are those of
 * samples/apiproxy-leak/expected.json.
 */
import type { Analysis, AnalyzedGroup, FrameOrigin, SiteFrame } from '../../src/analyze/types.js';
import type { Snapshot, WaitKind } from '../../src/model/dump.js';
import type { Finding } from '../../src/rules/types.js';

const ROOT = '/work/main/samples/apiproxy-leak';
const GO = '/usr/lib/go-1.19/src';
const STORE = `${ROOT}/pkg/stores/proxy/proxy_store.go`;
const EG = `${ROOT}/third_party/golang.org/x/sync/errgroup/errgroup.go`;

type F = [func: string, file: string, line: number, origin: FrameOrigin, inlined?: boolean];

function frames(list: F[]): SiteFrame[] {
  return list.map(([func, file, line, origin, inlined], index) => ({
    func, pkg: func.replace(/\.[^/]*$/, ''), file, line, inlined: inlined ?? false, origin, index,
  }));
}

interface G {
  id: string; count: number; waitKind: WaitKind; state: string; frames: F[]; site?: number;
  creator?: [func: string, file: string, line: number]; labels?: Record<string, string>; wait?: [number, number];
}

export function group(g: G, total: number): AnalyzedGroup {
  const fr = frames(g.frames);
  return {
    key: `key-${g.id}`, id: g.id, count: g.count, share: g.count / total, waitKind: g.waitKind, states: [g.state],
    ...(g.wait ? { wait: { min: g.wait[0], max: g.wait[1], stamped: g.count } } : {}),
    frames: fr, ...(g.site !== undefined ? { blockingSite: fr[g.site] } : {}),
    ...(g.creator ? { creator: { func: g.creator[0], pkg: g.creator[0].replace(/\.[^/]*$/, ''), file: g.creator[1], line: g.creator[2], goroutineIds: [] } } : {}),
    labels: g.labels ?? {}, labelSets: 1, goroutineIds: [], flags: {}, elidedFrames: 0, partial: false, members: [0],
  };
}

export function snapshot(source: string, total: number, extra: Partial<Snapshot> = {}): Snapshot {
  return { source, index: 0, format: 'debug2', profile: 'goroutine', total, truncated: false, groups: [], links: [], warnings: [], ...extra };
}

export function analysis(source: string, groups: G[], extra: Partial<Snapshot> = {}): Analysis {
  const total = groups.reduce((n, g) => n + g.count, 0);
  const gs = groups.map((g) => group(g, total)).sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : 1));
  const byWaitKind: Partial<Record<WaitKind, number>> = {};
  for (const g of gs) byWaitKind[g.waitKind] = (byWaitKind[g.waitKind] ?? 0) + g.count;
  return { snapshot: snapshot(source, total, extra), level: 'exact', total, groups: gs, byWaitKind, links: [] };
}

export const APIPROXY_GROUPS: G[] = [
  { id: 'a1', count: 300, waitKind: 'chan-send', state: 'chan send', site: 0, labels: { subscription: 'names' },
    frames: [['example.com/apiproxy/pkg/stores/proxy.returnErr', STORE, 50, 'user', true],
      ['example.com/apiproxy/pkg/stores/proxy.(*Store).listAndWatch.func3', STORE, 107, 'user'],
      ['golang.org/x/sync/errgroup.(*Group).Go.func1', EG, 81, 'dependency']],
    creator: ['golang.org/x/sync/errgroup.(*Group).Go', EG, 78] },
  { id: 'b2', count: 380, waitKind: 'waitgroup', state: 'semacquire', site: 3,
    frames: [['sync.runtime_Semacquire', `${GO}/runtime/sema.go`, 62, 'runtime'],
      ['sync.(*WaitGroup).Wait', `${GO}/sync/waitgroup.go`, 139, 'stdlib'],
      ['golang.org/x/sync/errgroup.(*Group).Wait', EG, 59, 'dependency'],
      ['example.com/apiproxy/pkg/stores/proxy.(*Store).listAndWatch', STORE, 118, 'user'],
      ['example.com/apiproxy/pkg/stores/proxy.(*Store).watch.func1', STORE, 155, 'user']],
    creator: ['example.com/apiproxy/pkg/stores/proxy.(*Store).watch', STORE, 154] },
  { id: 'c3', count: 80, waitKind: 'chan-receive', state: 'chan receive', site: 0,
    frames: [['example.com/apiproxy/pkg/stores/proxy.(*Store).listAndWatch.func1', STORE, 89, 'user']],
    creator: ['example.com/apiproxy/pkg/stores/proxy.(*Store).listAndWatch', STORE, 88] },
  { id: 'd4', count: 80, waitKind: 'chan-receive', state: 'chan receive', site: 0,
    frames: [['example.com/apiproxy/pkg/stores/proxy.(*Store).listAndWatch.func3', STORE, 103, 'user'],
      ['golang.org/x/sync/errgroup.(*Group).Go.func1', EG, 81, 'dependency']],
    creator: ['golang.org/x/sync/errgroup.(*Group).Go', EG, 78] },
  { id: 'e5', count: 60, waitKind: 'chan-receive', state: 'chan receive', site: 0, labels: { subscription: 'names' },
    frames: [['example.com/apiproxy/pkg/stores/proxy.(*Store).WatchNames.func1', STORE, 137, 'user']],
    creator: ['example.com/apiproxy/pkg/stores/proxy.(*Store).WatchNames', STORE, 135] },
  { id: 'f6', count: 80, waitKind: 'chan-receive', state: 'chan receive', site: 0,
    frames: [['example.com/apiproxy/pkg/server.(*Session).loop', `${ROOT}/pkg/server/session.go`, 57, 'user'],
      ['example.com/apiproxy/pkg/server.(*Session).Run.func1', `${ROOT}/pkg/server/session.go`, 41, 'user'],
      ['runtime/pprof.Do', `${GO}/runtime/pprof/runtime.go`, 40, 'stdlib']],
    creator: ['example.com/apiproxy/pkg/server.(*Session).Run', `${ROOT}/pkg/server/session.go`, 41] },
  { id: 'g7', count: 80, waitKind: 'chan-receive', state: 'chan receive', site: 0,
    frames: [['example.com/apiproxy/pkg/upstream.(*StreamWatcher).receive', `${ROOT}/pkg/upstream/client.go`, 82, 'user']],
    creator: ['example.com/apiproxy/pkg/upstream.(*Client).Watch', `${ROOT}/pkg/upstream/client.go`, 60] },
  { id: 'h8', count: 1, waitKind: 'running', state: 'running', site: 3,
    frames: [['runtime/pprof.writeGoroutineStacks', `${GO}/runtime/pprof/pprof.go`, 692, 'stdlib'],
      ['runtime/pprof.writeGoroutine', `${GO}/runtime/pprof/pprof.go`, 681, 'stdlib'],
      ['runtime/pprof.(*Profile).WriteTo', `${GO}/runtime/pprof/pprof.go`, 330, 'stdlib'],
      ['leakscope.local/dumpkit.writeProfile', '/work/main/samples/dumpkit/harness.go', 41, 'user'],
      ['main.main', `${ROOT}/main.go`, 70, 'user']] },
];

export function apiproxyAnalysis(source = `${ROOT}/goroutine.debug2.txt`): Analysis {
  return analysis(source, APIPROXY_GROUPS);
}

export function apiproxyFinding(a: Analysis): Finding {
  const root = a.groups.find((g) => g.id === 'a1')!;
  const cons = a.groups.find((g) => g.id === 'b2')!;
  return {
    ruleId: 'core/blocked-send', severity: 'error', category: 'leak',
    title: '300 goroutines blocked forever sending on a channel in proxy.returnErr',
    explanation: '300 goroutines are parked sending on a channel that nobody receives from any more.',
    evidence: {
      groups: [
        { id: root.id, count: 300, share: root.share, waitKind: 'chan-send', state: 'chan send', role: 'root',
          site: { func: root.blockingSite!.func, file: root.blockingSite!.file, line: 50 } },
        { id: cons.id, count: 380, share: cons.share, waitKind: 'waitgroup', state: 'semacquire', role: 'consequence',
          site: { func: cons.blockingSite!.func, file: cons.blockingSite!.file, line: 118 } },
      ],
      goroutines: 680, stack: root.frames,
      facts: ['300 of 1,061 goroutines (28.3%) wait at proxy_store.go:50', '380 goroutines wait in errgroup.(*Group).Wait for them'],
    },
    cause: 'The receiver of the channel stopped reading (returned early) while the sender has no other way out: the send has no select on ctx.Done().',
    fix: 'Make the send in returnErr select on the context (select { case c <- ev: case <-ctx.Done(): }), and keep draining the channel in the receiver instead of returning.',
    location: { file: root.blockingSite!.file, line: 50, func: root.blockingSite!.func },
    causeLocations: [{
      file: STORE, line: 141, confidence: 'high',
      excerpt: '  139 |     m, err := meta.Accessor(item.Object)\n  140 |     if err != nil {\n> 141 |         return\n  142 |     }',
      message: 'The loop receiving from the channel exits here (return) before the channel is closed, and nothing drains it afterwards.',
    }],
    snapshot: { source: a.snapshot.source, index: 0 },
  };
}
