/**
 * The frames of known stacks taken straight from the bytes (src/read/frame-match.ts, the traceback
 * reader's `takeKnownFrames`) give exactly what reading line by line gives: the same reader is fed
 * once through the line splitter (which offers it whole blocks) and once line by line (a sink that
 * takes no blocks), on every text sample and corpus file, in pieces of several sizes, and on dumps
 * made from real goroutines with the lines the byte path must leave to the line path: arguments
 * holding parentheses, `(...)` where the frame is not inlined, another line number, CR LF endings,
 * a function name that is not ASCII, other `created by` lines, a goroutine cut by the end of the input.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SnapshotBuilder, frameKeyPart, frameNumber, type GoroutineRecord } from '../../src/model/builder.js';
import type { Dump } from '../../src/model/dump.js';
import { FrameMatcher, type Walk } from '../../src/read/frame-match.js';
import { LineSplitter, type PieceMode } from '../../src/read/lines.js';
import { readDumpFrom, readInput } from '../../src/read/pipeline.js';
import { textReader } from '../../src/read/text-input.js';
import { TracebackReader } from '../../src/read/traceback.js';
import { CORPUS, REPO, SAMPLES, corpusFiles, filesUnder } from '../helpers/paths.js';

/** Lines the byte path took, summed over the reads of a test (so that no test passes without it). */
let taken = 0;
const take = TracebackReader.prototype.takeKnownFrames;
TracebackReader.prototype.takeKnownFrames = function (this: TracebackReader, ...a: Parameters<typeof take>) {
  const end = take.apply(this, a);
  if (end > a[1]) taken += this.takenLines;
  return end;
};

/** Headers read from bytes between goroutines (`takeHeader`), summed like `taken`. */
let headers = 0;
const takeHeader = TracebackReader.prototype.takeHeader;
TracebackReader.prototype.takeHeader = function (this: TracebackReader, ...a: Parameters<typeof takeHeader>) {
  const end = takeHeader.apply(this, a);
  if (end > a[1]) headers++;
  return end;
};

/**
 * Records whose stack key the reader gave (`GoroutineRecord.framesKey`, made along the trie by
 * `nodeKey`), and those of them whose key is not their frames' (the builder's own `framesKey`).
 */
let keyed = 0;
let misKeyed = 0;
const builderAdd = SnapshotBuilder.prototype.add;
SnapshotBuilder.prototype.add = function (this: SnapshotBuilder, g: GoroutineRecord) {
  if (g.framesKey !== undefined) {
    keyed++;
    if (g.framesKey !== g.frames.map((f) => frameKeyPart(frameNumber(f)!)).join('')) misKeyed++;
  }
  builderAdd.call(this, g);
};

/** Pieces the splitter read as bytes (PieceMode 'bytes'), summed like `taken`. */
let byBytes = 0;
const lineByLine = (LineSplitter.prototype as unknown as { lineByLine: (...a: unknown[]) => void }).lineByLine;
(LineSplitter.prototype as unknown as { lineByLine: (...a: unknown[]) => void }).lineByLine = function (this: LineSplitter, ...a: unknown[]) {
  byBytes++;
  lineByLine.apply(this, a);
};

/**
 * The Dump of `bytes` pushed in chunks of `chunk` bytes, with blocks offered (true, pieces read as
 * `mode` says) or line by line; or the message of the error it was refused with. `inPlace`: each
 * chunk is copied into one of three buffers of the reader's matcher (`inputBuffer`, as a large file
 * is read), taken in turn, so that the walk reads it where it lies and a view kept of a chunk shows.
 */
function read(bytes: Buffer, chunk: number, blocks: boolean, mode: PieceMode = 'auto', inPlace = false): Dump | string {
  const { reader, splitter } = textReader('input.txt', {});
  const s = !blocks
    ? new LineSplitter({ line: (l, n) => reader.line(l, n) })
    : mode === 'auto' ? splitter : new LineSplitter(reader, 1 << 20, undefined, mode);
  const size = Math.min(chunk, bytes.length);
  const buffers = inPlace ? [0, 1, 2].map(() => reader.inputBuffer(size)!) : [];
  try {
    for (let i = 0; i < bytes.length; i += chunk) {
      const c = bytes.subarray(i, i + chunk);
      if (!inPlace) s.push(c);
      else {
        const b = buffers[(i / chunk) % 3];
        c.copy(b);
        s.push(b.subarray(0, c.length));
      }
    }
    s.end();
    return reader.end({});
  } catch (e) {
    return (e as Error).message;
  }
}

const MODES: readonly PieceMode[] = ['auto', 'text', 'bytes'];

/** `run`, with `seen` told of each walk of any matcher: the matcher, the walk's arguments and its result. */
function watchingWalks<T>(seen: (m: FrameMatcher, a: Parameters<FrameMatcher['walk']>, w: Walk) => void, run: () => T): T {
  const walk = FrameMatcher.prototype.walk;
  FrameMatcher.prototype.walk = function (this: FrameMatcher, ...a: Parameters<typeof walk>) {
    const w = walk.apply(this, a);
    seen(this, a, w);
    return w;
  };
  const restore = (): void => {
    FrameMatcher.prototype.walk = walk;
  };
  let r: T;
  try {
    r = run();
  } catch (e) {
    restore();
    throw e;
  }
  if (r instanceof Promise) return r.finally(restore) as T;
  restore();
  return r;
}

function same(bytes: Buffer, chunks: readonly number[]): void {
  const lines = read(bytes, bytes.length || 1, false);
  for (const c of chunks) {
    for (const mode of MODES) expect(read(bytes, c, true, mode)).toEqual(lines);
    expect(read(bytes, c, true, 'auto', true)).toEqual(lines);
  }
}

/** Dumps as text, gzipped or not. */
const TEXT = /\.(txt|log|out)(\.gz)?$/;

function content(path: string): Buffer {
  const b = readFileSync(path);
  return path.endsWith('.gz') ? gunzipSync(b) : b;
}

describe('known frames from bytes = line by line', () => {
  const samples = filesUnder(SAMPLES, TEXT).filter((p) => !p.includes('/excerpts/'));
  const corpus = corpusFiles().map((f) => join(CORPUS, f)).filter((p) => TEXT.test(p));

  it.each([...samples, ...corpus].map((p) => [relative(join(REPO, '..'), p), p]))('%s', (_, path) => {
    same(content(path), [1 << 20, 4093]);
  });

  it('took most lines of the samples whole', () => {
    taken = 0;
    const bytes = content(join(SAMPLES, 'lock-pileup', 'goroutine.debug2.txt'));
    read(bytes, 1 << 20, true);
    const lines = bytes.toString('latin1').split('\n').length;
    expect(taken).toBeGreaterThan(lines / 2);
  });

  it('holds a kid met by its frame text: later goroutines of its stack walk to it directly', () => {
    // (Without: every goroutine of such a stack took the text lookup and a search of the kids.)
    let walks = 0;
    let byTexts = 0;
    const count = (_: FrameMatcher, __: unknown, w: Walk): void => {
      walks++;
      if (w.texts > 0) byTexts++;
    };
    watchingWalks(count, () => read(content(join(SAMPLES, 'apiproxy-leak', 'goroutine.debug2.txt')), 1 << 20, true));
    expect(walks).toBeGreaterThan(1000);
    expect(byTexts).toBeLessThan(10);
  });

  it('read most headers of a dump of known stacks from bytes, between goroutines', () => {
    headers = 0;
    const bytes = content(join(SAMPLES, 'apiproxy-leak', 'goroutine.debug2.txt'));
    read(bytes, 1 << 20, true);
    const goroutines = bytes.toString('latin1').split('\ngoroutine ').length;
    expect(headers).toBeGreaterThan(goroutines / 2);
  });

  it('walks pieces that lie in its input buffers in place: no piece copied into its memory', () => {
    const bytes = content(join(SAMPLES, 'apiproxy-leak', 'goroutine.debug2.txt'));
    const copying = read(bytes, 997, true, 'auto');
    let walks = 0;
    let copied = 0;
    const count = (m: FrameMatcher): void => {
      walks++;
      if ((m as unknown as { loaded: number }).loaded >= 0) copied++;
    };
    taken = 0;
    const inPlace = watchingWalks(count, () => read(bytes, 997, true, 'auto', true));
    expect(inPlace).toEqual(copying);
    expect(walks).toBeGreaterThan(1000);
    expect(taken).toBeGreaterThan(1000);
    expect(copied).toBe(0);
  });

  it('reads a large file in place from its fourth MiB (readInPlace), to the Dump of the same bytes given whole', async () => {
    // Ten copies of a real dump, each with its own goroutine ids: 5.7 MB.
    const text = content(join(SAMPLES, 'apiproxy-leak', 'goroutine.debug2.txt')).toString('latin1');
    const bytes = Buffer.from(Array.from({ length: 10 }, (_, i) => text.replace(/^goroutine (\d+)/gm, (_, id: string) => `goroutine ${Number(id) + i * 1e6}`)).join('\n'), 'latin1');
    const dir = mkdtempSync(join(tmpdir(), 'leakscope-in-place-'));
    const path = join(dir, 'big.debug2.txt');
    writeFileSync(path, bytes);
    let inPlace = 0;
    // In place: the piece lies in a buffer of the very matcher that walks it.
    const count = (m: FrameMatcher): void => {
      if ((m as unknown as { inPlaceAt: number }).inPlaceAt >= 0) inPlace++;
    };
    let fromFile: Dump;
    try {
      fromFile = await watchingWalks(count, () => readInput(path));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(inPlace).toBeGreaterThan(1000);
    expect(fromFile).toEqual(await readDumpFrom(path, bytes));
  });

  it('gives a few input buffers at most', () => {
    const { reader } = textReader('input.txt', {});
    for (let i = 0; i < 4; i++) expect(reader.inputBuffer(1 << 20)?.length).toBe(1 << 20);
    expect(reader.inputBuffer(1 << 20)).toBeUndefined();
  });

  it('reads in place while its memory grows (nodes of new stacks), to the same Dump', () => {
    // Each copy of the dump in its own files: new frames all along, so the nodes grow the memory.
    const text = content(join(SAMPLES, 'apiproxy-leak', 'goroutine.debug2.txt')).toString('latin1');
    const bytes = Buffer.from(Array.from({ length: 40 }, (_, i) => text.replaceAll('.go:', `${i}.go:`)).join('\n'), 'latin1');
    let first = 0;
    let last = 0;
    const sizes = (m: FrameMatcher): void => {
      const size = (m as unknown as { memory: { buffer: ArrayBufferLike } }).memory.buffer.byteLength;
      if (first === 0) first = size;
      last = size;
    };
    const inPlace = watchingWalks(sizes, () => read(bytes, 4093, true, 'auto', true));
    expect(last).toBeGreaterThan(first);
    expect(inPlace).toEqual(read(bytes, bytes.length, false));
  });

  it('reads the pieces after one taken mostly whole as bytes (auto), to the same Dump', () => {
    byBytes = 0;
    const bytes = content(join(SAMPLES, 'apiproxy-leak', 'goroutine.debug2.txt'));
    expect(read(bytes, 1 << 20, true, 'auto')).toEqual(read(bytes, 1 << 20, true, 'text'));
    expect(byBytes).toBeGreaterThan(bytes.length / (64 * 1024) / 2);
  });
});

/** The goroutines of a real dump, each as its lines (header first), without the blank line after it. */
function goroutines(path: string): string[][] {
  const text = readFileSync(path, 'latin1');
  return text
    .split('\n\n')
    .map((b) => b.split('\n').filter((l) => l.length > 0))
    .filter((b) => b.length > 2 && b[0].startsWith('goroutine '));
}

const pool = [
  ...goroutines(join(SAMPLES, 'lock-pileup', 'goroutine.debug2.txt')),
  ...goroutines(join(SAMPLES, 'apiproxy-leak', 'goroutine.debug2.txt')).slice(0, 200),
];

/** `l` with its character `k` replaced by another letter (a frame's bytes compared in words: any position may differ). */
function otherByte(l: string, k: number): string {
  return `${l.slice(0, k)}${l[k] === 'Q' ? 'R' : 'Q'}${l.slice(k + 1)}`;
}

/** Ways a goroutine's text may differ from a known stack's, each one the line path must read. */
const changes: Record<string, (g: string[], at: number) => string[]> = {
  same: (g) => g,
  argsWithParens: (g, at) => g.map((l, i) => (i === at && l.endsWith(')') ? `${l.slice(0, -1)}, (0x1))` : l)),
  inlinedMarker: (g, at) => g.map((l, i) => (i === at && l.endsWith(')') && !l.startsWith('\t') ? `${l.slice(0, l.indexOf('('))}(...)` : l)),
  otherLineNumber: (g, at) => g.map((l, i) => (i === at + 1 && l.startsWith('\t') ? l.replace(/:(\d+)/, (_, n: string) => `:${Number(n) + 1}`) : l)),
  otherFileByte: (g, at) => g.map((l, i) => (i === at + 1 && l.startsWith('\t') ? otherByte(l, 1 + ((at * 13) % (l.indexOf(':') - 1))) : l)),
  otherFuncByte: (g, at) => g.map((l, i) => (i === at && !l.startsWith('\t') && l.indexOf('(') > 0 ? otherByte(l, (at * 13) % l.indexOf('(')) : l)),
  crlf: (g) => g.map((l) => `${l}\r`),
  notAscii: (g, at) => g.map((l, i) => (i === at && l.includes('.') && !l.startsWith('\t') ? l.replace('.', '.é') : l)),
  noArgsClose: (g, at) => g.map((l, i) => (i === at && l.endsWith(')') ? l.slice(0, -1) : l)),
  creatorOtherId: (g) => g.map((l) => l.replace(/ in goroutine \d+$/, ' in goroutine 98765')),
  creatorBadId: (g) => g.map((l) => l.replace(/ in goroutine \d+$/, ' in goroutine 12x')),
  creatorLongId: (g) => g.map((l) => l.replace(/ in goroutine \d+$/, ' in goroutine 98765432109876543210')),
  creatorWithoutId: (g) => g.map((l) => l.replace(/ in goroutine \d+$/, '')),
  creatorOtherLine: (g) => g.map((l, i) => (i > 0 && g[i - 1].startsWith('created by ') ? l.replace(/:(\d+)/, (_, n: string) => `:${Number(n) + 1}`) : l)),
  noCreator: (g) => g.slice(0, g.findIndex((l) => l.startsWith('created by ')) >>> 0),
  ancestors: (g) => [...g, '[originating from goroutine 1]:', 'main.main()', '\t/x/main.go:3 +0x1d'],
  headerMinutes: (g, at) => [g[0].replace(/\]:$/, `, ${at % 3} minutes]:`), ...g.slice(1)],
  headerLocked: (g) => [g[0].replace(/\]:$/, ', locked to thread]:'), ...g.slice(1)],
  headerLabels: (g) => [g[0].replace(/\]:$/, '] {"k": "v"}:'), ...g.slice(1)],
  headerGp: (g) => [g[0].replace(/^(goroutine \d+)/, '$1 gp=0xc000002380 m=0 mp=0x55d3a0'), ...g.slice(1)],
  headerCr: (g) => [`${g[0]}\r`, ...g.slice(1)],
  headerBadId: (g) => [g[0].replace(/^goroutine \d+/, 'goroutine 5x'), ...g.slice(1)],
  headerNoColon: (g) => [g[0].replace(/:$/, ''), ...g.slice(1)],
};

function dumpOf(picks: readonly { g: number; change: string; at: number }[], cut: number): Buffer {
  const blocks = picks.map((p, i) => {
    const g = pool[p.g % pool.length];
    const lines = changes[p.change](g, 1 + (p.at % (g.length - 1)));
    return [lines[0].replace(/^goroutine \d+/, `goroutine ${i + 1}`), ...lines.slice(1)].join('\n');
  });
  const text = `${blocks.join('\n\n')}\n`;
  return Buffer.from(cut > 0 ? text.slice(0, Math.max(1, text.length - cut)) : text, 'utf8');
}

describe('known frames from bytes, on goroutines changed where the bytes differ', () => {
  it.each(Object.keys(changes))('%s', (change) => {
    taken = 0;
    // Each goroutine twice (the second read of a stack is the one taken from bytes), the changed one between.
    const picks = pool.slice(0, 60).flatMap((_, g) => [{ g, change: 'same', at: 0 }, { g, change, at: g * 7 }, { g, change: 'same', at: 0 }]);
    headers = 0;
    same(dumpOf(picks, 0), [1 << 20, 997]);
    expect(taken).toBeGreaterThan(0);
    expect(headers).toBeGreaterThan(0);
  });

  it('any mix of them, in any pieces, cut anywhere', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ g: fc.nat(), change: fc.constantFrom(...Object.keys(changes)), at: fc.nat() }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 5000 }),
        fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 400 })),
        fc.constantFrom(...MODES),
        fc.boolean(),
        (picks, chunk, cut, mode, inPlace) => {
          const bytes = dumpOf(picks, cut);
          expect(read(bytes, chunk, true, mode, inPlace)).toEqual(read(bytes, bytes.length, false));
        },
      ),
      { numRuns: 300 },
    );
  });
});

/** With `globalThis.WebAssembly` as `wasm`, the lock-pileup sample reads to the Dump it gives with WebAssembly, taking no line from bytes. */
function readsTheUsualWay(wasm: unknown): void {
  const bytes = content(join(SAMPLES, 'lock-pileup', 'goroutine.debug2.txt'));
  const withWasm = read(bytes, 1 << 20, true);
  const real = Object.getOwnPropertyDescriptor(globalThis, 'WebAssembly')!;
  Object.defineProperty(globalThis, 'WebAssembly', { value: wasm, configurable: true, writable: true });
  try {
    taken = 0;
    expect(read(bytes, 1 << 20, true)).toEqual(withWasm);
    expect(taken).toBe(0);
  } finally {
    Object.defineProperty(globalThis, 'WebAssembly', real);
  }
}

describe('the WebAssembly module', () => {
  it('is optional: without WebAssembly (node --jitless) every line goes the usual way, to the same Dump', () => {
    readsTheUsualWay(undefined);
  });

  it('is optional where its memory cannot be had (ulimit -v): every line goes the usual way, to the same Dump', () => {
    readsTheUsualWay({
      ...WebAssembly,
      Module: WebAssembly.Module,
      Instance: function () {
        throw new RangeError('WebAssembly.Instance(): Out of memory: Cannot allocate Wasm memory for new instance');
      },
    });
  });

  it('is the assembly of frame-match.wat (run scripts/build-wasm.mjs after editing it)', () => {
    const r = spawnSync(process.execPath, [join(REPO, 'scripts', 'build-wasm.mjs'), '--check'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});

/** Pairs of lines (call line, file line) of the pool's goroutines, as printed. */
const framePairs = pool.slice(0, 40).flatMap((g) => {
  const out: [string, string][] = [];
  for (let i = 1; i + 1 < g.length && !g[i].startsWith('created by '); i += 2) out.push([g[i], g[i + 1]]);
  return out;
});

/**
 * Stacks made of a few real frames in many orders (as goroutines recursing through a few functions
 * print them): the same frame text stands at many places of the stack trie. Some file lines are
 * printed after another function's call line, or with another pc offset, so that a frame text read
 * before (`lineFrames`, the matcher's shared text) must not stand for them.
 */
const CREATORS = [
  ['created by main.main in goroutine 1', '\t/x/main.go:9 +0x25'],
  ['created by main.main', '\t/x/main.go:9 +0x25'],
  ['created by main.main in goroutine 12', '\t/x/main.go:9 +0x25'],
  ['created by example.com/w.(*Pool).Go in goroutine 3', '\t/w/pool.go:41 +0x7a'],
  ['created by main.main in goroutine 1', '\t/x/main.go:10 +0x25'],
];

function recombined(picks: readonly number[][], twists: readonly number[], creators: readonly number[] = [0]): Buffer {
  const pairs = framePairs.slice(0, 6);
  const blocks = picks.map((stack, i) => {
    const lines = [`goroutine ${i + 1} [chan receive]:`];
    stack.forEach((p, j) => {
      let [call, file] = pairs[p % pairs.length];
      const twist = twists[(i + j) % twists.length];
      if (twist === 1) call = pairs[(p + 1) % pairs.length][0]; // another function before this file line
      if (twist === 2) file = file.replace(/\+0x[0-9a-f]+/, '+0x7777'); // same frame, another pc
      if (twist === 3) call = `${call.slice(0, call.lastIndexOf('('))}(...)`; // inlined
      lines.push(call, file);
    });
    lines.push(...CREATORS[creators[i % creators.length]]);
    return lines.join('\n');
  });
  return Buffer.from(`${blocks.join('\n\n')}\n`, 'latin1');
}

/** The frames of each goroutine of `bytes` read without the reader: function, file and line of each pair. */
function framesByText(bytes: Buffer): string[][] {
  return bytes.toString('latin1').split('\n\n').map((b) => {
    const l = b.split('\n');
    const out: string[] = [];
    for (let i = 1; i + 1 < l.length && !l[i].startsWith('created by '); i += 2) {
      const m = /^\s*(.*):(\d+)(?: |$)/.exec(l[i + 1])!;
      out.push(`${l[i].slice(0, l[i].lastIndexOf('('))} ${m[1]}:${m[2]}${l[i].endsWith('(...)') ? ' inlined' : ''}`);
    }
    return out;
  });
}

describe('frame texts shared across the stack trie', () => {
  it('give each goroutine its own frames, from bytes and line by line', () => {
    expect(framePairs.length).toBeGreaterThan(6);
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.nat({ max: 5 }), { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 60 }),
        fc.array(fc.constantFrom(0, 0, 0, 1, 2, 3), { minLength: 1, maxLength: 7 }),
        fc.array(fc.nat({ max: CREATORS.length - 1 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 200, max: 5000 }),
        (picks, twists, creators, chunk) => {
          const bytes = recombined(picks, twists, creators);
          const lines = read(bytes, bytes.length, false);
          expect(read(bytes, chunk, true)).toEqual(lines);
          const want = framesByText(bytes);
          const d = lines as Dump;
          const got = d.snapshots[0].goroutines!.map((x) =>
            d.snapshots[0].groups[x.group].frames.map((f) => `${f.func} ${f.file}:${f.line}${f.inlined ? ' inlined' : ''}`),
          );
          expect(got).toEqual(want);
          const g = d.snapshots[0].groups;
          expect(d.snapshots[0].goroutines!.map((x) => `${g[x.group].creator?.func} ${g[x.group].creator?.line} ${x.createdBy}`)).toEqual(
            picks.map((_, i) => {
              const [head, file] = CREATORS[creators[i % creators.length]];
              const m = /^created by (\S+)(?: in goroutine (\d+))?$/.exec(head)!;
              return `${m[1]} ${/:(\d+) /.exec(file)![1]} ${m[2]}`;
            }),
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('take the goroutines of new stacks whole from bytes when their frames were read before', () => {
    taken = 0;
    const stacks = Array.from({ length: 400 }, (_, i) => [i % 6, (i * 7) % 6, (i * 5) % 6, i % 5, (i * 3) % 4, (i >> 2) % 6]);
    const bytes = recombined(stacks, [0]);
    read(bytes, 1 << 20, true);
    // Each goroutine is 2 * 6 + 3 lines; all but the first few are taken whole.
    expect(taken).toBeGreaterThan(15 * 350);
  });

  it('hold, for each node in the matcher, the text of its own frame and line', () => {
    const stacks = Array.from({ length: 300 }, (_, i) => [i % 6, (i * 7) % 6, (i * 5) % 6, i % 5, (i * 3) % 4]);
    const bytes = recombined(stacks, [0, 2, 0, 3, 0, 0, 0]);
    const { reader, splitter } = textReader('input.txt', {});
    splitter.push(bytes);
    splitter.end();
    reader.end({});
    type Held = { frame: { func: string } | undefined; line: string; at: number };
    const m = (reader as unknown as { tb: { known: { matcher: { nodes: Held[]; ints: Int32Array; bytes: Buffer } } } }).tb.known.matcher;
    const texts = new Set<number>();
    for (const n of m.nodes.slice(1)) {
      const text = m.ints[(n.at >> 2) + 7];
      const want = `${n.frame!.func}(${n.line}\n`;
      expect(m.bytes.toString('latin1', text, text + want.length)).toBe(want);
      expect(m.ints[n.at >> 2]).toBe(n.frame!.func.length + 1);
      texts.add(text);
    }
    // Shared: one text per function and file line (six frames, each also with another pc and inlined).
    expect(texts.size).toBeLessThanOrEqual(18);
    expect(m.nodes.length).toBeGreaterThan(texts.size);
  });
});

describe('stack keys made along the trie', () => {
  it('are, for every goroutine read in the tests above, its frames’ key', () => {
    expect(keyed).toBeGreaterThan(100_000);
    expect(misKeyed).toBe(0);
  });
});
