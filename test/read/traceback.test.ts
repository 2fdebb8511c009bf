/**
 * The traceback reader, shape by shape. Every input is quoted from a real dump (the corpus file or
 * sample named beside it), or, for shapes no real dump here has, from go-dump-formats.md (tests named
 * `go-dump-formats.md: …`). Hand-written text appears only in tests named `malformed …`.
 */
import { describe, expect, it } from 'vitest';
import type { Dump, Group, Snapshot } from '../../src/model/dump.js';
import { readDumpFrom } from '../../src/read/index.js';
import { FILE, callArgsStart, parseFileLine, parseHeader, pkgOf } from '../../src/read/frame.js';

const read = (lines: string[]): Promise<Dump> => readDumpFrom('test', lines.join('\n') + '\n');
const only = async (lines: string[]): Promise<Snapshot> => {
  const d = await read(lines);
  expect(d.snapshots).toHaveLength(1);
  return d.snapshots[0];
};
const group = async (lines: string[]): Promise<Group> => (await only(lines)).groups[0];

describe('goroutine header', () => {
  it('plain status (profilernotes-panic-inlined)', () => {
    expect(parseHeader('goroutine 1 [running]:')).toEqual({ id: 1, state: 'running' });
  });

  it('wait minutes (gostackparse-waitsince)', () => {
    expect(parseHeader('goroutine 22 [sleep, 1 minutes]:')).toEqual({ id: 22, state: 'sleep', waitMinutes: 1 });
  });

  it('minutes and locked to thread (panicparse-panicweb-nethttp-debug2)', () => {
    expect(parseHeader('goroutine 1 [chan receive, 2 minutes, locked to thread]:')).toEqual({
      id: 1, state: 'chan receive', waitMinutes: 2, flags: { lockedToThread: true },
    });
  });

  it('locked to thread (droute-logger-prefixed-panic-go1.8, gostackparse-lockedm)', () => {
    expect(parseHeader('goroutine 38 [select, locked to thread]:')?.flags).toEqual({ lockedToThread: true });
    expect(parseHeader('goroutine 7 [running, locked to thread]:')?.state).toBe('running');
  });

  it('wait reasons with parentheses stay in the state (rinha, vcabbage, nil-channel sample)', () => {
    expect(parseHeader('goroutine 19 [trace reader (blocked)]:')?.state).toBe('trace reader (blocked)');
    expect(parseHeader('goroutine 2 [force gc (idle)]:')?.state).toBe('force gc (idle)');
    // `(nil chan)` matters: the goroutine can never be woken.
    expect(parseHeader('goroutine 7 [chan receive (nil chan)]:')).toEqual({ id: 7, state: 'chan receive (nil chan)' });
  });

  it('state with a dot and capitals (kvstore-raft-windows-program-files)', () => {
    expect(parseHeader('goroutine 23 [sync.Mutex.Lock]:')?.state).toBe('sync.Mutex.Lock');
  });

  it('go-dump-formats.md: `goroutine <id>[ gp=<ptr> m=<id|nil>[ mp=<ptr>]] [<status>…]` (Go 1.22+)', () => {
    expect(parseHeader('goroutine 1 gp=0xc000002380 m=0 mp=0x55d3a0 [running]:')).toEqual({ id: 1, state: 'running' });
    expect(parseHeader('goroutine 0 gp=0x55d8e0 m=0 mp=0x55d3a0 [idle]:')?.id).toBe(0);
    expect(parseHeader('goroutine 18 gp=0xc000102700 m=nil [GC worker (idle), 3 minutes]:')).toEqual({
      id: 18, state: 'GC worker (idle)', waitMinutes: 3,
    });
  });

  it('go-dump-formats.md: ` (scan)` shown while the GC is scanning the goroutine', () => {
    expect(parseHeader('goroutine 9 [chan receive (scan)]:')).toEqual({ id: 9, state: 'chan receive', flags: { scan: true } });
  });

  it('go-dump-formats.md: ` (leaked)` appended to the wait reason (`[chan send (leaked)]`, Go 1.26+)', () => {
    expect(parseHeader('goroutine 12 [chan send (leaked)]:')).toEqual({ id: 12, state: 'chan send', flags: { leaked: true } });
    expect(parseHeader('goroutine 13 [chan send (nil chan) (leaked), 5 minutes]:')).toEqual({
      id: 13, state: 'chan send (nil chan)', flags: { leaked: true }, waitMinutes: 5,
    });
  });

  it('go-dump-formats.md: `, synctest bubble N` / `, synctest group N` and `chan receive (durable)`', () => {
    expect(parseHeader('goroutine 5 [chan receive (durable), synctest bubble 3]:')).toEqual({
      id: 5, state: 'chan receive', flags: { durable: true, synctestBubble: 3 },
    });
    expect(parseHeader('goroutine 6 [select, synctest group 1]:')?.flags).toEqual({ synctestBubble: 1 });
  });

  it('go-dump-formats.md: Go 1.27 ` {k: v, ...}` labels after the bracket, quoted only when needed', () => {
    expect(parseHeader('goroutine 21 [select, 2 minutes] {test.iter: "0_seed#0", worker: 7}:')).toEqual({
      id: 21, state: 'select', waitMinutes: 2, labels: { 'test.iter': '0_seed#0', worker: '7' },
    });
    // Non-printable characters are escaped; `]` and `,` inside a quoted value do not end anything.
    expect(parseHeader('goroutine 22 [running] {"odd key": "a]b, c\\tz"}:')?.labels).toEqual({ 'odd key': 'a]b, c\tz' });
  });

  it('go-dump-formats.md: the older `labels:{"k": "v"}` inside the brackets', () => {
    expect(parseHeader('goroutine 8 [chan receive, 1 minutes, labels:{"k": "v", "handler": "/api]"}]:')).toEqual({
      id: 8, state: 'chan receive', waitMinutes: 1, labels: { k: 'v', handler: '/api]' },
    });
  });

  it('not headers: race sections and ancestor blocks', () => {
    expect(parseHeader('Goroutine 10 (running) created at:')).toBeUndefined();
    expect(parseHeader('[originating from goroutine 24]:')).toBeUndefined();
    expect(parseHeader('goroutine running on other thread; stack unavailable')).toBeUndefined();
  });
});

describe('call lines', () => {
  const func = (line: string): string => line.slice(0, callArgsStart(line));

  it('register-ABI args with `?` and `{...}` (rinha-text-dump-named-pprof)', () => {
    expect(func('runtime/pprof.writeGoroutine({0xab0160?, 0xc000298b60?}, 0xc000711b00?)')).toBe('runtime/pprof.writeGoroutine');
  });

  it('receivers keep their parentheses (kvstore-raft-windows-program-files)', () => {
    expect(func('net/http.(*conn).serve(0xc0001ae360, {0x7ff789eb4530, 0xc0000ac2a0})')).toBe('net/http.(*conn).serve');
    expect(func('testing.(*T).Run(0xc0000fc340, {0x5e68c9, 0xd}, 0x5f1398)')).toBe('testing.(*T).Run');
  });

  it('generic `F[...]` (transferfile-trimpath-133)', () => {
    expect(func('github.com/hashicorp/golang-lru/v2/expirable.NewLRU[...].func1()')).toBe('github.com/hashicorp/golang-lru/v2/expirable.NewLRU[...].func1');
    expect(func('github.com/ledgerwatch/erigon/p2p/sentry/sentry_multi_client.pumpStreamLoop[...]({0x2ecdff0, 0xc0016cc690?}, {0x2ee8678?, 0xc0016b98f0?}, {0x273feb9, 0xb}, 0xc001be5f70, 0x2bc8cd8, 0xc0015e6000, 0x0, ...)'))
      .toBe('github.com/ledgerwatch/erigon/p2p/sentry/sentry_multi_client.pumpStreamLoop[...]');
  });

  it('arguments elided with `, ...` and `{}` args (vcabbage, ko-notes-fatal-removed-godebug)', () => {
    expect(func('main.MyFunc(0x24507b, 0x0, 0x46f1c5, 0x5, 0x4c, 0xc000016001, 0x315, 0x1, 0x2, 0x3, ...)')).toBe('main.MyFunc');
    expect(func('runtime.goexit({})')).toBe('runtime.goexit');
  });

  it('inlined `(...)` frames without offset (profilernotes-panic-inlined)', async () => {
    const g = await group(['panic: oh no', '', 'goroutine 1 [running]:', 'main.bar(...)', '\t/go/src/presentation/main.go:18', 'main.foo()', '\t/go/src/presentation/main.go:13 +0x85', 'main.main()', '\t/go/src/presentation/main.go:8 +0x25']);
    expect(g.frames.map((f) => [f.func, f.line, f.inlined])).toEqual([['main.bar', 18, true], ['main.foo', 13, false], ['main.main', 8, false]]);
  });
});

describe('file lines', () => {
  const file = (line: string): [string, number] | undefined => (parseFileLine(line) ? [FILE.file, FILE.line] : undefined);

  it('offset and fp/sp/pc suffixes (vcabbage-gotraceback-crash-go1.12-args-elided)', () => {
    expect(file('\t/home/kale/goroots/go1.12/src/runtime/panic.go:565 +0x2c5 fp=0xc000048710 sp=0xc000048680 pc=0x423135')).toEqual(['/home/kale/goroots/go1.12/src/runtime/panic.go', 565]);
  });

  it('fp/sp without pc, Go 1.6 (issue-k8s-37421-syslog-prefixed-concurrent-map-writes-excerpt)', () => {
    expect(file('/usr/local/go/src/runtime/hashmap.go:445 +0xb1 fp=0xc820cbbb58 sp=0xc820cbbab0')).toEqual(['/usr/local/go/src/runtime/hashmap.go', 445]);
  });

  it('Windows path with a space (kvstore-raft-windows-program-files)', () => {
    expect(file('\tC:/Program Files/Go/src/runtime/pprof/pprof.go:756 +0x6b')).toEqual(['C:/Program Files/Go/src/runtime/pprof/pprof.go', 756]);
  });

  it('go-dump-formats.md: Windows paths contain `C:`, so split on the last colon', () => {
    expect(file('\tC:\\Users\\dev\\go\\src\\app\\main.go:42 +0x1d')).toEqual(['C:\\Users\\dev\\go\\src\\app\\main.go', 42]);
  });

  it('8-space indent from a paste, no offset (weibospider-windows-exception-cgo, profilernotes-frame-order-inlined)', () => {
    expect(file('        _cgo_gotypes.go:4939 +0x57 fp=0xc0000cde28 sp=0xc0000cde00 pc=0xe9eb77')).toEqual(['_cgo_gotypes.go', 4939]);
    expect(file('\t/Users/felix.geisendoerfer/go/src/github.com/felixge/go-profiler-notes/examples/frame-order/main.go:13')).toEqual(['/Users/felix.geisendoerfer/go/src/github.com/felixge/go-profiler-notes/examples/frame-order/main.go', 13]);
  });

  it('autogenerated, trimpath and _testmain (unexpected-return-pc, transferfile, gonb-etcd)', () => {
    expect(file('        <autogenerated>:1 +0x26 fp=0xc00021fe00 sp=0xc00021fdb8 pc=0x4069126')).toEqual(['<autogenerated>', 1]);
    expect(file('\truntime/pprof/pprof.go:703 +0x6a')).toEqual(['runtime/pprof/pprof.go', 703]);
    expect(file('\t_testmain.go:47 +0x2be')).toEqual(['_testmain.go', 47]);
  });

  it('tab stripped by journald (journald-kubelet-klog-fatal-tabs-stripped)', () => {
    expect(file('_output/dockerized/go/src/k8s.io/kubernetes/cmd/kubelet/kubelet.go:41 +0xe5')).toEqual(['_output/dockerized/go/src/k8s.io/kubernetes/cmd/kubelet/kubelet.go', 41]);
  });
});

describe('package of a function', () => {
  it('import path up to the first dot after the last slash', () => {
    expect(pkgOf('k8s.io/client-go/tools/record.(*eventBroadcasterImpl).StartEventWatcher.func1')).toBe('k8s.io/client-go/tools/record'); // insights-operator
    expect(pkgOf('golang.org/x/sync/errgroup.(*Group).Go.func1')).toBe('golang.org/x/sync/errgroup'); // apiproxy-leak sample
    expect(pkgOf('main.main')).toBe('main');
    expect(pkgOf('gopkg.in/DataDog/dd-trace-go.v1/profiler/internal/stackparse.TestParse_Example')).toBe('gopkg.in/DataDog/dd-trace-go.v1/profiler/internal/stackparse'); // gostackparse-lockedm
    expect(pkgOf('projects2/viperutil.GetMapN')).toBe('projects2/viperutil'); // droute
    expect(pkgOf('github.com/hashicorp/golang-lru/v2/expirable.NewLRU[...].func1')).toBe('github.com/hashicorp/golang-lru/v2/expirable'); // transferfile
    expect(pkgOf('panic')).toBe('runtime'); // Go ≤ 1.12 prints runtime.gopanic as `panic(…)`
  });
});

describe('goroutine bodies', () => {
  it('created by, before and after Go 1.21 (gostackparse-go121_createdby, droute)', async () => {
    const s = await only(['goroutine 18 [running]:', 'main.printStack()', '\t/Users/nick.ripley/repos/gostackparse/test-fixtures/go121_createdby.go:23 +0x40', 'main.main.func1()', '\t/Users/nick.ripley/repos/gostackparse/test-fixtures/go121_createdby.go:16 +0x4c', 'created by main.main in goroutine 1', '\t/Users/nick.ripley/repos/gostackparse/test-fixtures/go121_createdby.go:14 +0x70', '', 'goroutine 35 [syscall]:', 'os/signal.signal_recv(0x0)', '\t/Users/fcavani/go/go1.8.1/src/runtime/sigqueue.go:116 +0xff', 'os/signal.loop()', '\t/Users/fcavani/go/go1.8.1/src/os/signal/signal_unix.go:22 +0x22', 'created by os/signal.init.1', '\t/Users/fcavani/go/go1.8.1/src/os/signal/signal_unix.go:28 +0x41']);
    expect(s.groups[0].creator).toEqual({ func: 'main.main', pkg: 'main', file: '/Users/nick.ripley/repos/gostackparse/test-fixtures/go121_createdby.go', line: 14, goroutineIds: [1] });
    expect(s.groups[1].creator).toEqual({ func: 'os/signal.init.1', pkg: 'os/signal', file: '/Users/fcavani/go/go1.8.1/src/os/signal/signal_unix.go', line: 28, goroutineIds: [] });
  });

  it('`...additional frames elided...` before Go 1.21 → elidedFrames -1 (gostackparse-frameselided_goroutine)', async () => {
    const g = await group(['goroutine 18 [running]:', 'main.stackDump(0x60, 0xc000128060)', '\t/Users/felix.geisendoerfer/go/src/github.com/DataDog/dd-trace-go/profiler/internal/stackparse/test-fixtures/frameselided_goroutine.go:18 +0x33', '...additional frames elided...', 'created by main.main', '\t/Users/felix.geisendoerfer/go/src/github.com/DataDog/dd-trace-go/profiler/internal/stackparse/test-fixtures/frameselided_goroutine.go:10 +0x3f']);
    expect(g.elidedFrames).toBe(-1);
    expect(g.creator?.func).toBe('main.main');
    expect(g.partial).toBe(false);
  });

  it('go-dump-formats.md: Go 1.21+ `...N frames elided...` between the innermost and outermost 50, frames follow', async () => {
    const g = await group(['goroutine 1 [running]:', 'main.recurse(0x0)', '\t/app/main.go:9 +0x25', '...20 frames elided...', 'main.recurse(0x45)', '\t/app/main.go:9 +0x25', 'main.main()', '\t/app/main.go:14 +0x1d']);
    expect(g.elidedFrames).toBe(20);
    expect(g.frames.map((f) => f.func)).toEqual(['main.recurse', 'main.recurse', 'main.main']);
  });

  it('ancestors `[originating from goroutine N]:` (gostackparse-ancestors)', async () => {
    const g = await group(['goroutine 29 [chan receive]:', 'main.bar(0x140000a4240, 0x0)', '\t/Users/eric/Downloads/gostackparse/test-fixtures/ancestors.go:57 +0x11c', 'main.foo.func2()', '\t/Users/eric/Downloads/gostackparse/test-fixtures/ancestors.go:50 +0x34', 'created by main.d1', '\t/Users/eric/Downloads/gostackparse/test-fixtures/ancestors.go:69 +0x34', '[originating from goroutine 28]:', 'main.d1(...)', '\t/Users/eric/Downloads/gostackparse/test-fixtures/ancestors.go:70 +0x34', 'main.foo(...)', '\t/Users/eric/Downloads/gostackparse/test-fixtures/ancestors.go:52 +0xec', 'created by main.main', '\t/Users/eric/Downloads/gostackparse/test-fixtures/ancestors.go:19 +0x58', '[originating from goroutine 1]:', 'main.main(...)', '\t/Users/eric/Downloads/gostackparse/test-fixtures/ancestors.go:23 +0x58']);
    expect(g.frames).toHaveLength(2);
    expect(g.creator?.func).toBe('main.d1');
    expect(g.ancestors.map((a) => [a.goroutineId, a.frames.map((f) => `${f.func}:${f.line}:${f.inlined}`)])).toEqual([
      [28, ['main.d1:70:true', 'main.foo:52:true']],
      [1, ['main.main:23:true']],
    ]);
  });

  it('stack unavailable, then the same goroutine printed with its stack (gonb-etcd-7070)', async () => {
    const s = await only(['fatal error: concurrent map writes', 'fatal error: concurrent map writes', '', 'goroutine 5 [running]:', 'ase/etcd-7070.TestRace_7070.func1()', '\t/work/verified_test.go:34 +0xfb', 'created by ase/etcd-7070.TestRace_7070 in goroutine 4', '\t/work/verified_test.go:31 +0xbe', '', 'goroutine 42 [running]:', '\tgoroutine running on other thread; stack unavailable', 'created by ase/etcd-7070.TestRace_7070 in goroutine 4', '\t/work/verified_test.go:31 +0xbe', '', 'goroutine 42 [running]:', 'ase/etcd-7070.(*store_7070).set_7070(...)', '\t/work/verified_test.go:17', 'ase/etcd-7070.TestRace_7070.func1()', '\t/work/verified_test.go:34 +0xfb', 'created by ase/etcd-7070.TestRace_7070 in goroutine 4', '\t/work/verified_test.go:31 +0xbe']);
    expect(s.total).toBe(2);
    expect(s.groups[1].goroutineIds).toEqual([42]);
    expect(s.groups[1].frames[0]).toMatchObject({ func: 'ase/etcd-7070.(*store_7070).set_7070', inlined: true });
    // Three headers, two goroutines: said, not silent.
    expect(s.warnings.map((w) => w.code)).toContain('goroutine-printed-twice');
  });

  it('stack unavailable alone: flagged and partial', async () => {
    // gonb-etcd-7070 lines 205-208
    const g = await group(['goroutine 42 [running]:', '\tgoroutine running on other thread; stack unavailable', 'created by ase/etcd-7070.TestRace_7070 in goroutine 4', '\t/work/verified_test.go:31 +0xbe']);
    expect(g.flags.stackUnavailable).toBe(true);
    expect(g.partial).toBe(true);
    expect(g.creator?.goroutineIds).toEqual([4]);
  });

  it('go-dump-formats.md: cgo `non-Go function at pc=0x…` (no file line follows)', async () => {
    const g = await group(['goroutine 6 [syscall]:', 'non-Go function at pc=0x7f3c9d62eb70', 'non-Go function at pc=0x7f3c9d62ec00', 'main._Cfunc_c_sleep_loop(0xf4240)', '\t_cgo_gotypes.go:56 +0x45', 'created by main.main', '\t/app/cgo.go:36 +0x45']);
    expect(g.frames.map((f) => [f.func, f.pkg, f.file])).toEqual([['non-Go function', '', ''], ['non-Go function', '', ''], ['main._Cfunc_c_sleep_loop', 'main', '_cgo_gotypes.go']]);
    expect(g.partial).toBe(false);
  });

  it('malformed: a cgo symbolizer frame (a C name, then `\\t<file>:<line> pc=0x…`) and a bare word after a stack', async () => {
    const s = await only(['goroutine 6 [syscall]:', 'c_sleep_loop', '\t/app/sleep.c:12 pc=0x4a5b1c', 'main._Cfunc_c_sleep_loop(0xf4240)', '\t_cgo_gotypes.go:56 +0x45', 'main.main()', '\t/app/cgo.go:36 +0x45', 'FAIL', 'exit status 1']);
    expect(s.groups[0].frames.map((f) => `${f.func} ${f.pkg} ${f.file}:${f.line}`)).toEqual(['c_sleep_loop  /app/sleep.c:12', 'main._Cfunc_c_sleep_loop main _cgo_gotypes.go:56', 'main.main main /app/cgo.go:36']);
    expect(s.groups[0].partial).toBe(false);
  });

  it('`runtime: unexpected return pc` and hex words are skipped (unexpected-return-pc-sigsegv-darwin)', async () => {
    const s = await only(['fatal error: unexpected signal during runtime execution', '[signal SIGSEGV: segmentation violation code=0x1 addr=0xb01dfacedebac1e pc=0x7fff20392c9e]', '', 'runtime stack:', 'runtime: unexpected return pc for runtime.sigpanic called from 0x7fff20392c9e', 'stack: frame={sp:0x7ffeefbfef48, fp:0x7ffeefbfef98} stack=[0x7ffeefb7ffe8,0x7ffeefbff050)', '0x00007ffeefbfee48:  0x01007ffeefbfee68  0x0000000000000004 ', 'runtime.throw({0x46c4efc, 0x4b0d3e0})', '        /usr/local/go/src/runtime/panic.go:1198 +0x71', 'runtime.sigpanic()', '        /usr/local/go/src/runtime/signal_unix.go:719 +0x396', '', 'goroutine 1 [syscall]:', 'syscall.syscall(0x446fc40, 0x1, 0x40487413, 0xc00021fe48)', '        /usr/local/go/src/runtime/sys_darwin.go:22 +0x3b fp=0xc00021fdb8 sp=0xc00021fd98 pc=0x406341b', 'main.main()', '        app.go:10 +0x35 fp=0xc00021ff80 sp=0xc00021ff20 pc=0x44a1ef5', 'exit status 2']);
    expect(s.total).toBe(1); // the runtime stack is not a goroutine
    expect(s.headline?.lines).toEqual(['fatal error: unexpected signal during runtime execution', '[signal SIGSEGV: segmentation violation code=0x1 addr=0xb01dfacedebac1e pc=0x7fff20392c9e]']);
    expect(s.groups[0].frames.map((f) => f.file)).toEqual(['/usr/local/go/src/runtime/sys_darwin.go', 'app.go']);
  });

  it('malformed: an ancestor block after the blank line that ended its goroutine is not read as ancestors (it used to throw)', async () => {
    const d = await read([
      'goroutine 1 [running]:', 'main.main()', '\t/x/main.go:3 +0x1', 'created by main.init', '\t/x/main.go:9 +0x2', '',
      '[originating from goroutine 7]:', 'main.f()', '\t/x/a.go:1 +0x3',
    ]);
    expect(d.snapshots[0].total).toBe(1);
    expect(d.snapshots[0].groups[0].ancestors).toEqual([]);
  });

  it('malformed: a call without its file line keeps the goroutine, partial, with a warning', async () => {
    const s = await only(['goroutine 1 [running]:', 'main.main()', 'this is not a file line', '', 'goroutine 2 [select]:', 'main.loop()', '\t/app/main.go:9 +0x25']);
    expect(s.total).toBe(2);
    expect(s.groups[0].partial).toBe(true);
    expect(s.groups[0].frames[0]).toMatchObject({ func: 'main.main', file: '', line: 0 });
    expect(s.warnings.some((w) => w.code === 'partial-goroutine' && w.line === 3)).toBe(true);
  });

  it('malformed: input ending after a call keeps the goroutine and marks the snapshot truncated', async () => {
    const s = await only(['goroutine 1 [running]:', 'main.main()', '\t/app/main.go:8 +0x25', '', 'goroutine 7 [chan send]:', 'main.worker(0xc000010000)']);
    expect(s.total).toBe(2);
    expect(s.truncated).toBe(true);
    expect(s.groups[1]).toMatchObject({ partial: true, state: 'chan send' });
    expect(s.warnings.find((w) => w.code === 'truncated')?.message).toMatch(/goroutine 7 \(line 5\)/);
  });
});

describe('crash preambles', () => {
  it('panic headline; the running goroutine after it crashed (profilernotes-panic-inlined)', async () => {
    const s = await only(['panic: oh no', '', 'goroutine 1 [running]:', 'main.foo()', '\t/go/src/presentation/main.go:13 +0x85']);
    expect(s.headline).toEqual({ kind: 'panic', message: 'panic: oh no', lines: ['panic: oh no'] });
    expect(s.groups[0].flags.crashed).toBe(true);
  });

  it('fatal error printed twice is one headline (gonb-etcd-7070)', async () => {
    const s = await only(['fatal error: concurrent map writes', 'fatal error: concurrent map writes', '', 'goroutine 5 [running]:', 'ase/etcd-7070.TestRace_7070.func1()', '\t/work/verified_test.go:34 +0xfb']);
    expect(s.headline).toMatchObject({ kind: 'fatal-error', message: 'fatal error: concurrent map writes' });
    expect(s.headline?.lines).toHaveLength(2);
  });

  it('deadlock: no goroutine is running, none crashed (lock-inversion sample)', async () => {
    const s = await only(['fatal error: all goroutines are asleep - deadlock!', '', 'goroutine 1 [semacquire]:', 'sync.runtime_Semacquire(0xc0000952c0?)', '\t/usr/lib/go-1.19/src/runtime/sema.go:62 +0x25']);
    expect(s.headline?.kind).toBe('deadlock');
    expect(s.groups[0].flags.crashed).toBeUndefined();
  });

  it('test timeout with `running tests:` (gotestsum-test-timeout-go-test-json)', async () => {
    const s = await only(['panic: test timed out after 2s', 'running tests:', '\tTestSleepsTooLong (2s)', '', 'goroutine 17 [running]:', 'testing.(*M).startAlarm.func1()', '\t/usr/lib/go/src/testing/testing.go:2241 +0x3c5', 'created by time.goFunc', '\t/usr/lib/go/src/time/sleep.go:176 +0x32']);
    expect(s.headline).toEqual({ kind: 'test-timeout', message: 'panic: test timed out after 2s', lines: ['panic: test timed out after 2s', 'running tests:', '\tTestSleepsTooLong (2s)'] });
  });

  it('go-dump-formats.md: `panic: X [recovered]` + `\\tpanic: Y`, `[recovered, repanicked]`, Go 1.23 tab continuation', async () => {
    let s = await only(['panic: X [recovered]', '\tpanic: Y', '', 'goroutine 1 [running]:', 'main.main()', '\t/app/main.go:8 +0x25']);
    expect(s.headline).toEqual({ kind: 'panic', message: 'panic: X [recovered]', lines: ['panic: X [recovered]', '\tpanic: Y'] });
    s = await only(['panic: boom [recovered, repanicked]', '', 'goroutine 1 [running]:', 'main.main()', '\t/app/main.go:8 +0x25']);
    expect(s.headline?.message).toBe('panic: boom [recovered, repanicked]');
    s = await only(['panic: first line', '\tsecond line', '\tthird line', '', 'goroutine 1 [running]:', 'main.main()', '\t/app/main.go:8 +0x25']);
    expect(s.headline?.lines).toEqual(['panic: first line', '\tsecond line', '\tthird line']);
    expect(s.groups[0].frames[0].func).toBe('main.main');
  });

  it('SIGQUIT with PC= and goroutine 0, then registers and exit status (profilernotes-glued-to-shell-output)', async () => {
    const d = await read(['SIGQUIT: quit', 'PC=0x7fff739f9882 m=0 sigcode=0', '', 'goroutine 0 [idle]:', 'runtime.pthread_cond_wait(0x1172620, 0x11725e0, 0x7ffe00000000)', '\t/usr/local/Cellar/go/1.15.6/libexec/src/runtime/sys_darwin.go:414 +0x39', 'runtime.mcall(0x10613d6)', '\t/usr/local/Cellar/go/1.15.6/libexec/src/runtime/asm_amd64.s:318 +0x5b', '', 'rax    0x104', 'rflags 0x203', 'gs     0x0', 'exit status 2']);
    const s = d.snapshots[0];
    expect(s.headline).toEqual({ kind: 'sigquit', message: 'SIGQUIT: quit', lines: ['SIGQUIT: quit', 'PC=0x7fff739f9882 m=0 sigcode=0'] });
    expect(s.groups[0]).toMatchObject({ state: 'idle', goroutineIds: [0], partial: false });
    expect(d.warnings.find((w) => w.code === 'skipped-text')?.message).toMatch(/skipped 1 line /); // only `exit status 2`
  });

  it('Windows exception: the header-less stack is one goroutine of state \'\' (weibospider-windows-exception-cgo)', async () => {
    const s = await only(['Exception 0xc0000005 0x0 0x8 0x7ffda9322f15', 'PC=0x7ffda9322f15', 'signal arrived during external code execution', '', 'runtime.cgocall(0xea49a0, 0xc0000cde28)', '        C:/Program Files/Go/src/runtime/cgocall.go:157 +0x4a fp=0xc0000cde00 sp=0xc0000cddc8 pc=0xe137aa', 'github.com/go-python/cpy3._Cfunc_PyUnicode_AsUTF8(0x0)', '        _cgo_gotypes.go:4939 +0x57 fp=0xc0000cde28 sp=0xc0000cde00 pc=0xe9eb77', 'main.main()', '        C:/Users/drelf/go/src/github.com/Drelf2018/WeiboSpider/gothon/import.go:49 +0x236 fp=0xc0000cdf80 sp=0xc0000cde78 pc=0xea0f36', 'rax     0xc0000ce000', 'exit status 2']);
    expect(s.headline?.kind).toBe('exception');
    expect(s.total).toBe(1);
    expect(s.groups[0]).toMatchObject({ state: '', goroutineIds: [], flags: { crashed: true } });
    expect(s.groups[0].frames.map((f) => f.func)).toEqual(['runtime.cgocall', 'github.com/go-python/cpy3._Cfunc_PyUnicode_AsUTF8', 'main.main']);
  });

  it('klog fatal line just before the dump → log-fatal (insights-operator-oc-logs-timestamps-klog-fatal)', async () => {
    const s = await only(['I0719 13:56:01.505044       1 operator.go:135] Unable to check insights-operator pod status. Setting initial delay to 14m10.324303634s', 'F0719 13:56:01.505679       1 start.go:86] unable to set initial cluster status: context canceled', 'goroutine 1 [running]:', 'k8s.io/klog/v2.stacks(0xc000012001, 0xc0009b0240, 0x62, 0x10d)', '\t/go/src/github.com/openshift/insights-operator/vendor/k8s.io/klog/v2/klog.go:1026 +0xb9']);
    expect(s.headline).toMatchObject({ kind: 'log-fatal', message: 'unable to set initial cluster status: context canceled' });
    expect(s.groups[0].flags.crashed).toBe(true);
  });

  it('a new headline after goroutines starts a new snapshot; so does a repeated id (profilernotes-glued-to-shell-output)', async () => {
    const main = '\t/Users/felix.geisendoerfer/go/src/github.com/felixge/go-profiler-notes/examples/runtime-stack/main.go';
    const d = await read(['goroutine 1 [running]:', 'main.main()', `${main}:26 +0x228`, '', 'waiting indefinitely so you can press ctrl+\\ to compare the output', '^\\SIGQUIT: quit', 'PC=0x7fff739f9882 m=0 sigcode=0', '', 'goroutine 1 [chan receive, 3 minutes]:', 'main.chanReceiveForever(...)', `${main}:43`, 'main.main()', `${main}:32 +0x33d`, '', 'goroutine 1 [running]:', 'main.main()', `${main}:26 +0x228`]);
    expect(d.snapshots.map((s) => [s.index, s.total, s.headline?.kind, s.lines])).toEqual([
      [0, 1, undefined, { first: 1, last: 3 }],
      [1, 1, 'sigquit', { first: 6, last: 13 }],
      [2, 1, undefined, { first: 15, last: 17 }],
    ]);
  });
});
