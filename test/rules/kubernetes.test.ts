/**
 * The kubernetes pack on hand-built analyses with client-go / apimachinery frames as they print in
 * real dumps (module-cache paths): watch storms, informer handler leaks, HTTP/2 stream slots — and a
 * normal controller with one reflector per resource type, which must stay quiet.
 */
import { describe, expect, it } from 'vitest';
import { runRules } from '../../src/rules/index.js';
import { analysis, group } from './build.js';

const MOD = '/go/pkg/mod/k8s.io';

function streamWatchers(count: number) {
  return group({
    count,
    waitKind: 'io',
    state: 'IO wait',
    frames: [
      'internal/poll.runtime_pollWait @ /usr/local/go/src/runtime/netpoll.go:343',
      'net/http.(*body).Read @ /usr/local/go/src/net/http/transfer.go:829',
      `k8s.io/apimachinery/pkg/util/framer.(*jsonFrameReader).Read @ ${MOD}/apimachinery@v0.27.2/pkg/util/framer/framer.go:152`,
      `k8s.io/apimachinery/pkg/runtime/serializer/streaming.(*decoder).Decode @ ${MOD}/apimachinery@v0.27.2/pkg/runtime/serializer/streaming/streaming.go:77`,
      `k8s.io/client-go/rest/watch.(*Decoder).Decode @ ${MOD}/client-go@v0.27.2/rest/watch/decoder.go:49`,
      `k8s.io/apimachinery/pkg/watch.(*StreamWatcher).receive @ ${MOD}/apimachinery@v0.27.2/pkg/watch/streamwatcher.go:105`,
    ],
    creator: `k8s.io/apimachinery/pkg/watch.NewStreamWatcher @ ${MOD}/apimachinery@v0.27.2/pkg/watch/streamwatcher.go:76`,
  });
}

function watchHandlers(count: number) {
  return group({
    count,
    waitKind: 'select',
    state: 'select',
    frames: [
      `k8s.io/client-go/tools/cache.watchHandler @ ${MOD}/client-go@v0.27.2/tools/cache/reflector.go:734`,
      `k8s.io/client-go/tools/cache.(*Reflector).watch @ ${MOD}/client-go@v0.27.2/tools/cache/reflector.go:431`,
      `k8s.io/client-go/tools/cache.(*Reflector).ListAndWatch @ ${MOD}/client-go@v0.27.2/tools/cache/reflector.go:356`,
    ],
  });
}

describe('kubernetes pack', () => {
  it('calls thousands of open watches a watch storm, with the re-list fix', () => {
    const f = runRules(analysis([streamWatchers(1500), watchHandlers(1500)]));
    const storm = f.filter((x) => x.ruleId === 'kubernetes/watch-storm');
    expect(storm).toHaveLength(1);
    expect(storm[0].severity).toBe('error');
    expect(storm[0].evidence.goroutines).toBe(3000);
    expect(storm[0].fix).toMatch(/re-list/);
    expect(f.filter((x) => x.severity === 'error')).toHaveLength(1);
  });

  it('stays quiet for a controller with one reflector per resource type', () => {
    expect(runRules(analysis([streamWatchers(40), watchHandlers(40)]))).toEqual([]);
  });

  it('counts informer handlers that are added and never removed', () => {
    const pop = group({ count: 2500, waitKind: 'select', state: 'select', frames: [`k8s.io/client-go/tools/cache.(*processorListener).pop @ ${MOD}/client-go@v0.27.2/tools/cache/shared_informer.go:946`] });
    const run = group({ count: 2500, waitKind: 'chan-receive', state: 'chan receive', frames: [`k8s.io/client-go/tools/cache.(*processorListener).run.func1 @ ${MOD}/client-go@v0.27.2/tools/cache/shared_informer.go:976`] });
    const f = runRules(analysis([pop, run])).filter((x) => x.ruleId === 'kubernetes/informer-handlers');
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ severity: 'error', evidence: { goroutines: 5000 } });
    expect(f[0].fix).toMatch(/RemoveEventHandler/);
  });

  it('is left out when the config uses the core pack only', () => {
    const f = runRules(analysis([streamWatchers(1500)]), { config: { packs: ['core'] } });
    expect(f.some((x) => x.pack === 'kubernetes')).toBe(false);
  });
});
