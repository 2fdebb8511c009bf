/**
 * Report inputs for renderer tests: the real pipeline (readDump → analyze → runRules) on samples and
 * corpus files, and one hand-built hostile input whose frames are quoted from the API-proxy sample
 * dump but whose labels, headline and rule text carry every character a format must escape.
 */
import { join } from 'node:path';
import { analyze } from '../../src/analyze/index.js';
import type { Analysis } from '../../src/analyze/types.js';
import { readDump } from '../../src/read/index.js';
import type { ReportInput } from '../../src/report/types.js';
import { runRules } from '../../src/rules/index.js';
import type { Finding } from '../../src/rules/types.js';
import { snapshot } from '../analyze/fixtures.js';
import { CORPUS, SAMPLES } from '../helpers/paths.js';

export const LEAK_DEBUG2 = join(SAMPLES, 'apiproxy-leak', 'goroutine.debug2.txt');
export const LEAK_DEBUG1 = join(SAMPLES, 'apiproxy-leak', 'goroutine.debug1.txt');
export const LEAK_DEBUG0 = join(SAMPLES, 'apiproxy-leak', 'goroutine.debug0.pb.gz');
export const HEALTHY_DEBUG2 = join(SAMPLES, 'healthy-server', 'goroutine.debug2.txt');
export const MAP_CRASH = join(SAMPLES, 'concurrent-map-crash', 'crash.txt');

/** Corpus files of every reader, for schema validation over real variety. */
export const CORPUS_PICKS = [
  'debug2/gostackparse-go121_createdby.txt',
  'debug2/panicparse-panicweb-nethttp-debug2.txt',
  'debug2/kvstore-raft-windows-program-files.txt',
  'debug1/cyrillic-path-with-spaces.txt',
  'debug1/profilernotes-nethttp-labels.txt',
  'binary/profilernotes-nethttp-debug0-labels.pb.gz',
  'crash/gonb-etcd-7070-race-then-double-concurrent-map-writes.txt',
  'race/panicparse-race-gotraceback-all.txt',
].map((p) => join(CORPUS, p));

export async function analyses(path: string): Promise<{ analyses: Analysis[]; findings: Finding[]; races: ReportInput['races'] }> {
  const dump = await readDump(path);
  const as = dump.snapshots.map((s) => analyze(s));
  const findings = as.flatMap((a, i) => runRules(a, i === 0 ? { races: dump.races } : {}));
  return { analyses: as, findings, races: dump.races };
}

/** `inspect` of some files, as the CLI builds it. */
export async function inspectInput(paths: readonly string[]): Promise<ReportInput> {
  const all = await Promise.all(paths.map(analyses));
  const races = all.flatMap((x) => x.races ?? []);
  return {
    command: 'inspect',
    analyses: all.flatMap((x) => x.analyses),
    findings: all.flatMap((x) => x.findings),
    ...(races.length ? { races } : {}),
  };
}

/** Strings that break naive renderers, each in a place a dump or a rule can put it. */
export const HOSTILE = {
  label: 'a|b`c<script>alert(1)</script>\nnext "line" & \'more\' %0A, x:y',
  headline: 'panic: boom | `tick` <img src=x onerror=alert(1)> 100% done\r\nsecond: line, third',
  func: 'example.com/apiproxy/pkg/stores/proxy.returnErr',
  file: '/work/main/samples/apiproxy-leak/pkg/stores/proxy/proxy_store.go',
};

/** Frames quoted from samples/apiproxy-leak/goroutine.debug2.txt, goroutine 288 (the blocked sender). */
const SENDER = `
example.com/apiproxy/pkg/stores/proxy.returnErr /work/main/samples/apiproxy-leak/pkg/stores/proxy/proxy_store.go:50 (inl)
example.com/apiproxy/pkg/stores/proxy.(*Store).listAndWatch.func3 /work/main/samples/apiproxy-leak/pkg/stores/proxy/proxy_store.go:107
golang.org/x/sync/errgroup.(*Group).Go.func1 /work/main/samples/apiproxy-leak/third_party/golang.org/x/sync/errgroup/errgroup.go:81
`;

/** Frames quoted from the same dump, goroutine 672 (its parent in errgroup Wait). */
const WAITER = `
sync.runtime_Semacquire /usr/lib/go-1.19/src/runtime/sema.go:62
sync.(*WaitGroup).Wait /usr/lib/go-1.19/src/sync/waitgroup.go:139
golang.org/x/sync/errgroup.(*Group).Wait /work/main/samples/apiproxy-leak/third_party/golang.org/x/sync/errgroup/errgroup.go:59
example.com/apiproxy/pkg/stores/proxy.(*Store).listAndWatch /work/main/samples/apiproxy-leak/pkg/stores/proxy/proxy_store.go:118
example.com/apiproxy/pkg/stores/proxy.(*Store).watch.func1 /work/main/samples/apiproxy-leak/pkg/stores/proxy/proxy_store.go:155
`;

export function hostileAnalysis(senders = 300): Analysis {
  const snap = snapshot('debug2', [
    { frames: SENDER, state: 'chan send', count: senders, labels: { subscription: HOSTILE.label }, waitMinutes: 12 },
    { frames: WAITER, state: 'semacquire', count: 380 },
  ]);
  const withHeadline = { ...snap, source: 'dir with space/dump|1.txt', headline: { kind: 'panic' as const, message: HOSTILE.headline, lines: [HOSTILE.headline] } };
  return analyze(withHeadline);
}

export function hostileFinding(a: Analysis): Finding {
  const root = a.groups.find((g) => g.waitKind === 'chan-send')!;
  const waiter = a.groups.find((g) => g !== root)!;
  const site = root.blockingSite!;
  return {
    ruleId: 'core/blocked-send',
    severity: 'error',
    category: 'leak',
    confidence: 'high',
    pack: 'core',
    title: `${root.count} goroutines blocked | sending <here> at \`proxy_store.go:50\``,
    explanation: `Label ${HOSTILE.label}\nParked in \`chan send\`: 100% of 'them', a:b, c.`,
    cause: 'The consumer returned early: `return` inside `for ev := range c`.',
    fix: 'Drain: `for range c {}`; or `select { case c <- ev: case <-ctx.Done(): return }`.',
    evidence: {
      groups: [
        { id: root.id, count: root.count, share: root.share, waitKind: root.waitKind, state: 'chan send', site: { func: site.func, file: site.file, line: site.line }, wait: { min: 12, max: 12 }, role: 'root' },
        {
          id: waiter.id, count: waiter.count, share: waiter.share, waitKind: waiter.waitKind, state: 'semacquire',
          site: { func: waiter.blockingSite!.func, file: waiter.blockingSite!.file, line: waiter.blockingSite!.line }, role: 'consequence',
        },
      ],
      goroutines: root.count + waiter.count,
      stack: root.frames,
      facts: [`${root.count} of ${a.total} goroutines <wait> | here`],
    },
    location: { file: site.file, line: site.line, func: site.func },
    causeLocations: [{ file: site.file.replace('proxy_store.go', 'rbac_store.go'), line: 97, excerpt: 'if err != nil {\n\treturn err // `early`\n}', message: 'consumer loop returns <early>', confidence: 'high' }],
    snapshot: { source: a.snapshot.source, index: 0 },
  };
}

export function hostileInput(): ReportInput {
  const a = hostileAnalysis();
  return { command: 'inspect', analyses: [a], findings: [hostileFinding(a)] };
}
