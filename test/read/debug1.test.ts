/**
 * The debug=1 reader on real dumps from ../shared/corpus (fed line by line as the text dispatcher
 * does), plus `synthetic:` cases for shapes no corpus file has (escaped label values, inlined PC runs,
 * a cut-off last line).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SnapshotBuilder } from '../../src/model/builder.js';
import type { Frame, Snapshot } from '../../src/model/dump.js';
import { Debug1Reader, packageOf, parseProfileHeader } from '../../src/read/debug1.js';
import { readDebug1Direct } from '../helpers/debug1-direct.js';
import { CORPUS, corpusAvailable } from '../helpers/paths.js';

const corpus = corpusAvailable();
const read = (rel: string): Snapshot[] => readDebug1Direct(rel, readFileSync(join(CORPUS, rel), 'utf8'));
const allFrames = (s: Snapshot): Frame[] => s.groups.flatMap((g) => g.frames);
const sum = (s: Snapshot): number => s.groups.reduce((n, g) => n + g.count, 0);
const codes = (s: Snapshot): string[] => s.warnings.map((w) => w.code);

function readLines(text: string, profile: 'goroutine' | 'goroutineleak' = 'goroutine', declaredTotal?: number): Snapshot {
  const b = new SnapshotBuilder({ source: 'synthetic', index: 0, format: 'debug1', profile, ...(declaredTotal !== undefined ? { declaredTotal } : {}) });
  const r = new Debug1Reader(b);
  text.split('\n').forEach((l, i) => expect(r.line(l, i + 2)).toBe(true));
  r.end(false);
  return b.build();
}

describe('parseProfileHeader', () => {
  it('reads goroutine and goroutineleak headers', () => {
    expect(parseProfileHeader('goroutine profile: total 7046')).toEqual({ profile: 'goroutine', total: 7046 });
    expect(parseProfileHeader('goroutineleak profile: total 3')).toEqual({ profile: 'goroutineleak', total: 3 });
  });

  it.skipIf(!corpus)('names the threadcreate profile of the NEGATIVE control, so the dispatcher can refuse it', () => {
    const first = readFileSync(join(CORPUS, 'debug1/NEGATIVE-threadcreate-profile-legacy-godoc.txt'), 'utf8').split('\n')[0];
    expect(parseProfileHeader(first)).toEqual({ profile: 'threadcreate', total: 7 });
  });

  it('rejects lines that are not headers', () => {
    for (const l of ['goroutine 1 [running]:', 'heap profile: 1: 2 [3: 4] @ heap/1048576', 'goroutine profile: total', 'x goroutine profile: total 3', 'goroutine profile: total 3 extra']) {
      expect(parseProfileHeader(l)).toBeUndefined();
    }
  });
});

describe('packageOf', () => {
  it('ends the package at the first dot after the last slash', () => {
    expect(packageOf('k8s.io/client-go/tools/cache.(*Reflector).watch.func1')).toBe('k8s.io/client-go/tools/cache');
    expect(packageOf('main.main')).toBe('main');
    expect(packageOf('circuit/sys/lang.func·009')).toBe('circuit/sys/lang');
    expect(packageOf('example.com/m.Map[...]')).toBe('example.com/m');
    expect(packageOf('netpollblock', '/go/src/pkg/runtime/znetpoll_darwin_amd64.c')).toBe('runtime');
    expect(packageOf('gopkg.in/yaml%2ev2.(*parser).parse')).toBe('gopkg.in/yaml.v2');
    expect(packageOf('0x404d3a0')).toBe('');
  });
});

describe('# labels: lines', () => {
  const frame = '#\t0x20\tmain.f+0x5\t/m.go:9';

  it('synthetic: escaped quotes, commas, colons, unicode and byte escapes inside values', () => {
    const s = readLines(['1 @ 0x1', '# labels: {"a\\"b":"x, \\"y\\": z", "url":"http://h:8080/p", "tab":"\\t", "ru":"стол", "e":"\\u00e9"}', frame].join('\n'));
    expect(s.groups[0].labels).toEqual({ 'a"b': 'x, "y": z', url: 'http://h:8080/p', tab: '\t', ru: 'стол', e: 'é' });
    expect(s.warnings).toEqual([]);
  });

  it('synthetic: records that differ only in labels stay apart', () => {
    const s = readLines(['1 @ 0x1', '# labels: {"q":"a,\\"b\\":c"}', frame, '', '1 @ 0x1', '# labels: {"q":"other"}', frame, '', '1 @ 0x1', frame].join('\n'));
    expect(s.groups.map((g) => g.labels)).toEqual([{ q: 'a,"b":c' }, { q: 'other' }, {}]);
  });

  it('synthetic: a labels line that does not parse is warned about; the record is kept', () => {
    const s = readLines(['1 @ 0x1', '# labels: {"k":"v", "broken', frame].join('\n'));
    expect(s.total).toBe(1);
    expect(s.groups[0].labels).toEqual({});
    expect(s.warnings.map((w) => w.code)).toEqual(['bad-labels']);
  });
});

describe.skipIf(!corpus)('debug=1 corpus through Debug1Reader', () => {
  it('profilernotes-lookup-labels-mixed: total 6, labels on some records only', () => {
    const [s] = read('debug1/profilernotes-lookup-labels-mixed.txt');
    expect(s.declaredTotal).toBe(6);
    expect(s.total).toBe(6);
    expect(sum(s)).toBe(6);
    expect(s.truncated).toBe(false);
    const labelled = s.groups.filter((g) => g.labels.test_label === 'test_value');
    expect(labelled.length).toBeGreaterThan(0);
    expect(labelled.length).toBeLessThan(s.groups.length);
    const sleep = s.groups.find((g) => g.frames[1]?.func === 'main.shortSleepLoop')!;
    expect(sleep.count).toBe(2);
    expect(sleep.frames[0]).toMatchObject({ func: 'time.Sleep', pkg: 'time', line: 188, inlined: false });
    expect(sleep.frames[0].file).toBe('/usr/local/Cellar/go/1.15.6/libexec/src/runtime/time.go');
  });

  it('profilernotes-nethttp-labels: total 10', () => {
    const [s] = read('debug1/profilernotes-nethttp-labels.txt');
    expect([s.total, s.declaredTotal]).toEqual([10, 10]);
    expect(s.warnings).toEqual([]);
  });

  it('natsjsm-7046-windows-paths: CRLF, D:/ and c:/ paths split on the last colon, 7046 goroutines', () => {
    const [s] = read('debug1/natsjsm-7046-windows-paths.txt');
    expect([s.total, s.declaredTotal, s.truncated]).toEqual([7046, 7046, false]);
    expect(s.groups[0].count).toBe(1004);
    expect(s.groups[0].frames[0]).toMatchObject({
      func: 'github.com/nats-io/nats-server/v2/server.(*raft).fileWriter',
      pkg: 'github.com/nats-io/nats-server/v2/server',
      file: 'D:/project/src/github.com/nats-io/nats-server/server/raft.go',
      line: 3002,
    });
    expect(allFrames(s).some((f) => f.file === 'c:/go/src/runtime/netpoll.go' && f.line === 229)).toBe(true);
    expect(allFrames(s).every((f) => !f.file.endsWith('\r') && (f.file === '' || f.line > 0))).toBe(true);
    // The last record, `1 @ 0x467ba1`, is runtime.goexit alone (debug=1 never prints it; its PC ends
    // every other record): a goroutine not yet started, named as such and runnable.
    const notStarted = s.groups[s.groups.length - 1];
    expect(notStarted.frames.map((f) => f.func)).toEqual(['runtime.goexit']);
    expect(notStarted.waitKind).toBe('runnable');
    expect(codes(s)).toContain('not-started');
    expect(codes(s)).not.toContain('unsymbolized');
  });

  it('cyrillic-path-with-spaces: 8 profiles of 2, never summed, Cyrillic paths with spaces kept whole', () => {
    const snaps = read('debug1/cyrillic-path-with-spaces.txt');
    expect(snaps).toHaveLength(8);
    for (const s of snaps) expect([s.total, s.declaredTotal, s.truncated]).toEqual([2, 2, false]);
    const f = snaps[0].groups[0].frames.find((x) => x.func === 'main.main.func1')!;
    expect(f.file).toContain('/home/andrey/Рабочий стол/');
    expect(f.file.endsWith('.go')).toBe(true);
    expect(f.line).toBe(23);
  });

  it('gocircuit-go1.1-era-c-runtime: func·NNN closures, C runtime frames, :0 lines, a record with no # lines', () => {
    const [s] = read('debug1/gocircuit-go1.1-era-c-runtime.txt');
    expect([s.total, s.declaredTotal, s.truncated]).toEqual([18, 18, false]);
    const frames = allFrames(s);
    expect(frames.find((f) => f.func === 'circuit/sys/lang.func·009')?.pkg).toBe('circuit/sys/lang');
    expect(frames.find((f) => f.func === 'netpollblock')).toMatchObject({ pkg: 'runtime', line: 255 });
    expect(frames.find((f) => f.func === 'main.init')).toMatchObject({ line: 0, file: '/Users/petar/.datahero/build/app/src/datahero/worker/init.go' });
    expect(frames.find((f) => f.func === 'circuit/kit/zookeeper._Cfunc_wait_for_watch')?.file).toBe('circuit/kit/zookeeper/_obj/_cgo_defun.c');
    // `1 @ 0x404d3a0`: only runtime.goexit (the PC that ends every other record), hidden by debug=1:
    // a goroutine not yet started, not an unsymbolized record.
    expect(s.groups.some((g) => g.frames.length === 1 && g.frames[0].func === 'runtime.goexit' && g.waitKind === 'runnable')).toBe(true);
    expect(codes(s).filter((c) => c === 'unsymbolized')).toHaveLength(0);
    expect(codes(s).filter((c) => c === 'not-started')).toHaveLength(1);
  });

  it('linkify-markdown-escaped-go1.6: \\# lines, blank lines between frames, "..." elisions, a markdown link path', () => {
    const [s] = read('debug1/linkify-markdown-escaped-go1.6.txt');
    expect(s.declaredTotal).toBe(3);
    expect(s.total).toBe(1);
    expect(s.groups[0].frames.map((f) => f.func)).toEqual([
      'net.runtime_pollWait', 'net.(*pollDesc).Wait', 'net.(*pollDesc).WaitRead', 'net.(*netFD).accept',
      'net.(*TCPListener).AcceptTCP', 'net/http.tcpKeepAliveListener.Accept', 'net/http.(*Server).Serve',
      'net/http.(*Server).ListenAndServe', 'main.main', 'runtime.main',
    ]);
    expect(s.groups[0].frames[8]).toMatchObject({ file: '/Users/sasha/go/src/github.com/sasha-s/go-linkify-stacktraces/cmd/linkify-example/lnk.go', line: 33 });
    // 2 of the 3 goroutines were cut out by hand: counts are lower bounds.
    expect(s.truncated).toBe(true);
    expect(codes(s)).toEqual(expect.arrayContaining(['elided-text', 'total-mismatch']));
  });

  it('leakprofile: goroutineleak then goroutine profile in one stream, separators and trailer refused, last record without blank line counted', () => {
    const text = readFileSync(join(CORPUS, 'leakprofile/ko-notes-goroutineleak-debug1-plus-goroutine-profile.txt'), 'utf8');
    const [leak, all] = readDebug1Direct('leak', text);
    expect([leak.profile, leak.total, leak.declaredTotal]).toEqual(['goroutineleak', 3, 3]);
    expect(leak.groups).toHaveLength(1);
    expect(leak.groups[0].flags.leaked).toBe(true);
    expect(leak.groups[0].frames[0]).toMatchObject({ func: 'main.sendNoRecv.func1', file: 'ex/t31prof.go', line: 11 });
    expect([all.profile, all.total, all.declaredTotal, all.truncated]).toEqual(['goroutine', 5, 5, false]);
    expect(all.groups.find((g) => g.frames[0].func === 'main.poller.func1')?.count).toBe(1);
    expect(all.groups.every((g) => !g.flags.leaked)).toBe(true);
    expect(leak.lines).toEqual({ first: 2, last: 4 });
  });

  it('leakprofile: the reader refuses the separator line and every line after it', () => {
    const b = new SnapshotBuilder({ source: 'x', index: 0, format: 'debug1', profile: 'goroutineleak', declaredTotal: 3 });
    const r = new Debug1Reader(b);
    expect(r.line('3 @ 0x47d84a 0x4836a1', 3)).toBe(true);
    expect(r.line('', 4)).toBe(true);
    expect(r.line('===== goroutine (debug=1)', 5)).toBe(false);
    expect(r.line('1 @ 0x1', 6)).toBe(false);
    r.end(false);
    expect(b.build().total).toBe(3);
  });
});

describe('debug=1 records', () => {
  it('synthetic: consecutive # lines with one PC are an inline group: all but the last are inlined', () => {
    const s = readLines([
      '2 @ 0x1 0x2 0x3',
      '#\t0x10\tpkg/a.inner+0x1\t\t/a.go:1',
      '#\t0x10\tpkg/a.middle+0x1\t/a.go:2',
      '#\t0x10\tpkg/a.outer+0x1\t/a.go:3',
      '#\t0x20\tmain.main+0x5\t\t\t/m.go:9',
    ].join('\n'), 'goroutine', 2);
    expect(s.groups[0].frames.map((f) => [f.func, f.inlined])).toEqual([
      ['pkg/a.inner', true], ['pkg/a.middle', true], ['pkg/a.outer', false], ['main.main', false],
    ]);
    expect(s.warnings).toEqual([]);
  });

  it('synthetic: a frame with no symbol keeps its PC as the function', () => {
    const s = readLines('1 @ 0x1 0x2\n#\t0x4dec3d\n#\t0x20\tmain.main+0x5\t/m.go:9');
    expect(s.groups[0].frames[0]).toMatchObject({ func: '0x4dec3d', pkg: '', file: '', line: 0 });
    expect(s.groups[0].frames[1].func).toBe('main.main');
  });

  it('synthetic: input cut inside the last record marks the snapshot truncated and the record partial', () => {
    const b = new SnapshotBuilder({ source: 'cut', index: 0, format: 'debug1', profile: 'goroutine', declaredTotal: 5 });
    const r = new Debug1Reader(b);
    for (const [i, l] of ['3 @ 0x1', '#\t0x20\tmain.f+0x5\t/m.go:9', '', '2 @ 0x1 0x2', '#\t0x30\tmain.g+0x1\t/m.g'].entries()) r.line(l, i + 2);
    r.end(true);
    const s = b.build();
    expect(s.truncated).toBe(true);
    expect(s.total).toBe(5);
    expect(s.groups.map((g) => g.partial)).toEqual([false, true]);
    expect(s.groups[1].frames[0]).toMatchObject({ func: 'main.g', file: '/m.g', line: 0 });
  });

  it('synthetic: 250k goroutines in 5,000 records of 20 frames (3,000 distinct # lines) are all counted', () => {
    const pool: string[] = [];
    for (let k = 0; k < 3000; k++) {
      pool.push(`#\t0x${(0x400000 + k * 64).toString(16)}\texample.com/svc/pkg${k % 97}.(*T).m${k}+0x${(k % 200).toString(16)}\t\t/home/b/go/pkg/mod/example.com/svc@v1.2.3/pkg${k % 97}/f${k % 13}.go:${100 + k}`);
    }
    let seed = 1;
    const next = (): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % pool.length;
    const lines: string[] = [];
    for (let i = 0; i < 5000; i++) {
      lines.push(`50 @ 0x437a96 0x447832 0x${(0x89f87c + i).toString(16)} 0x467ba1`);
      for (let j = 0; j < 20; j++) lines.push(pool[next()]);
      lines.push('');
    }
    const b = new SnapshotBuilder({ source: 'big', index: 0, format: 'debug1', profile: 'goroutine', declaredTotal: 250_000 });
    const r = new Debug1Reader(b);
    for (let i = 0; i < lines.length; i++) r.line(lines[i], i + 2);
    r.end(false);
    const s = b.build();
    expect(s.total).toBe(250_000);
    expect(s.groups).toHaveLength(5000);
    // Speed is measured by `npm run bench`, not here.
  });
});
