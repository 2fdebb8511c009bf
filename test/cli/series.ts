/**
 * Series of real dumps for trend/check tests, written at test time: the records of a sample's
 * `debug=1` profile (real stacks, as the Go runtime printed them) with their counts rewritten per
 * snapshot, so one group grows steadily (a leak) or every group wobbles (a healthy server under load).
 * Names carry the capture time (`goroutine-2024-05-01T10-00-00Z.txt`), which `trend` orders by.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SAMPLES } from '../helpers/paths.js';

interface Record {
  count: number;
  text: string;
}

function records(sample: string): Record[] {
  const text = readFileSync(join(SAMPLES, sample, 'goroutine.debug1.txt'), 'utf8');
  const body = text.slice(text.indexOf('\n') + 1);
  return body
    .split(/\n(?=\d+ @ )/)
    .map((block) => block.trim())
    .filter((b) => /^\d+ @ /.test(b))
    .map((b) => ({ count: Number(b.slice(0, b.indexOf(' '))), text: b.slice(b.indexOf(' ')) }));
}

function write(dir: string, i: number, recs: Record[]): string {
  const total = recs.reduce((n, r) => n + r.count, 0);
  const body = recs.filter((r) => r.count > 0).map((r) => `${r.count}${r.text}\n`).join('\n');
  const name = `goroutine-2024-05-01T10-${String(i).padStart(2, '0')}-00Z.txt`;
  writeFileSync(join(dir, name), `goroutine profile: total ${total}\n${body}\n`);
  return join(dir, name);
}

/** Deterministic wobble in −spread..+spread. */
function wobble(seed: number, spread: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return Math.floor((x / 2 ** 32) * (2 * spread + 1)) - spread;
  };
}

/** The API-proxy sample, its blocked senders (`returnErr`) growing by `step` per snapshot from `start`. */
export function leakSeries(dir: string, n = 8, start = 2, step = 3): string[] {
  mkdirSync(dir, { recursive: true });
  const base = records('apiproxy-leak');
  const isSender = (r: Record) => r.text.includes('proxy.returnErr');
  const senders = base.filter(isSender).length;
  return Array.from({ length: n }, (_, i) =>
    write(dir, i, base.map((r) => (isSender(r) ? { ...r, count: Math.max(1, Math.round((start + step * i) / senders)) } : r))),
  );
}

/** The healthy-server sample under load: every group's count wobbles, none trends. */
export function healthySeries(dir: string, n = 8, seed = 3): string[] {
  mkdirSync(dir, { recursive: true });
  const base = records('healthy-server');
  const w = wobble(seed, 2);
  return Array.from({ length: n }, (_, i) => write(dir, i, base.map((r) => ({ ...r, count: Math.max(1, r.count + w()) }))));
}
