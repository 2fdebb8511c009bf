/**
 * End to end: the built binary on real dumps, with NO_COLOR=1; exact exit codes, stdout and stderr.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CORPUS, corpusFiles, REPO, SAMPLES } from '../helpers/paths.js';
import { checkXml, errorsText, reportValidator, sarifValidator } from '../report/validators.js';
import { BIN, ensureBuilt, run } from './run.js';

const LEAK = relative(REPO, join(SAMPLES, 'apiproxy-leak', 'goroutine.debug2.txt'));
const LEAK1 = relative(REPO, join(SAMPLES, 'apiproxy-leak', 'goroutine.debug1.txt'));
const HEALTHY = relative(REPO, join(SAMPLES, 'healthy-server', 'goroutine.debug2.txt'));
let tmp: string;

beforeAll(async () => {
  await ensureBuilt();
  tmp = mkdtempSync(join(tmpdir(), 'leakscope-cli-'));
});

describe('unusable input and arguments: exit 2, one line on stderr, nothing on stdout', () => {
  const emptyDir = () => {
    const d = join(tmp, 'empty');
    mkdirSync(d, { recursive: true });
    return d;
  };
  const cases: [string, () => string[], string | RegExp | (() => string)][] = [
    ['a missing file', () => ['inspect', 'no-such-dump.txt'], 'leakscope: no-such-dump.txt: no such file\n'],
    ['a directory where a file is needed', () => ['diff', 'samples', LEAK], 'leakscope: samples: is a directory, not a dump file\n'],
    ['an empty folder', () => ['inspect', emptyDir()], () => `leakscope: ${emptyDir()}: folder holds no files\n`],
    ['an unknown option', () => ['inspect', '--bogus', LEAK], "leakscope inspect: unknown option '--bogus'\n"],
    ['a bad option value', () => ['inspect', '--top', 'many', LEAK], "leakscope inspect: option '--top <n>' argument 'many' is invalid. expected a whole number ≥ 1.\n"],
    ['an unknown format', () => ['inspect', '-f', 'xml', LEAK], "leakscope inspect: option '-f, --format <name[=file]>' argument 'xml' is invalid. unknown format 'xml' (choose from table, json, markdown, sarif, junit, github, html; NAME=FILE writes it to FILE).\n"],
    ['a bad regex', () => ['inspect', '--match', '(', LEAK], /^leakscope inspect: option '--match <regex>' argument '\(' is invalid\. not a valid regular expression \([^\n]*\)\.\n$/],
    ['an unknown command', () => ['frobnicate'], "leakscope: unknown command 'frobnicate'\n"],
    ['a missing argument', () => ['diff', LEAK], "leakscope diff: missing required argument 'after'\n"],
    ['a bad --fail-on', () => ['check', '--fail-on', 'fatal', LEAK], "leakscope check: option '--fail-on <severity>' argument 'fatal' is invalid. Allowed choices are error, warning, info.\n"],
    ['a watch URL that is not http', () => ['watch', 'ftp://example.com/x'], 'leakscope: ftp://example.com/x: watch needs an http:// or https:// URL\n'],
  ];
  for (const [what, args, stderr] of cases) {
    it(what, async () => {
      const r = await run(args());
      expect(r.stdout).toBe('');
      if (typeof stderr === 'string') expect(r.stderr).toBe(stderr);
      else if (typeof stderr === 'function') expect(r.stderr).toBe(stderr());
      else expect(r.stderr).toMatch(stderr);
      expect(r.status).toBe(2);
    });
  }

  it('a text file that is not a dump', async () => {
    const p = join(tmp, 'malformed-notes.txt');
    writeFileSync(p, 'meeting notes\nnothing to see here\ngoroutines are fun\n');
    const r = await run(['inspect', p]);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^leakscope: ${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: [^\\n]+\\n$`));
  });

  it('a bad config file names file, line and field', async () => {
    const p = join(tmp, 'bad-config.yaml');
    writeFileSync(p, 'gate:\n  maxTotal: lots\n');
    const r = await run(['check', '--rules', p, HEALTHY]);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^leakscope: [^\n]*bad-config\.yaml:2: gate\.maxTotal: [^\n]+\n$/);
  });
});

describe('inspect', () => {
  it('prints findings, totals and the top groups of the leak sample', async () => {
    const r = await run(['inspect', LEAK, '--top', '3']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Findings: \d+ findings \(\d+ error, \d+ warning, \d+ info\)\n\nERROR {2}300 goroutines blocked sending at proxy_store\.go:50/);
    expect(r.stdout).toContain(`${LEAK}  goroutine dump (debug=2)\nTotal: 1,061 goroutines in 8 groups\n`);
    expect(r.stdout).toMatch(/│ 2 │ +300 │ 28\.3% │ chan-send +│ proxy\/proxy_store\.go:50 +│ proxy\.returnErr +│/);
    expect(r.stdout).toMatch(/│ 1 │ +380 │ 35\.8% │ waitgroup \(semacquire\) +│ proxy\/proxy_store\.go:118 +│/);
  });

  it('reads stdin', async () => {
    const r = await run(['inspect', '-', '--no-rules', '--top', '1'], { input: readFileSync(join(REPO, LEAK1), 'utf8') });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('-  goroutine profile (debug=1)\nTotal: 1,061 goroutines');
  });

  it('--format json validates against the report schema', async () => {
    const r = await run(['inspect', LEAK, HEALTHY, '--format', 'json']);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    const validate = reportValidator();
    expect(validate(doc), errorsText(validate.errors)).toBe(true);
    expect(doc.snapshots.map((s: { total: number }) => s.total)).toEqual([1061, 39]);
  });

  it('--format sarif validates against the official SARIF 2.1.0 schema, mapped to repository paths', async () => {
    // The sample is built with -trimpath: its paths start with the module path.
    const r = await run(['inspect', LEAK, '--format', 'sarif', '--path-prefix', 'example.com/apiproxy/=samples/apiproxy-leak/']);
    expect(r.status).toBe(0);
    const log = JSON.parse(r.stdout);
    const validate = sarifValidator();
    expect(validate(log), errorsText(validate.errors)).toBe(true);
    const send = log.runs[0].results.find((x: { ruleId: string }) => x.ruleId === 'core/blocked-send');
    expect(send.locations[0].physicalLocation.artifactLocation.uri).toBe('samples/apiproxy-leak/pkg/stores/proxy/proxy_store.go');
    expect(send.locations[0].physicalLocation.region.startLine).toBe(50);
  });

  it('--format junit is well-formed XML with one case per rule', async () => {
    const r = await run(['inspect', LEAK, '--format', 'junit']);
    expect(r.status).toBe(0);
    checkXml(r.stdout);
    expect(r.stdout).toMatch(/<testcase classname="leakscope.rules" name="core\/blocked-send"[^>]*>\n\s*<failure /);
  });

  it('--format github and markdown', async () => {
    const gh = await run(['inspect', LEAK, '--format', 'github']);
    expect(gh.stdout).toMatch(/^::error file=[^,]*proxy_store\.go,line=50,title=leakscope core\/blocked-send%3A /m);
    const md = await run(['inspect', LEAK, '--format', 'markdown']);
    expect(md.stdout.split('\n')[0]).toMatch(/^## leakscope inspect: \d+ findings/);
  });

  it('a truncated dump gives results and a warning', async () => {
    const text = readFileSync(join(REPO, LEAK), 'utf8');
    const p = join(tmp, 'cut.txt');
    writeFileSync(p, text.slice(0, Math.floor(text.length / 2)));
    const r = await run(['inspect', p, '--no-rules']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Total: ');
    expect(r.stderr).toMatch(/^leakscope: warning: [^\n]*cut\.txt[^\n]*\n/);
  });

  it('expands folders and globs like trend and check; a folder without dumps is exit 2', async () => {
    const glob = await run(['inspect', relative(REPO, join(SAMPLES, '*', 'goroutine.debug0.pb.gz')), '--format', 'json']);
    expect(glob.status).toBe(0);
    const cases = readdirSync(SAMPLES).filter((c) => existsSync(join(SAMPLES, c, 'goroutine.debug0.pb.gz')));
    expect(JSON.parse(glob.stdout).snapshots).toHaveLength(cases.length);
    const folder = await run(['inspect', relative(REPO, join(SAMPLES, 'soak-healthy', 'series')), '--format', 'json']);
    expect(folder.status).toBe(0);
    expect(JSON.parse(folder.stdout).snapshots.length).toBe(readdirSync(join(SAMPLES, 'soak-healthy', 'series')).length);
    const empty = join(tmp, 'no-dumps');
    mkdirSync(empty, { recursive: true });
    writeFileSync(join(empty, 'notes.txt'), 'nothing to see\n');
    const none = await run(['inspect', empty]);
    expect(none.status).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr.trim().split('\n').at(-1)).toBe(`leakscope: ${empty}: no goroutine dump found`);
  });
});

describe('the shared corpus', () => {
  it('every dump in one run: JSON and SARIF valid; the negative control refused', async () => {
    const files = corpusFiles().filter((f) => !/README|SOURCES|NEGATIVE/.test(f)).map((f) => join(CORPUS, f));
    if (files.length === 0) return;
    const json = await run(['inspect', ...files, '-f', 'json'], { timeoutMs: 120_000 });
    expect(json.status, json.stderr).toBe(0);
    const validate = reportValidator();
    expect(validate(JSON.parse(json.stdout)), errorsText(validate.errors)).toBe(true);
    const sarif = await run(['inspect', ...files, '-f', 'sarif'], { timeoutMs: 120_000 });
    expect(sarif.status).toBe(0);
    const vs = sarifValidator();
    expect(vs(JSON.parse(sarif.stdout)), errorsText(vs.errors)).toBe(true);
    const negative = corpusFiles().find((f) => f.includes('NEGATIVE'));
    if (negative) {
      const r = await run(['inspect', join(CORPUS, negative)]);
      expect(r.status).toBe(2);
      expect(r.stderr.split('\n')).toHaveLength(2);
    }
  });
});

describe('--output', () => {
  it('writes the report atomically and leaves no temporary file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leakscope-out-'));
    const out = join(dir, 'report.sarif');
    const r = await run(['inspect', LEAK, '-f', 'sarif', '-o', out]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(readdirSync(dir)).toEqual(['report.sarif']);
    expect(JSON.parse(readFileSync(out, 'utf8')).version).toBe('2.1.0');
  });

  it('refuses to overwrite an input', async () => {
    const p = join(tmp, 'input-copy.txt');
    copyFileSync(join(REPO, LEAK), p);
    const before = readFileSync(p, 'utf8');
    const r = await run(['inspect', p, '-o', p]);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`leakscope: ${p}: refusing to overwrite the input ${p} (choose another --output)\n`);
    expect(readFileSync(p, 'utf8')).toBe(before);
  });

  it('a failed run leaves no file, and keeps an existing one intact', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leakscope-out-'));
    const out = join(dir, 'r.json');
    expect((await run(['inspect', 'no-such-dump.txt', '-o', out])).status).toBe(2);
    expect(readdirSync(dir)).toEqual([]);
    writeFileSync(out, 'previous report');
    expect((await run(['inspect', LEAK, 'no-such-dump.txt', '-o', out])).status).toBe(2);
    expect(readFileSync(out, 'utf8')).toBe('previous report');
    expect(readdirSync(dir)).toEqual(['r.json']);
  });

  it('writes a JSON report made in pieces whole, to stdout and to a file', async () => {
    // The soak-leak series: ~450 KB of JSON, handed on in pieces of 64 K characters.
    const series = join('samples', 'soak-leak', 'series');
    const dir = mkdtempSync(join(tmpdir(), 'leakscope-out-'));
    const out = join(dir, 'r.json');
    const toStdout = await run(['inspect', series, '-f', 'json']);
    const toFile = await run(['inspect', series, '-f', 'json', '-o', out]);
    expect([toStdout.status, toFile.status]).toEqual([0, 0]);
    expect(toStdout.stdout.length).toBeGreaterThan(4 << 16);
    expect(readFileSync(out, 'utf8')).toBe(toStdout.stdout);
    expect(JSON.parse(toStdout.stdout).snapshots).toHaveLength(readdirSync(join(REPO, series)).length);
    expect(readdirSync(dir)).toEqual(['r.json']);
  });

  it('writes into a named pipe (or a device: -o /dev/null) instead of replacing it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leakscope-out-'));
    const fifo = join(dir, 'report.pipe');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'inherit'] });
    let read = '';
    reader.stdout.setEncoding('utf8').on('data', (d: string) => (read += d));
    const closed = new Promise((done) => reader.on('close', done));
    const r = await run(['inspect', LEAK, '-f', 'json', '-o', fifo]);
    await closed;
    expect(r.status).toBe(0);
    expect(read).toBe((await run(['inspect', LEAK, '-f', 'json'])).stdout);
    expect(statSync(fifo).isFIFO()).toBe(true);
    expect(readdirSync(dir)).toEqual(['report.pipe']);
  });

  it.runIf(existsSync('/dev/full'))('a device that refuses the write (-o /dev/full): one line, exit 2, the device kept', async () => {
    const r = await run(['inspect', LEAK, '-o', '/dev/full']);
    expect(r.stderr).toBe('leakscope: /dev/full: cannot write the report (ENOSPC)\n');
    expect(r.status).toBe(2);
    expect(statSync('/dev/full').isCharacterDevice()).toBe(true);
  });

  it('a write that fails midway says so in one line, and leaves no file', () => {
    // A file size limit of 64 KB, its signal ignored (as exec keeps it): the write past it fails with EFBIG.
    const dir = mkdtempSync(join(tmpdir(), 'leakscope-out-'));
    const out = join(dir, 'r.json');
    const script = `trap '' XFSZ; ulimit -f 64; exec "$@"`;
    const r = spawnSync('/bin/sh', ['-c', script, 'sh', process.execPath, BIN, 'inspect', join('samples', 'soak-leak', 'series'), '-f', 'json', '-o', out], {
      cwd: REPO,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });
    expect(r.stderr).toBe(`leakscope: ${out}: cannot write the report (EFBIG)\n`);
    expect(r.status).toBe(2);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('diff', () => {
  it('matches debug=1 and debug=2 captures of one process', async () => {
    const r = await run(['diff', LEAK1, LEAK]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`Diff: ${LEAK1} (1,061 goroutines) → ${LEAK} (1,061 goroutines): 0 (0.0%)\n1 new group, 1 vanished group, 9 groups in all\n`);
  });
});

describe('report', () => {
  it('writes one HTML file by default; other formats on request', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leakscope-report-'));
    const out = join(dir, 'report.html');
    const r = await run(['report', LEAK1, LEAK, '-o', out]);
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/^<!DOCTYPE html>/);
    const json = JSON.parse((await run(['report', LEAK1, LEAK, '-f', 'json'])).stdout);
    expect(json.command).toBe('report');
    expect(json.snapshots).toHaveLength(2);
    expect(json.diff.totalDelta).toBe(0);
  });
});

describe('check', () => {
  it('fails (exit 1) on the leak sample and passes (exit 0) on the healthy server', async () => {
    const bad = await run(['check', LEAK]);
    expect(bad.status).toBe(1);
    expect(bad.stdout.split('\n')[0]).toBe('Gate: FAILED');
    const good = await run(['check', HEALTHY]);
    expect(good.stderr).toBe('');
    expect(good.stdout.split('\n')[0]).toBe('Gate: PASSED');
    expect(good.status).toBe(0);
  });

  it('reads gate limits from the config file, and flags override them', async () => {
    const cfg = join(tmp, 'gate.yaml');
    writeFileSync(cfg, 'gate:\n  maxTotal: 10\n');
    const r = await run(['check', '--rules', cfg, HEALTHY]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^  FAIL  max-total  \(allowed 10\)  39 goroutines in \S+ > 10$/m);
    expect((await run(['check', '--rules', cfg, '--max-total', '100', HEALTHY])).status).toBe(0);
  });

  it('exit 2 on unusable input', async () => {
    const r = await run(['check', 'no-such-dump.txt']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('leakscope: no-such-dump.txt: no such file\n');
  });
});
