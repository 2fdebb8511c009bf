/**
 * Hand-built analyses for rule unit tests, with frames quoted from real dumps (corpus and samples):
 * `group({ count, waitKind, frames: ['runtime.gopark', 'example.com/x.f @ /src/x.go:12', …] })`.
 * Origins follow the analyzer's contract: runtime, stdlib (first path element has no dot),
 * dependency, user (`main`, `example.com/`, or `user` prefixes given).
 */
import { createHash } from 'node:crypto';
import type { Analysis, AnalyzedGroup, FrameOrigin, GroupLink, SiteFrame } from '../../src/analyze/types.js';
import type { Headline, ProfileKind, WaitKind } from '../../src/model/dump.js';

const USER = ['main', 'example.com/', 'github.com/gypsydave5/', 'ase/', 'leakscope.test/'];

export function pkgOf(func: string): string {
  const slash = func.lastIndexOf('/');
  const dot = func.indexOf('.', slash + 1);
  return dot < 0 ? func : func.slice(0, dot);
}

export function originOf(func: string): FrameOrigin {
  const pkg = pkgOf(func);
  if (pkg === 'runtime' || pkg.startsWith('runtime/internal') || pkg.startsWith('internal/runtime')) return 'runtime';
  if (USER.some((u) => pkg === u || pkg.startsWith(u))) return 'user';
  const first = pkg.split('/')[0];
  return first.includes('.') ? 'dependency' : 'stdlib';
}

/** `func @ file:line` (inlined when the line ends in ` (inlined)`); file/line optional. */
export function frame(spec: string, index: number): SiteFrame {
  const inlined = spec.endsWith(' (inlined)');
  const s = inlined ? spec.slice(0, -' (inlined)'.length) : spec;
  const [func, where = ''] = s.split(' @ ');
  const colon = where.lastIndexOf(':');
  const file = colon > 0 ? where.slice(0, colon) : where;
  const line = colon > 0 ? Number(where.slice(colon + 1)) : 0;
  return { func, pkg: pkgOf(func), file, line, inlined, origin: originOf(func), index };
}

export interface GroupSpec {
  count: number;
  waitKind: WaitKind;
  state?: string;
  frames: string[];
  creator?: string;
  creatorIds?: number[];
  ids?: number[];
  wait?: { min: number; max: number };
  flags?: AnalyzedGroup['flags'];
  labels?: Record<string, string>;
}

export function group(g: GroupSpec): AnalyzedGroup {
  const frames = g.frames.map(frame);
  const key = `${g.waitKind}|${g.state ?? ''}|${g.frames.join(';')}|${g.creator ?? ''}`;
  const creator = g.creator ? frame(g.creator, 0) : undefined;
  return {
    key,
    id: createHash('sha1').update(key).digest('hex').slice(0, 8),
    count: g.count,
    share: 0,
    waitKind: g.waitKind,
    states: [g.state ?? g.waitKind],
    ...(g.wait ? { wait: { ...g.wait, stamped: g.count } } : {}),
    frames,
    blockingSite: frames.find((f) => f.origin === 'user'),
    ...(creator
      ? { creator: { func: creator.func, pkg: creator.pkg, file: creator.file, line: creator.line, goroutineIds: g.creatorIds ?? [] } }
      : {}),
    labels: g.labels ?? {},
    labelSets: 1,
    goroutineIds: g.ids ?? [],
    flags: g.flags ?? {},
    elidedFrames: 0,
    partial: false,
    members: [0],
  };
}

export interface AnalysisSpec {
  source?: string;
  profile?: ProfileKind;
  format?: 'pprof' | 'debug1' | 'debug2';
  headline?: Headline;
  links?: GroupLink[];
}

export function analysis(groups: AnalyzedGroup[], spec: AnalysisSpec = {}): Analysis {
  const total = groups.reduce((n, g) => n + g.count, 0);
  const withShare = groups.map((g) => ({ ...g, share: total ? g.count / total : 0 })).sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
  const byWaitKind: Partial<Record<WaitKind, number>> = {};
  for (const g of withShare) byWaitKind[g.waitKind] = (byWaitKind[g.waitKind] ?? 0) + g.count;
  return {
    snapshot: {
      source: spec.source ?? 'test.txt',
      index: 0,
      format: spec.format ?? 'debug2',
      profile: spec.profile ?? 'goroutine',
      ...(spec.headline ? { headline: spec.headline } : {}),
      total,
      truncated: false,
      groups: [],
      links: [],
      warnings: [],
    },
    level: 'exact',
    total,
    groups: withShare,
    byWaitKind,
    links: spec.links ?? [],
  };
}

/** Background of a healthy net/http server (frames from corpus/debug2/profilernotes-nethttp-debug2-waitsince.txt). */
export function httpServerBackground(): AnalyzedGroup[] {
  return [
    group({
      count: 1,
      waitKind: 'io',
      state: 'IO wait',
      frames: [
        'runtime.gopark @ /usr/local/go/src/runtime/proc.go:337',
        'internal/poll.runtime_pollWait @ /usr/local/go/src/runtime/netpoll.go:234',
        'net.(*TCPListener).Accept @ /usr/local/go/src/net/tcpsock.go:261',
        'net/http.(*Server).Serve @ /usr/local/go/src/net/http/server.go:2981',
        'net/http.ListenAndServe @ /usr/local/go/src/net/http/server.go:3209',
        'main.main @ /home/user/app/main.go:40',
      ],
    }),
    group({
      count: 3,
      waitKind: 'sleep',
      state: 'sleep',
      frames: ['runtime.gopark @ /usr/local/go/src/runtime/proc.go:337', 'time.Sleep @ /usr/local/go/src/runtime/time.go:193', 'main.work @ /home/user/app/main.go:77'],
      creator: 'main.main @ /home/user/app/main.go:30',
    }),
  ];
}
