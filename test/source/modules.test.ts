/**
 * The checkout's modules: a frame whose file is found in the checkout is the program's code, whatever
 * its import path; copies of dependencies (vendor/, a dependency's whole import path under another
 * folder) and the standard library are not.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { sourceModules } from '../../src/source/index.js';
import { moduleRoot } from '../../src/source/workspace/modules.js';
import { SAMPLES } from '../helpers/paths.js';

const frame = (func: string, file: string) => ({ func, pkg: func.slice(0, func.indexOf('.', func.lastIndexOf('/'))), file });

describe('modules taken as the program’s', () => {
  it('the import path less the directories it shares with the file’s place in the checkout', () => {
    expect(moduleRoot('google.golang.org/grpc/internal/cache', 'internal/cache/timeoutCache.go')).toBe('google.golang.org/grpc');
    expect(moduleRoot('github.com/hashicorp/golang-lru', 'lru.go')).toBe('github.com/hashicorp/golang-lru');
    // A GOPATH src/ as the checkout: the repository part of the path.
    expect(moduleRoot('github.com/hashicorp/raft', 'github.com/hashicorp/raft/api.go')).toBe('github.com/hashicorp/raft');
    expect(moduleRoot('google.golang.org/grpc/internal/cache', 'google.golang.org/grpc/internal/cache/x.go')).toBe('google.golang.org/grpc');
  });

  it('a well-known import path whose files are in the checkout; not its third_party copy, not the standard library', () => {
    const dir = join(SAMPLES, 'apiproxy-leak');
    const mods = sourceModules(dir, [
      frame('example.com/apiproxy/pkg/stores/proxy.returnErr', '/build/apiproxy/pkg/stores/proxy/proxy_store.go'),
      frame('golang.org/x/sync/errgroup.(*Group).Wait', '/root/go/pkg/mod/golang.org/x/sync@v0.1.0/errgroup/errgroup.go'),
      frame('golang.org/x/sync/errgroup.(*Group).Go.func1', '/build/apiproxy/third_party/golang.org/x/sync/errgroup/errgroup.go'),
      frame('sync.(*WaitGroup).Wait', '/usr/lib/go-1.19/src/sync/waitgroup.go'),
    ]);
    expect(mods).toEqual(['example.com/apiproxy']);
  });
});
