import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { looksLikeDependency, pathParts, SourceIndex } from '../../src/source/workspace/locate.js';

const FILES = [
  'go.mod',
  'main.go',
  't31prof.go',
  'cmd/tool/main.go',
  'pkg/stores/proxy/proxy_store.go',
  'pkg/f.go',
  'internal/receiver/server.go',
  'vendor/github.com/x/y/pkg/f.go',
  'vendor/golang.org/x/sync/errgroup/errgroup.go',
  'node_modules/z/pkg/stores/proxy/proxy_store.go',
  '.git/pkg/stores/proxy/proxy_store.go',
];

let root = '';
let index: SourceIndex;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'leakscope-locate-'));
  for (const f of FILES) {
    mkdirSync(dirname(join(root, f)), { recursive: true });
    writeFileSync(join(root, f), 'package x\n');
  }
  index = new SourceIndex(root);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const rel = (printed: string, pkg = '') => index.locate(printed, pkg)?.rel;

describe('path parts', () => {
  it('splits both separators, drops drive letters and module versions', () => {
    expect(pathParts('C:\\Users\\me\\go\\pkg\\mod\\github.com\\x\\y@v1.2.3\\pkg\\f.go')).toEqual(['Users', 'me', 'go', 'pkg', 'mod', 'github.com', 'x', 'y', 'pkg', 'f.go']);
    expect(pathParts('/root/go/pkg/mod/github.com/x/y@v1.2.3-0.20230101-abcdef/pkg/f.go').slice(-3)).toEqual(['y', 'pkg', 'f.go']);
    expect(looksLikeDependency('/root/go/pkg/mod/github.com/x/y@v1.2.3/pkg/f.go')).toBe(true);
    expect(looksLikeDependency('/go/src/example.com/app/pkg/f.go')).toBe(false);
  });
});

describe('locate by the longest path suffix', () => {
  it('indexes .go files, skipping .git and node_modules but keeping vendor', () => {
    expect(index.files).not.toContain('node_modules/z/pkg/stores/proxy/proxy_store.go');
    expect(index.files.some((f) => f.startsWith('.git/'))).toBe(false);
    expect(index.files).toContain('vendor/github.com/x/y/pkg/f.go');
    expect(index.modFiles).toEqual(['go.mod']);
  });

  it('GOPATH paths', () => {
    expect(rel('/go/src/example.com/app/pkg/stores/proxy/proxy_store.go')).toBe('pkg/stores/proxy/proxy_store.go');
    expect(index.locate('/go/src/example.com/app/pkg/stores/proxy/proxy_store.go')?.matched).toBe(4);
  });

  it('module cache paths map into vendor/', () => {
    expect(rel('/root/go/pkg/mod/github.com/x/y@v1.2.3/pkg/f.go')).toBe('vendor/github.com/x/y/pkg/f.go');
    expect(rel('/home/u/go/pkg/mod/golang.org/x/sync@v0.1.0/errgroup/errgroup.go')).toBe('vendor/golang.org/x/sync/errgroup/errgroup.go');
  });

  it('-trimpath module paths', () => {
    expect(rel('example.com/app/pkg/stores/proxy/proxy_store.go')).toBe('pkg/stores/proxy/proxy_store.go');
    expect(rel('github.com/x/y/pkg/f.go')).toBe('vendor/github.com/x/y/pkg/f.go');
    expect(rel('example.com/app/pkg/f.go')).toBe('pkg/f.go');
    expect(rel('ex/t31prof.go')).toBe('t31prof.go');
  });

  it('Windows paths, either separator', () => {
    expect(rel('C:/Users/me/src/app/pkg/stores/proxy/proxy_store.go')).toBe('pkg/stores/proxy/proxy_store.go');
    expect(rel('C:\\Users\\me\\src\\app\\pkg\\stores\\proxy\\proxy_store.go')).toBe('pkg/stores/proxy/proxy_store.go');
    expect(rel('D:\\a\\app\\PKG\\Stores\\proxy\\proxy_store.go')).toBe('pkg/stores/proxy/proxy_store.go');
  });

  it('build directories', () => {
    expect(rel('/tmp/build/main.go')).toBe('main.go');
    expect(rel('/tmp/build/cmd/tool/main.go')).toBe('cmd/tool/main.go');
  });

  it('does not map a different file that only shares its base name', () => {
    expect(rel('/usr/lib/go-1.19/src/net/http/server.go')).toBeUndefined();
    expect(rel('/go/src/example.com/app/other.go')).toBeUndefined();
  });
});
