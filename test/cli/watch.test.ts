/**
 * watch on loopback: against a real Go program serving net/http/pprof (built from
 * fixtures/leakserver when `go` is on PATH; CI installs it), and against a Node server replaying a
 * series of real dumps. Counts arrive on stderr; the report ends with the trend verdict.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../helpers/paths.js';
import { BIN, ensureBuilt, run } from './run.js';
import { healthySeries, leakSeries } from './series.js';

function hasGo(): boolean {
  try {
    execFileSync('go', ['version'], { stdio: 'pipe' });
    return true;
  } catch {
    if (process.env.CI) throw new Error('go is required under CI for the live watch test');
    return false;
  }
}

/** A server answering each request with the next file of a series (the last one repeated). */
async function replay(files: string[]): Promise<{ server: Server; url: string }> {
  let i = 0;
  const server = createServer((_, res) => {
    const body = readFileSync(files[Math.min(i++, files.length - 1)]);
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/debug/pprof/goroutine?debug=1` };
}

const servers: Server[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  await ensureBuilt();
});

afterAll(() => {
  for (const s of servers) s.close();
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
});

describe('watch against a replayed series', () => {
  it('prints counts as they arrive and ends with the leak verdict', async () => {
    const { server, url } = await replay(leakSeries(join(mkdtempSync(join(tmpdir(), 'leakscope-watch-')), 's')));
    servers.push(server);
    const r = await run(['watch', url, '--every', '150ms', '--for', '1050ms', '-f', 'json']);
    expect(r.status).toBe(0);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(8);
    expect(lines[0]).toMatch(/^\[\+0s\] 765 goroutines; top: 380 waitgroup at proxy\/proxy_store\.go:118$/);
    expect(lines[1]).toMatch(/^\[\+0s\] 765 goroutines \(0\); top: /);
    const doc = JSON.parse(r.stdout);
    expect(doc.command).toBe('watch');
    expect(doc.trend.verdict).toBe('growing');
    expect(doc.findings.some((f: { ruleId: string }) => f.ruleId === 'trend/steady-growth')).toBe(true);
  });

  it('ends with no leak for the healthy series', async () => {
    const { server, url } = await replay(healthySeries(join(mkdtempSync(join(tmpdir(), 'leakscope-watch-')), 'h')));
    servers.push(server);
    const r = await run(['watch', url, '--every', '150ms', '--for', '1050ms']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Verdict: stable: no material rise');
  });

  it('a poll whose download breaks off is left out of the series, with a warning', async () => {
    const files = leakSeries(join(mkdtempSync(join(tmpdir(), 'leakscope-watch-')), 'c'));
    let i = 0;
    // The third answer says its whole length, sends half of it, and breaks the connection.
    const server = createServer((_, res) => {
      const k = i++;
      const body = readFileSync(files[Math.min(k, files.length - 1)]);
      if (k !== 2) return void res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(body.length) });
      res.write(body.subarray(0, body.length >> 1), () => setTimeout(() => res.socket?.destroy(), 30));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push(server);
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/debug/pprof/goroutine?debug=1`;
    const r = await run(['watch', url, '--every', '150ms', '--for', '1050ms', '-f', 'json']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/poll 3 failed: .*: the download stopped after \d+ of \d+ bytes \(the connection closed\).*a poll cut short is left out of the series/);
    const doc = JSON.parse(r.stdout);
    expect(doc.trend.points).toHaveLength(7);
    expect(doc.trend.verdict).toBe('growing');
  });

  it.each(['SIGINT', 'SIGTERM'] as const)('%s stops early and reports on the polls so far', async (signal) => {
    const { server, url } = await replay(leakSeries(join(mkdtempSync(join(tmpdir(), 'leakscope-watch-')), signal)));
    servers.push(server);
    const child = spawn(process.execPath, [BIN, 'watch', url, '--every', '100ms', '--for', '60s', '-f', 'json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stdout.on('data', (b: Buffer) => (stdout += b));
    child.stderr.on('data', (b: Buffer) => {
      stderr += b;
      // Once, after four polls (a second signal ends the process, as it should).
      if (!sent && stderr.split('\n').length > 4) {
        sent = true;
        child.kill(signal);
      }
    });
    const t0 = Date.now();
    const code = await new Promise<number | null>((done) => child.on('close', done));
    expect(code, stderr).toBe(0);
    expect(Date.now() - t0).toBeLessThan(30_000);
    const doc = JSON.parse(stdout);
    expect(doc.command).toBe('watch');
    expect(doc.trend.points.length).toBeGreaterThanOrEqual(4);
  });

  /**
   * A server replaying the leak series whose answer `stallAt` (0-based) sends part of its body, then
   * nothing; `stalled` resolves once it has.
   */
  async function stalling(stallAt: number, name: string): Promise<{ url: string; stalled: Promise<void> }> {
    const files = leakSeries(join(mkdtempSync(join(tmpdir(), 'leakscope-watch-')), name));
    let i = 0;
    let hung: () => void = () => {};
    const stalled = new Promise<void>((r) => (hung = r));
    const server = createServer((_, res) => {
      const k = i++;
      const body = readFileSync(files[Math.min(k, files.length - 1)]);
      if (k !== stallAt) return void res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(body.length) });
      res.write(body.subarray(0, body.length >> 1), () => setTimeout(hung, 100));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push(server);
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/debug/pprof/goroutine?debug=1`, stalled };
  }

  /** Runs watch on `url` and sends `signal` once the poll hangs; resolves when the watch ends. */
  async function stopWhile(url: string, stalled: Promise<void>, signal: NodeJS.Signals) {
    // The poll timeout (10 s, its default) is far longer than the test waits after the signal.
    const child = spawn(process.execPath, [BIN, 'watch', url, '--every', '100ms', '--for', '60s', '-f', 'json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b));
    child.stderr.on('data', (b: Buffer) => (stderr += b));
    const ended = new Promise<number | null>((done) => child.on('close', done));
    await stalled;
    const sentAt = Date.now();
    child.kill(signal);
    const code = await ended;
    return { code, stdout, stderr, afterSignalMs: Date.now() - sentAt };
  }

  it('Ctrl-C while a poll hangs stops it at once and reports on the polls before', async () => {
    const { url, stalled } = await stalling(4, 'stall');
    const r = await stopWhile(url, stalled, 'SIGINT');
    expect(r.code, r.stderr).toBe(0);
    expect(r.afterSignalMs, 'not after the poll timeout').toBeLessThan(5000);
    expect(r.stderr).toMatch(/poll 5 stopped by SIGINT before it answered: left out of the series/);
    expect(r.stderr).not.toMatch(/poll 5 failed/);
    const doc = JSON.parse(r.stdout);
    expect(doc.trend.points).toHaveLength(4);
  });

  it('SIGTERM while the first poll hangs ends the watch at once: nothing to report, exit 143', async () => {
    const { url, stalled } = await stalling(0, 'stall-first');
    const r = await stopWhile(url, stalled, 'SIGTERM');
    expect(r.code, r.stderr).toBe(143);
    expect(r.afterSignalMs).toBeLessThan(5000);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`leakscope: ${url}: stopped by SIGTERM before the first poll answered: nothing to report\n`);
  });

  /** A server replaying the leak series whose answer `slowAt` (0-based) trickles a line every 100 ms (20 s in all). */
  async function trickling(slowAt: number, name: string): Promise<string> {
    const files = leakSeries(join(mkdtempSync(join(tmpdir(), 'leakscope-watch-')), name));
    let i = 0;
    const server = createServer((_, res) => {
      const k = i++;
      const body = readFileSync(files[Math.min(k, files.length - 1)]);
      if (k !== slowAt) return void res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
      res.writeHead(200, { 'content-type': 'text/plain' });
      const lines = body.toString('latin1').split('\n');
      let n = 0;
      const timer = setInterval(() => {
        if (res.destroyed || n >= 200) return void (clearInterval(timer), res.end());
        res.write(lines[n++ % lines.length] + '\n');
      }, 100);
      res.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/debug/pprof/goroutine?debug=1`;
  }

  it('--timeout gives up on a poll that trickles past it, though it never goes silent', async () => {
    const url = await trickling(2, 'trickle');
    const t0 = Date.now();
    const r = await run(['watch', url, '--every', '100ms', '--for', '1s', '--timeout', '700ms', '-f', 'json']);
    expect(r.status, r.stderr).toBe(0);
    expect(Date.now() - t0).toBeLessThan(8000);
    expect(r.stderr).toMatch(/poll 3 failed: .*: no whole answer within 700 ms \(--timeout\)$/m);
    expect(JSON.parse(r.stdout).trend.points.length).toBeGreaterThanOrEqual(3);
  });

  it('--timeout on the first poll is its error, exit 2', async () => {
    const url = await trickling(0, 'trickle-first');
    const t0 = Date.now();
    const r = await run(['watch', url, '--every', '100ms', '--for', '1s', '--timeout', '1s']);
    expect(r.status).toBe(2);
    expect(Date.now() - t0).toBeLessThan(8000);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`leakscope: ${url}: no whole answer within 1 s (--timeout)\n`);
  });

  it('exit 2 when the endpoint cannot be reached', async () => {
    const { server, url } = await replay([]);
    await new Promise<void>((r) => server.close(() => r()));
    const r = await run(['watch', url, '--every', '100ms', '--for', '300ms']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`leakscope: ${url}: connection refused\n`);
  });
});

describe.runIf(hasGo())('watch against a real Go program serving pprof', () => {
  let bin: string;

  beforeAll(() => {
    bin = join(mkdtempSync(join(tmpdir(), 'leakscope-go-')), 'leakserver');
    execFileSync('go', ['build', '-o', bin, '.'], {
      cwd: join(REPO, 'test', 'cli', 'fixtures', 'leakserver'),
      env: { ...process.env, GOFLAGS: '-mod=mod', GOPROXY: 'off', GOTOOLCHAIN: 'local', GOWORK: 'off' },
      stdio: 'pipe',
    });
  }, 120_000);

  async function start(mode: string): Promise<string> {
    const child = spawn(bin, [`-mode=${mode}`], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    const addr = await new Promise<string>((resolve, reject) => {
      child.stdout!.setEncoding('utf8').once('data', (d: string) => resolve(d.trim()));
      child.once('exit', (code) => reject(new Error(`leakserver exited ${code}`)));
    });
    return `http://${addr}/debug/pprof/goroutine`;
  }

  for (const [mode, debug, verdict] of [['leak', '2', 'growing'], ['leak', '0', 'growing'], ['healthy', '1', 'stable']] as const) {
    it(`${mode} program, debug=${debug}: ${verdict}`, async () => {
      const url = `${await start(mode)}?debug=${debug}`;
      const r = await run(['watch', url, '--every', '250ms', '--for', '2s', '-f', 'json']);
      expect(r.status, r.stderr).toBe(0);
      const doc = JSON.parse(r.stdout);
      expect(doc.trend.points.length).toBeGreaterThanOrEqual(7);
      expect(doc.trend.verdict).toBe(verdict);
      if (verdict === 'growing') {
        const g = doc.trend.groups.find((x: { verdict: string }) => x.verdict === 'growing');
        expect(g.blockingSite.func).toBe('main.send');
        expect(g.perMinute).toBeGreaterThan(600);
      }
    });
  }
});
