/** Frame origins and blocking sites on frames quoted from real dumps (file named beside each). */
import { describe, expect, it } from 'vitest';
import { OriginClassifier, frameOrigin } from '../../src/analyze/origin.js';
import { frames } from './fixtures.js';

const origin = (line: string, userModules?: string[]) => frameOrigin(frames(line)[0], userModules);

describe('frameOrigin', () => {
  it('runtime', () => {
    expect(origin('runtime.gopark /usr/lib/go-1.19/src/runtime/proc.go:363')).toBe('runtime');
    expect(origin('internal/runtime/syscall.Syscall6 /usr/local/go/src/internal/runtime/syscall/asm_linux_amd64.s:36')).toBe('runtime');
    expect(origin('runtime/internal/syscall.Syscall6 /usr/local/go/src/runtime/internal/syscall/asm_linux_amd64.s:36')).toBe('runtime');
  });

  it('stdlib, including linknamed functions living in runtime files and GOROOT vendor', () => {
    expect(origin('sync.runtime_Semacquire /usr/lib/go-1.19/src/runtime/sema.go:62')).toBe('stdlib');
    expect(origin('net/http.(*persistConn).writeLoop /usr/local/go/src/net/http/transport.go:2340')).toBe('stdlib');
    expect(origin('runtime/pprof.writeGoroutineStacks /usr/lib/go-1.19/src/runtime/pprof/pprof.go:692')).toBe('stdlib');
    expect(origin('internal/poll.runtime_pollWait C:/Program Files/Go/src/runtime/netpoll.go:351')).toBe('stdlib');
    expect(origin('vendor/golang.org/x/net/http2/hpack.(*Decoder).Write /usr/local/go/src/vendor/golang.org/x/net/http2/hpack/hpack.go:230')).toBe('stdlib');
    // The toolchain the go command downloaded into the module cache.
    expect(origin('net/http.(*conn).serve /root/go/pkg/mod/golang.org/toolchain@v0.0.1-go1.22.0.linux-amd64/src/net/http/server.go:2039')).toBe('stdlib');
  });

  it('dependency: module cache, -trimpath module paths, vendor trees, well-known libraries', () => {
    // transferfile-trimpath-133 (-trimpath: module@version paths).
    expect(origin('github.com/ledgerwatch/erigon-lib/kv/remotedbserver.(*KvServer).StateChanges github.com/ledgerwatch/erigon-lib@v1.0.0/kv/remotedbserver/remotedbserver.go:100')).toBe('dependency');
    // cortex-355-grpc-conns (GOPATH vendor tree).
    expect(origin('github.com/gorilla/mux.(*Router).ServeHTTP /go/src/github.com/cortexproject/cortex/vendor/github.com/gorilla/mux/mux.go:212')).toBe('dependency');
    expect(origin('k8s.io/client-go/tools/cache.(*Reflector).watch /root/go/pkg/mod/k8s.io/client-go@v0.28.0/tools/cache/reflector.go:400')).toBe('dependency');
    // samples/apiproxy-leak: x/sync replaced by a local copy, still a library.
    expect(origin('golang.org/x/sync/errgroup.(*Group).Wait /work/main/samples/apiproxy-leak/third_party/golang.org/x/sync/errgroup/errgroup.go:59')).toBe('dependency');
  });

  it('user: main, the program module (dotted or not), userModules override', () => {
    expect(origin('main.main /tmp/lnexp/main.go:71')).toBe('user');
    expect(origin('example.com/apiproxy/pkg/stores/proxy.returnErr /work/main/samples/apiproxy-leak/pkg/stores/proxy/proxy_store.go:50')).toBe('user');
    // kvstore-raft-windows-program-files: module `distributed-kv` has no dot.
    expect(origin('distributed-kv/consensus.(*RaftConsensus).Start.func2 C:/Users/m/KVStore/consensus/consensus.go:432')).toBe('user');
    const x = 'golang.org/x/sync/errgroup.(*Group).Wait /src/golang.org/x/sync/errgroup/errgroup.go:59';
    expect(origin(x)).toBe('dependency');
    expect(origin(x, ['golang.org/x/sync'])).toBe('user');
  });
});

describe('blockingSite', () => {
  const oc = new OriginClassifier();
  const site = (text: string, o = oc) => o.blockingSite(o.siteFrames(frames(text)));

  it('is the innermost user frame, even past an inlined helper (samples/apiproxy-leak root)', () => {
    const s = site(`
      example.com/apiproxy/pkg/stores/proxy.returnErr /s/pkg/stores/proxy/proxy_store.go:50 (inl)
      example.com/apiproxy/pkg/stores/proxy.(*Store).listAndWatch.func3 /s/pkg/stores/proxy/proxy_store.go:107
      golang.org/x/sync/errgroup.(*Group).Go.func1 /s/third_party/golang.org/x/sync/errgroup/errgroup.go:81`);
    expect(s).toMatchObject({ func: 'example.com/apiproxy/pkg/stores/proxy.returnErr', line: 50, origin: 'user', index: 0 });
  });

  it('skips the runtime, the standard library and helpers to reach user code (apiproxy-leak consequence)', () => {
    const s = site(`
      runtime.gopark /usr/lib/go-1.19/src/runtime/proc.go:363
      sync.runtime_Semacquire /usr/lib/go-1.19/src/runtime/sema.go:62
      sync.(*WaitGroup).Wait /usr/lib/go-1.19/src/sync/waitgroup.go:139
      golang.org/x/sync/errgroup.(*Group).Wait /s/third_party/golang.org/x/sync/errgroup/errgroup.go:59
      example.com/apiproxy/pkg/stores/proxy.(*Store).listAndWatch /s/pkg/stores/proxy/proxy_store.go:118`);
    expect(s).toMatchObject({ func: 'example.com/apiproxy/pkg/stores/proxy.(*Store).listAndWatch', line: 118, index: 4 });
  });

  it('without user frames: the first dependency frame that is not a helper', () => {
    const stack = `
      sync.runtime_Semacquire /usr/local/go/src/runtime/sema.go:62
      sync.(*WaitGroup).Wait /usr/local/go/src/sync/waitgroup.go:139
      golang.org/x/sync/errgroup.(*Group).Wait /root/go/pkg/mod/golang.org/x/sync@v0.1.0/errgroup/errgroup.go:53
      k8s.io/client-go/tools/cache.(*Reflector).ListAndWatch /root/go/pkg/mod/k8s.io/client-go@v0.28.0/tools/cache/reflector.go:300
      k8s.io/apimachinery/pkg/util/wait.JitterUntil.func1 /root/go/pkg/mod/k8s.io/apimachinery@v0.28.0/pkg/util/wait/backoff.go:226`;
    expect(site(stack)?.func).toBe('k8s.io/client-go/tools/cache.(*Reflector).ListAndWatch');
    // An extra helper package moves the site further out.
    const o = new OriginClassifier({ helperPackages: ['k8s.io/client-go/tools/cache'] });
    // wait.JitterUntil is a helper too: nothing left but helpers, the innermost that is not sync plumbing.
    expect(site(stack, o)?.func).toBe('golang.org/x/sync/errgroup.(*Group).Wait');
  });

  it('with only the standard library: the outermost frame, which names the goroutine', () => {
    // samples/connection-leak debug=2, a server connection waiting for the next request.
    const s = site(`
      internal/poll.runtime_pollWait /usr/lib/go-1.19/src/runtime/netpoll.go:305
      internal/poll.(*pollDesc).wait /usr/lib/go-1.19/src/internal/poll/fd_poll_runtime.go:84
      internal/poll.(*FD).Read /usr/lib/go-1.19/src/internal/poll/fd_unix.go:167
      net.(*netFD).Read /usr/lib/go-1.19/src/net/fd_posix.go:55
      net.(*conn).Read /usr/lib/go-1.19/src/net/net.go:183
      net/http.(*connReader).Read /usr/lib/go-1.19/src/net/http/server.go:786
      bufio.(*Reader).fill /usr/lib/go-1.19/src/bufio/bufio.go:106
      bufio.(*Reader).Peek /usr/lib/go-1.19/src/bufio/bufio.go:144
      net/http.(*conn).readRequest /usr/lib/go-1.19/src/net/http/server.go:991
      net/http.(*conn).serve /usr/lib/go-1.19/src/net/http/server.go:1916`);
    expect(s).toMatchObject({ func: 'net/http.(*conn).serve', line: 1916, origin: 'stdlib', index: 9 });
  });

  it('with only the runtime and the standard library, one frame: that frame', () => {
    // profilernotes-nethttp-debug0-labels, the persistConn write loop.
    const s = site(`
      runtime.gopark /usr/local/Cellar/go/1.15.6/libexec/src/runtime/proc.go:306
      runtime.selectgo /usr/local/Cellar/go/1.15.6/libexec/src/runtime/select.go:338
      net/http.(*persistConn).writeLoop /usr/local/Cellar/go/1.15.6/libexec/src/net/http/transport.go:2340`);
    expect(s).toMatchObject({ func: 'net/http.(*persistConn).writeLoop', origin: 'stdlib' });
  });
});
