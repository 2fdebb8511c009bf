/** The stderr progress bar: only on a terminal, only after a second, never for JSON or piped output. */
import { describe, expect, it } from 'vitest';
import { progressAllowed, progressBar, render } from '../../src/cli/progress.js';

function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, stream: { isTTY, columns: 100, write: (s: string) => (writes.push(s), true) } };
}

describe('progressBar', () => {
  it('draws nothing when the stream is not a terminal', () => {
    const { writes, stream } = fakeStream(false);
    let t = 0;
    const p = progressBar('big.txt', 1000, { stream, now: () => t });
    t = 5000;
    p.onProgress(500);
    p.done();
    expect(writes).toEqual([]);
  });

  it('appears only after a second, redraws at most every 100 ms, and is erased when done', () => {
    const { writes, stream } = fakeStream(true);
    let t = 0;
    const p = progressBar('big.txt', 1000e6, { stream, now: () => t });
    t = 900;
    p.onProgress(100e6);
    expect(writes).toEqual([]);
    t = 1000;
    p.onProgress(480e6);
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/^\rreading big\.txt {2}\[#{10}·{10}\] {3}48% {2}480\/1000 MB {2}1\.0 s\x1b\[K$/);
    t = 1050;
    p.onProgress(500e6);
    expect(writes).toHaveLength(1);
    t = 1100;
    p.onProgress(600e6);
    expect(writes).toHaveLength(2);
    p.done();
    expect(writes[2]).toBe('\r\x1b[K');
    p.onProgress(700e6);
    expect(writes).toHaveLength(3);
  });

  it('a fast read never shows the bar and done() writes nothing', () => {
    const { writes, stream } = fakeStream(true);
    const p = progressBar('small.txt', 10, { stream, now: () => 0 });
    p.onProgress(10);
    p.done();
    expect(writes).toEqual([]);
  });

  it('fits the terminal width and shows bytes alone when the size is unknown', () => {
    const line = render(`/very/long/path/${'x'.repeat(200)}.txt`, 5e6, 50e6, 2, 80);
    expect(line.length).toBeLessThanOrEqual(79);
    expect(line).toContain('…');
    expect(render('-', 12e6, undefined, 1.5, 80)).toBe('reading -  12 MB  1.5 s');
  });
});

describe('progressAllowed', () => {
  const tty = { isTTY: true };
  const pipe = { isTTY: false };
  it('needs stderr on a terminal, non-JSON output, and a terminal or file for the report', () => {
    expect(progressAllowed({ format: 'text', stdout: tty, stderr: tty, env: {} })).toBe(true);
    expect(progressAllowed({ format: 'text', output: 'r.txt', stdout: pipe, stderr: tty, env: {} })).toBe(true);
    expect(progressAllowed({ format: 'json', output: 'r.json', stdout: tty, stderr: tty, env: {} })).toBe(false);
    expect(progressAllowed({ format: 'text', stdout: pipe, stderr: tty, env: {} })).toBe(false);
    expect(progressAllowed({ format: 'text', stdout: tty, stderr: pipe, env: {} })).toBe(false);
    expect(progressAllowed({ format: 'text', stdout: tty, stderr: tty, env: { CI: 'true' } })).toBe(false);
    expect(progressAllowed({ format: 'text', stdout: tty, stderr: tty, env: { TERM: 'dumb' } })).toBe(false);
  });
});
