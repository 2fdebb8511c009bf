/**
 * URL inputs (`inspect`/`watch` on http(s)://…), on loopback (127.0.0.1) only:
 * (a) a real Go program serving net/http/pprof (test/robustness/pprofserver, stdlib only, built here;
 *     without `go` the part is skipped, except under CI=true where that fails);
 * (b) a deliberately misbehaving Node server: slow headers, a body that stalls or breaks off after
 *     part of a dump (read as far as it came, flagged as cut) or before any of it, an endless body, a
 *     gzip bomb as Content-Encoding, wrong content types, an HTML login page (as text/html and as
 *     text/plain), 401/404/500, a redirect loop, a redirect to file:, a refused port.
 * Every failure is one InputError whose message is one line and starts with the URL.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError, readDump, type ReadOptions } from '../../src/read/index.js';
import { REPO, SAMPLES } from '../helpers/paths.js';

const CI = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';
const HAVE_GO = spawnSync('go', ['version'], { encoding: 'utf8' }).status === 0;
if (!HAVE_GO && CI) throw new Error('`go` is not on PATH: under CI the URL tests against a real Go pprof server must run');
if (!HAVE_GO) console.log('[url.test] `go` not found: skipping the tests against a real Go net/http/pprof server');

const DUMP = 'goroutine 1 [chan receive]:\nmain.main()\n\t/src/main.go:9 +0x1d\n\ngoroutine 2 [select]:\nmain.loop()\n\t/src/main.go:20 +0x5\ncreated by main.main\n\t/src/main.go:8 +0x2a\n\n';
const CADDY = gunzipSync(readFileSync(join(SAMPLES, 'servers', 'caddy', 'dumps', 'h2-stalled-50.debug2.txt.gz')));
const LOGIN = '<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body><form method="post" action="/login"><input name="user"></form></body></html>\n';

async function failure(url: string, opts: ReadOptions = {}): Promise<InputError> {
  const e = await readDump(url, opts).then(
    (d) => new Error(`expected an InputError, read ${d.snapshots.length} snapshots`),
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(InputError);
  const ie = e as InputError;
  expect(ie.message, 'one line').not.toMatch(/[\r\n]/);
  return ie;
}

describe('a misbehaving HTTP server on 127.0.0.1', () => {
  let server: Server;
  let base = '';
  const open = new Set<ServerResponse>();

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      open.add(res);
      res.on('close', () => open.delete(res));
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      switch (path) {
        case '/ok':
          res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(DUMP);
          return;
        case '/ok-octet':
          res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(DUMP);
          return;
        case '/ok-gzip-body':
          res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(gzipSync(DUMP));
          return;
        case '/slow-headers':
          return; // never answers
        case '/stall':
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.write(DUMP.slice(0, 40)); // then silence
          return;
        case '/stall-silent':
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.flushHeaders(); // and no byte of the body
          return;
        case '/ok-caddy':
          res.writeHead(200, { 'content-type': 'text/plain' }).end(CADDY);
          return;
        case '/cut-real': {
          // A real dump (the Debian caddy server, 50 HTTP/2 streams stalled by clients that stopped
          // reading), its connection broken after 60% of the body.
          res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(CADDY.length) });
          res.write(CADDY.subarray(0, Math.floor(CADDY.length * 0.6)), () => setTimeout(() => res.socket?.destroy(), 50));
          return;
        }
        case '/cut-encoded': {
          // Content-Encoding gzip: its content-length counts the compressed bytes, not the dump's.
          const gz = gzipSync(DUMP.repeat(50));
          res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip', 'content-length': String(gz.length) });
          res.write(gz.subarray(0, gz.length >> 1), () => setTimeout(() => res.socket?.destroy(), 50));
          return;
        }
        case '/cut': {
          // The first goroutine and part of the second, of a body that says its whole length; then the connection breaks.
          res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(DUMP.length) });
          res.write(DUMP.slice(0, DUMP.indexOf('\n\n') + 30), () => setTimeout(() => res.socket?.destroy(), 50));
          return;
        }
        case '/endless': {
          res.writeHead(200, { 'content-type': 'text/plain' });
          const chunk = Buffer.alloc(64 * 1024, 'goroutine 1 [running]:\n');
          const pump = (): void => {
            while (!res.destroyed && res.write(chunk));
            if (!res.destroyed) res.once('drain', pump);
          };
          pump();
          return;
        }
        case '/bomb': {
          res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
          res.end(gzipSync(Buffer.alloc(32 << 20, 0x20)));
          return;
        }
        case '/login-html':
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(LOGIN);
          return;
        case '/login-plain':
          res.writeHead(200, { 'content-type': 'text/plain' }).end(LOGIN);
          return;
        case '/json':
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok","goroutines":12}\n');
          return;
        case '/empty':
          res.writeHead(200, { 'content-type': 'text/plain' }).end();
          return;
        case '/401':
          res.writeHead(401, { 'www-authenticate': 'Basic realm="x"' }).end('no');
          return;
        case '/404':
          res.writeHead(404).end('404 page not found\n');
          return;
        case '/500':
          res.writeHead(500).end('boom');
          return;
        case '/loop':
          res.writeHead(302, { location: '/loop?x=' + Math.random() }).end();
          return;
        case '/to-file':
          res.writeHead(302, { location: 'file:///etc/passwd' }).end();
          return;
        case '/redirect-ok':
          res.writeHead(301, { location: '/ok' }).end();
          return;
        case '/auth':
          if (req.headers.authorization === `Basic ${Buffer.from('admin:s3cret').toString('base64')}`) res.writeHead(200).end(DUMP);
          else res.writeHead(401).end();
          return;
        case '/reset':
          req.socket.destroy();
          return;
        default:
          res.writeHead(404).end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const r of open) r.destroy();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('a plain text dump is read, whatever the content type (text, octet-stream, gzip body)', async () => {
    for (const p of ['/ok', '/ok-octet', '/ok-gzip-body', '/redirect-ok']) {
      const d = await readDump(base + p);
      expect(d.source).toBe(base + p);
      expect(d.snapshots[0].total).toBe(2);
    }
  });

  it.each([
    ['/slow-headers', { connectTimeoutMs: 300 }, 'network', /timed out waiting for a response/],
    ['/stall-silent', { readTimeoutMs: 300 }, 'network', /no data for 300 ms while reading the response/],
    ['/endless', { maxDownloadBytes: 1 << 20 }, 'too-large', /response larger than 1048576 bytes \(raise with --max-download\)/],
    ['/bomb', { maxDownloadBytes: 4 << 20 }, 'too-large', /larger than 4194304 bytes/],
    ['/login-html', {}, 'not-a-dump', /HTML page .*login page/],
    ['/login-plain', {}, 'not-a-dump', /HTML page.*login page/],
    ['/json', {}, 'not-a-dump', /no goroutine dump found/],
    ['/empty', {}, 'empty', /is empty/],
    ['/401', {}, 'http-status', /HTTP 401 Unauthorized \(the endpoint wants credentials\)/],
    ['/404', {}, 'http-status', /HTTP 404 Not Found \(wrong path\?/],
    ['/500', {}, 'http-status', /HTTP 500 Internal Server Error/],
    ['/loop', { maxRedirects: 3 }, 'network', /more than 3 redirects/],
    ['/to-file', {}, 'network', /redirected to unsupported file:/],
    ['/reset', {}, 'network', /the connection closed|connection reset/],
  ] as [string, ReadOptions, string, RegExp][])('%s → one-line %s error naming the URL', async (path, opts, code, text) => {
    const t0 = Date.now();
    const e = await failure(base + path, opts);
    expect(e.code).toBe(code);
    expect(e.message.startsWith(`${base}${path}: `), e.message).toBe(true);
    expect(e.message).toMatch(text);
    expect(Date.now() - t0, 'bounded by the timeouts given, not the defaults').toBeLessThan(8000);
  });

  it('a body that breaks off after part of the dump is read as far as it came, flagged as cut', async () => {
    const d = await readDump(base + '/cut');
    const s = d.snapshots[0];
    expect(s.total).toBeGreaterThanOrEqual(1);
    expect(s.truncated).toBe(true);
    const cut = d.warnings.find((w) => w.code === 'input-cut');
    const shown = DUMP.indexOf('\n\n') + 30;
    expect(cut?.message).toBe(`the download stopped after ${shown} of ${DUMP.length} bytes (the connection closed): what came is read, counts are lower bounds`);
  });

  it('a real dump whose download breaks off gives the goroutines that came, flagged as cut', async () => {
    const whole = await readDump(base + '/ok-caddy');
    const d = await readDump(base + '/cut-real');
    const s = d.snapshots[0];
    expect(s.truncated).toBe(true);
    expect(s.total).toBeGreaterThan(0);
    expect(s.total).toBeLessThan(whole.snapshots[0].total);
    expect(d.warnings.find((w) => w.code === 'input-cut')?.message).toBe(
      `the download stopped after ${Math.floor(CADDY.length * 0.6)} of ${CADDY.length} bytes (the connection closed): what came is read, counts are lower bounds`,
    );
  });

  it('a gzip-encoded body that breaks off says the bytes read, not the encoded length', async () => {
    const d = await readDump(base + '/cut-encoded');
    expect(d.snapshots[0].total).toBeGreaterThanOrEqual(1);
    expect(d.warnings.find((w) => w.code === 'input-cut')?.message).toMatch(/^the download stopped after \d+ bytes \(the connection closed\): /);
  });

  it('a body that goes silent after part of the dump is read as far as it came, flagged as cut', async () => {
    const t0 = Date.now();
    const d = await readDump(base + '/stall', { readTimeoutMs: 300 });
    expect(Date.now() - t0).toBeLessThan(8000);
    expect(d.snapshots[0].total).toBe(1);
    expect(d.snapshots[0].truncated).toBe(true);
    expect(d.warnings.find((w) => w.code === 'input-cut')?.message).toBe(
      'the download stopped after 40 bytes (no data for 300 ms while reading the response): what came is read, counts are lower bounds',
    );
  });

  it.each(['/stall', '/stall-silent', '/slow-headers'])('a download of %s is stopped by the caller\'s signal, at once, with its reason', async (path) => {
    const ctl = new AbortController();
    const stop = setTimeout(() => ctl.abort(), 200);
    const t0 = Date.now();
    const e = await readDump(base + path, { signal: ctl.signal }).then(
      () => new Error('expected the read to be stopped'),
      (x: unknown) => x,
    );
    clearTimeout(stop);
    // The timeouts (10 s for headers, 30 s of silence) are not waited for; nothing is read as cut.
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(e).toBe(ctl.signal.reason);
    expect((e as Error).name).toBe('AbortError');
  });

  it('a signal aborted before the read stops it before any request, with the reason given', async () => {
    const ctl = new AbortController();
    const why = new Error('shutting down');
    ctl.abort(why);
    let asked = 0;
    const s = createServer((_, res) => {
      asked++;
      res.end(DUMP);
    });
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}/`;
    await expect(readDump(url, { signal: ctl.signal })).rejects.toBe(why);
    await new Promise((r) => s.close(r));
    expect(asked).toBe(0);
  });

  it('a signal never aborted changes nothing', async () => {
    const d = await readDump(base + '/ok-caddy', { signal: new AbortController().signal });
    expect(d.snapshots[0].total).toBe((await readDump(base + '/ok-caddy')).snapshots[0].total);
    expect(d.warnings.some((w) => w.code === 'input-cut')).toBe(false);
  });

  it('a refused port', async () => {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const port = (s.address() as AddressInfo).port;
    await new Promise((r) => s.close(r));
    const e = await failure(`http://127.0.0.1:${port}/debug/pprof/goroutine?debug=2`);
    expect(e.code).toBe('network');
    expect(e.message).toBe(`http://127.0.0.1:${port}/debug/pprof/goroutine?debug=2: connection refused`);
  });

  it('a port fetch blocks (WHATWG bad ports) says so', async () => {
    const e = await failure('http://127.0.0.1:6000/debug/pprof/goroutine');
    expect(e.message).toMatch(/^http:\/\/127\.0\.0\.1:6000\/debug\/pprof\/goroutine: refused to connect: the port is on .* blocked ports/);
  });

  it('only http and https; credentials in the URL never appear in messages', async () => {
    for (const u of ['ftp://127.0.0.1/x', 'file:///etc/passwd', 'gopher://127.0.0.1/']) {
      const e = await failure(u);
      expect(e.message).toMatch(/unsupported URL scheme .* \(only http and https\)/);
    }
    const e = await failure(`${base.replace('//', '//admin:s3cret@')}/500`);
    expect(e.message).not.toContain('s3cret');
    expect(e.message).not.toContain('admin');
    expect(e.message).toMatch(/HTTP 500/);
    // …and are sent as Basic auth, the way curl does.
    const d = await readDump(`${base.replace('//', '//admin:s3cret@')}/auth`);
    expect(d.snapshots[0].total).toBe(2);
    expect(d.source).not.toContain('s3cret');
  });
});

describe.runIf(HAVE_GO)('a real Go program serving net/http/pprof on 127.0.0.1', () => {
  let tmp = '';
  let child: ChildProcess | undefined;
  let base = '';
  const BLOCKED = 9;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'leakscope-pprofserver-'));
    const env = { ...process.env, GOFLAGS: '-mod=mod', GOPROXY: 'off', GOTOOLCHAIN: 'local', GOCACHE: process.env.GOCACHE ?? join(tmp, 'gocache'), GOPATH: process.env.GOPATH ?? join(tmp, 'gopath') };
    const bin = join(tmp, 'pprofserver');
    const build = spawnSync('go', ['build', '-o', bin, '.'], { cwd: join(REPO, 'test', 'robustness', 'pprofserver'), env, encoding: 'utf8', timeout: 150_000 });
    if (build.status !== 0) throw new Error(`go build failed (${build.status ?? build.signal}): ${build.stderr}${build.error ?? ''}`);
    const c = spawn(bin, ['-blocked', String(BLOCKED)], { stdio: ['pipe', 'pipe', 'inherit'] });
    child = c;
    base = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`pprofserver did not start: ${out}`)), 20_000);
      c.stdout!.on('data', (b: Buffer) => {
        out += b.toString();
        const m = /LISTEN (127\.0\.0\.1:\d+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(`http://${m[1]}`);
        }
      });
      c.on('exit', (code) => reject(new Error(`pprofserver exited (${code}): ${out}`)));
    });
  }, 180_000);

  afterAll(() => {
    child?.stdin?.end();
    if (child && child.exitCode === null) child.kill();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it.each([0, 1, 2])('goroutine?debug=%i is read, with the parked goroutines', async (debug) => {
    const url = `${base}/debug/pprof/goroutine?debug=${debug}`;
    const d = await readDump(url);
    const s = d.snapshots[0];
    expect(s.source).toBe(url);
    expect(s.format).toBe(debug === 0 ? 'pprof' : debug === 1 ? 'debug1' : 'debug2');
    expect(s.truncated).toBe(false);
    const parked = s.groups.filter((g) => g.frames.some((f) => f.func === 'main.park')).reduce((a, g) => a + g.count, 0);
    expect(parked).toBe(BLOCKED);
  });

  it('a heap profile is refused as the wrong profile', async () => {
    const e = await failure(`${base}/debug/pprof/heap`);
    expect(e.code).toBe('wrong-profile');
    expect(e.message).toMatch(/heap profile/);
  });

  it('the pprof index page is refused as HTML', async () => {
    const e = await failure(`${base}/debug/pprof/`);
    expect(e.code).toBe('not-a-dump');
    expect(e.message).toMatch(/HTML page/);
  });

  it('an unknown profile is a 404 naming the URL', async () => {
    const e = await failure(`${base}/debug/pprof/nosuch`);
    expect(e.message.startsWith(`${base}/debug/pprof/nosuch: HTTP 404`)).toBe(true);
  });

  it('a small download cap stops a real debug=2 dump with a clear error', async () => {
    const e = await failure(`${base}/debug/pprof/goroutine?debug=2`, { maxDownloadBytes: 200 });
    expect(e.code).toBe('too-large');
    expect(e.message).toMatch(/--max-download/);
  });
});
