/**
 * Archives as inputs: tar, gzip (tar.gz/tgz), xz (tar.xz) and zip, told apart by their
 * bytes, never by their names, and archives inside archives up to a small depth. Everything is
 * streamed: nothing is written to disk, an entry's name is only ever a label (`../../x` is shown, never
 * opened). Limits on decompressed bytes, entries and nesting end a hostile archive with one line.
 *
 * Libraries: tar-stream (streaming tar, pax/GNU long names), xz-decompress (xz-embedded compiled to
 * WebAssembly: no native build), yauzl (zip through its central directory; a zip needs random access,
 * so one on disk is read in place and one inside another archive or on stdin is held in memory up to
 * the byte limit). gzip is node:zlib.
 */
import { Readable } from 'node:stream';
import { constants as zlibConstants, createGunzip, gunzipSync } from 'node:zlib';
import { InputError } from './errors.js';
import { SMALL_GZIP_OUTPUT, gunzipWhole, inflateSmallWhole } from './small-gzip.js';
import { chunksUntilError } from './stream-chunks.js';

export interface ArchiveLimits {
  /** Decompressed bytes at most over the whole input (gzip, xz and zip output, and zips held in memory). */
  readonly maxBytes: number;
  /** Entries at most over the whole input, folders and nested archives' entries included. */
  readonly maxEntries: number;
  /** Archives inside archives at most (the collector's tar of tar.xz is depth 2). */
  readonly maxDepth: number;
}

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = { maxBytes: 4 * 1024 * 1024 * 1024, maxEntries: 100_000, maxDepth: 4 };

/** One file inside an archive, handed to the visitor while the archive is read. */
export interface ArchiveEntry {
  /** `outer.tar!inner.tar.xz!dir/file`: the input, then each entry path, joined by `!`. */
  readonly name: string;
  /** The entry's path inside its own (innermost) archive. */
  readonly path: string;
  /** Position in the whole walk, 0-based: the order in the archive. */
  readonly index: number;
  /** The entry's content, decompressed when it was gzip or xz. Drained by the walker if left unread. */
  readonly chunks: AsyncIterable<Uint8Array>;
}

export interface WalkResult {
  /** Every entry seen, folders and nested archives included. */
  readonly entries: number;
  /** Files handed to the visitor. */
  readonly files: number;
  /** An archive cut short or corrupt part-way: what was read stands; these say what was lost. */
  readonly warnings: string[];
  /**
   * Members of an archive skipped whole because they could not be decompressed or walked (corrupt
   * xz/gzip data, a bad inner tar header): the walk went on with the next member.
   */
  readonly skipped: SkippedMember[];
  /** Inner archives read part-way (corrupt after some entries): their rest is lost. */
  readonly cut: SkippedMember[];
  /** The input's own (outer) stream broke: nothing after this point was read. */
  readonly stopped?: string;
}

/** An archive member that was not (fully) read, and why. */
export interface SkippedMember {
  /** `outer.tar!inner.tar.xz`. */
  readonly name: string;
  readonly why: string;
}

export type ContainerKind = 'tar' | 'zip' | 'gzip' | 'xz';

/** What the first bytes say: a container this file reads, or undefined (a plain file). */
export function sniffContainer(head: Uint8Array): ContainerKind | undefined {
  if (head[0] === 0x1f && head[1] === 0x8b) return 'gzip';
  if (head[0] === 0xfd && head[1] === 0x37 && head[2] === 0x7a && head[3] === 0x58 && head[4] === 0x5a && head[5] === 0x00) return 'xz';
  // Local file header, or the end record of an empty zip.
  if (head[0] === 0x50 && head[1] === 0x4b && ((head[2] === 3 && head[3] === 4) || (head[2] === 5 && head[3] === 6))) return 'zip';
  if (isTarHeader(head)) return 'tar';
  return undefined;
}

/** POSIX and GNU tar: `ustar` at 257 and a header checksum that adds up. */
function isTarHeader(h: Uint8Array): boolean {
  if (h.byteLength < 512) return false;
  if (!(h[257] === 0x75 && h[258] === 0x73 && h[259] === 0x74 && h[260] === 0x61 && h[261] === 0x72)) return false;
  const stored = parseInt(Buffer.from(h.subarray(148, 156)).toString('latin1').replace(/\0.*$/, '').trim(), 8);
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 0x20 : h[i];
  return sum === stored;
}

/** The first `n` bytes (fewer at the end of input) and the whole stream, head included. */
export async function peek(chunks: AsyncIterable<Uint8Array>, n: number): Promise<{ head: Uint8Array; all: AsyncIterable<Uint8Array> }> {
  const it = chunks[Symbol.asyncIterator]();
  const got: Uint8Array[] = [];
  let size = 0;
  let done = false;
  while (size < n) {
    const r = await it.next();
    if (r.done) {
      done = true;
      break;
    }
    if (r.value.byteLength === 0) continue;
    got.push(r.value);
    size += r.value.byteLength;
  }
  const head = got.length === 1 ? got[0] : Buffer.concat(got);
  async function* all(): AsyncIterable<Uint8Array> {
    // Ended early (an error further on, a refused entry): end the source too. An xz decoder holds
    // the one WebAssembly instance until its stream is cancelled.
    let finished = done;
    try {
      if (head.byteLength) yield head;
      if (done) return;
      for (;;) {
        const r = await it.next();
        if (r.done) {
          finished = true;
          return;
        }
        yield r.value;
      }
    } finally {
      if (!finished) await it.return?.();
    }
  }
  return { head, all: all() };
}

/** A name shown in messages: control characters (a newline in an entry name) replaced. */
export function printable(s: string): string {
  return s.replace(/[\x00-\x1f\x7f]/g, '?');
}

type Visit = (entry: ArchiveEntry) => Promise<void>;

interface Walk {
  readonly input: string;
  readonly limits: ArchiveLimits;
  readonly visit: Visit;
  bytes: number;
  entries: number;
  files: number;
  readonly warnings: string[];
  readonly skipped: SkippedMember[];
  readonly cut: SkippedMember[];
  stopped?: string;
}

/**
 * True when the first bytes of an input say it is an archive this file reads: tar, zip, xz, or gzip
 * of a tar (a gzipped dump is not: the dump reader undoes gzip itself). `head` should be some KiB
 * for gzip (the tar header is looked for in what the first bytes inflate to).
 */
export function isArchiveHead(head: Uint8Array): boolean {
  const kind = sniffContainer(head);
  if (kind !== 'gzip') return kind !== undefined;
  return sniffContainer(gunzipHead(head)) === 'tar';
}

function gunzipHead(head: Uint8Array): Uint8Array {
  // Corrupt data further on must not hide the tar header at the start: shorter prefixes stop before it.
  for (const n of [head.byteLength, 8192, 1024]) {
    if (n > head.byteLength) continue;
    try {
      return gunzipSync(head.subarray(0, n), { finishFlush: zlibConstants.Z_SYNC_FLUSH });
    } catch {
      /* try a shorter prefix */
    }
  }
  return new Uint8Array(0);
}

/**
 * Read an archive from `chunks` and hand every file in it, and in the archives it holds, to `visit`,
 * in archive order. `file` is the path on disk when the input is a file: a zip is then read in place
 * rather than held in memory. A compressed plain file (xz of a dump) is handed over as one entry.
 */
export async function walkArchive(
  input: string,
  chunks: AsyncIterable<Uint8Array>,
  visit: Visit,
  limits: Partial<ArchiveLimits> = {},
  file?: string,
): Promise<WalkResult> {
  const w: Walk = { input, limits: { ...DEFAULT_ARCHIVE_LIMITS, ...limits }, visit, bytes: 0, entries: 0, files: 0, warnings: [], skipped: [], cut: [] };
  const { head, all } = await peek(chunks, 512);
  const kind = sniffContainer(head);
  if (!kind) throw new InputError(input, 'not-a-dump', 'is not an archive');
  await container(w, printable(input), '', kind, all, 0, file);
  return { entries: w.entries, files: w.files, warnings: w.warnings, skipped: w.skipped, cut: w.cut, ...(w.stopped ? { stopped: w.stopped } : {}) };
}

/**
 * One container at nesting `depth`: a tar or zip is walked; gzip or xz is undone and what is inside
 * is looked at again (an archive, at the same depth; else a plain file, the entry itself).
 */
async function container(w: Walk, name: string, path: string, kind: ContainerKind, chunks: AsyncIterable<Uint8Array>, depth: number, file?: string): Promise<void> {
  if ((kind === 'tar' || kind === 'zip') && depth > w.limits.maxDepth) {
    throw new InputError(w.input, 'too-large', `archives nested deeper than ${w.limits.maxDepth} (at ${name}; raise with --max-depth)`);
  }
  if (kind === 'tar') return walkTar(w, name, chunks, depth);
  if (kind === 'zip') return walkZip(w, name, chunks, depth, file);
  const inner = await peek(counted(w, name, kind === 'gzip' ? gunzip(name, chunks) : unxz(name, chunks)), 512);
  const innerKind = sniffContainer(inner.head);
  // gzip/xz add no level of their own: the archive inside is at the depth of the entry that held it.
  if (innerKind === 'tar' || innerKind === 'zip') return container(w, name, path, innerKind, inner.all, depth);
  // A compressed plain file (`goroutine.pb.gz`, `app.log.xz`): its content is the entry.
  await leaf(w, name, path, inner.all);
}

async function entry(w: Walk, parent: string, path: string, chunks: AsyncIterable<Uint8Array>, depth: number): Promise<void> {
  const name = `${parent}!${printable(path)}`;
  const { head, all } = await peek(chunks, 512);
  const kind = sniffContainer(head);
  if (kind === 'tar' || kind === 'zip') return container(w, name, path, kind, all, depth + 1);
  // gzip or xz: an archive inside (one level deeper) or a compressed file; container() tells which.
  if (kind) return container(w, name, path, kind, all, depth + 1);
  await leaf(w, name, path, all);
}

async function leaf(w: Walk, name: string, path: string, chunks: AsyncIterable<Uint8Array>): Promise<void> {
  const index = w.files++;
  let drained = false;
  const it = chunks[Symbol.asyncIterator]();
  const tracked: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: () => ({
      next: async () => {
        const r = await it.next();
        if (r.done) drained = true;
        return r;
      },
    }),
  };
  await w.visit({ name, path, index, chunks: tracked });
  // The visitor may stop early (it refused the entry): the archive reads on only past the rest of it.
  if (!drained) for (let r = await it.next(); !r.done; r = await it.next());
}

function countEntry(w: Walk, name: string): void {
  w.entries++;
  if (w.entries > w.limits.maxEntries) {
    throw new InputError(w.input, 'too-large', `holds more than ${w.limits.maxEntries} entries (at ${name}; raise with --max-entries)`);
  }
}

// The archive libraries load on first use, once: the bundled command line turns each `import()` into
// a copy of the module's exports (esbuild's `__toESM`), which a bundle of hundreds of members paid
// for every member.
type TarStream = typeof import('tar-stream') & { default?: typeof import('tar-stream') };
type Yauzl = typeof import('yauzl') & { default?: typeof import('yauzl') };
type XzModule = { XzReadableStream?: XzStream; default?: { XzReadableStream: XzStream } };
let tarStream: Promise<TarStream> | undefined;
let yauzlModule: Promise<Yauzl> | undefined;
let xzModule: Promise<XzModule> | undefined;

async function walkTar(w: Walk, name: string, chunks: AsyncIterable<Uint8Array>, depth: number): Promise<void> {
  // CommonJS: its exports are on `default` once bundled.
  const mod = await (tarStream ??= import('tar-stream') as Promise<TarStream>);
  const ex = (mod.extract ?? mod.default!.extract)();
  const src = Readable.from(chunks, { objectMode: false });
  src.on('error', (e) => ex.destroy(e));
  src.pipe(ex as unknown as NodeJS.WritableStream);
  let seen = 0;
  try {
    for await (const e of ex) {
      const h = e.header;
      countEntry(w, `${name}!${printable(h.name)}`);
      seen++;
      if ((h.type === 'file' || h.type === 'contiguous-file') && (h.size ?? 0) > 0) {
        await member(w, name, h.name, e as AsyncIterable<Uint8Array>, depth);
      } else {
        e.resume();
      }
    }
  } catch (e) {
    if (e instanceof InputError) throw e;
    // Cut short or corrupt after some entries: what was read stands, with a warning.
    const why = (e as Error)?.message ?? String(e);
    if (seen === 0 && depth === 0) throw new InputError(w.input, 'not-a-dump', `is not a readable tar archive (${why})`);
    const after = `after ${seen} entr${seen === 1 ? 'y' : 'ies'}`;
    if (depth === 0) {
      // The input's own stream: the walk cannot go on past it.
      w.stopped = `the archive ends early or is corrupt ${after} (${why})`;
      w.warnings.push(`${name}: ${w.stopped}; read what came before, nothing after the break (the archive's own stream)`);
    } else if (seen === 0) {
      w.skipped.push({ name, why: `not a readable tar archive (${why})` });
      w.warnings.push(`${name}: not a readable tar archive (${why}); skipped, reading goes on with the next member`);
    } else {
      w.cut.push({ name, why: `corrupt ${after} (${why})` });
      w.warnings.push(`${name}: the archive ends early or is corrupt ${after} (${why}); read what came before, reading goes on with the next member`);
    }
  } finally {
    src.destroy();
  }
}

/**
 * One member of a tar: read through a guard that keeps its reader (a decompressor, an inner tar)
 * from ending the outer archive's stream when the member turns out corrupt; what the reader left is
 * then skipped, and the walk goes on with the next member. An error of the outer stream itself is
 * passed on: the walk cannot go past it.
 */
async function member(w: Walk, parent: string, path: string, chunks: AsyncIterable<Uint8Array>, depth: number): Promise<void> {
  const it = chunks[Symbol.asyncIterator]();
  let outerFailed = false;
  const next = async () => {
    try {
      return await it.next();
    } catch (e) {
      outerFailed = true;
      throw e;
    }
  };
  const guarded: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: () => ({ next, return: async () => ({ done: true as const, value: undefined }) }),
  };
  try {
    await entry(w, parent, path, guarded, depth);
  } catch (e) {
    if (e instanceof InputError || outerFailed) throw e;
    const name = `${parent}!${printable(path)}`;
    const why = (e as Error)?.message?.replace(`${name}: `, '') ?? String(e);
    w.skipped.push({ name, why });
    w.warnings.push(`${name}: ${why}; skipped, reading goes on with the next member`);
  }
  for (let r = await next(); !r.done; r = await next());
}

async function walkZip(w: Walk, name: string, chunks: AsyncIterable<Uint8Array>, depth: number, file?: string): Promise<void> {
  const mod = await (yauzlModule ??= import('yauzl') as Promise<Yauzl>);
  const yauzl = mod.default ?? mod;
  const opts = { lazyEntries: true, autoClose: true, decodeStrings: false, validateEntrySizes: true } as const;
  let zip: import('yauzl').ZipFile;
  try {
    if (file) {
      // Read in place: the stream opened for sniffing is not needed.
      await drainQuietly(chunks);
      zip = await yauzl.openPromise(file, opts);
    } else {
      zip = await yauzl.fromBufferPromise(await holdZip(w, name, chunks), opts);
    }
  } catch (e) {
    if (e instanceof InputError) throw e;
    if (depth > 0) {
      // A zip inside another archive: skipped, the outer walk goes on.
      w.skipped.push({ name, why: `not a readable zip archive (${(e as Error).message})` });
      w.warnings.push(`${name}: not a readable zip archive (${(e as Error).message}); skipped, reading goes on with the next member`);
      return;
    }
    throw new InputError(w.input, 'not-a-dump', `is not a readable zip archive (${(e as Error).message})`);
  }
  try {
    for (;;) {
      const ent = await nextZipEntry(zip);
      if (!ent) break;
      const path = yauzl.getFileNameLowLevel(ent.generalPurposeBitFlag, ent.fileNameRaw as unknown as Buffer, ent.extraFields, false);
      countEntry(w, `${name}!${printable(path)}`);
      if (path.endsWith('/') || ent.uncompressedSize === 0) continue;
      if (ent.isEncrypted()) {
        w.skipped.push({ name: `${name}!${printable(path)}`, why: 'encrypted' });
        w.warnings.push(`${name}!${printable(path)}: encrypted; skipped`);
        continue;
      }
      const stream = await zip.openReadStreamPromise(ent);
      const raw = ent.compressionMethod === 0 ? (stream as AsyncIterable<Uint8Array>) : counted(w, `${name}!${printable(path)}`, stream as AsyncIterable<Uint8Array>);
      // yauzl does not check the CRC: corrupt stored or deflated data would pass as content.
      const content = crcChecked(raw, ent.crc32);
      try {
        await entry(w, name, path, content, depth);
      } catch (e) {
        if (e instanceof InputError) throw e;
        const member = `${name}!${printable(path)}`;
        const why = (e as Error)?.message?.replace(`${member}: `, '') ?? String(e);
        w.skipped.push({ name: member, why });
        w.warnings.push(`${member}: ${why}; skipped, reading goes on with the next member`);
      }
    }
  } finally {
    zip.close();
  }
}

function nextZipEntry(zip: import('yauzl').ZipFile): Promise<import('yauzl').Entry | undefined> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      zip.off('entry', onEntry);
      zip.off('end', onEnd);
      zip.off('error', onError);
    };
    const onEntry = (e: import('yauzl').Entry) => (cleanup(), resolve(e));
    const onEnd = () => (cleanup(), resolve(undefined));
    const onError = (e: Error) => (cleanup(), reject(e));
    zip.on('entry', onEntry);
    zip.on('end', onEnd);
    zip.on('error', onError);
    zip.readEntry();
  });
}

/** A zip not on disk (stdin, or inside another archive) is held whole: it is read from its end. */
async function holdZip(w: Walk, name: string, chunks: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const c of chunks) {
    w.bytes += c.byteLength;
    if (w.bytes > w.limits.maxBytes) throw tooLarge(w, name);
    parts.push(c);
  }
  return Buffer.concat(parts);
}

async function drainQuietly(chunks: AsyncIterable<Uint8Array>): Promise<void> {
  const it = chunks[Symbol.asyncIterator]();
  await it.return?.();
}

function tooLarge(w: Walk, name: string): InputError {
  return new InputError(w.input, 'too-large', `decompresses to more than ${w.limits.maxBytes} bytes (at ${name}; an archive bomb? raise with --max-decompressed)`);
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** The content as it comes, then an error when its CRC-32 is not the one the zip recorded. */
async function* crcChecked(chunks: AsyncIterable<Uint8Array>, expected: number): AsyncIterable<Uint8Array> {
  let c = 0xffffffff;
  for await (const b of chunks) {
    for (let i = 0; i < b.byteLength; i++) c = CRC_TABLE[(c ^ b[i]) & 0xff] ^ (c >>> 8);
    yield b;
  }
  if (((c ^ 0xffffffff) >>> 0) !== expected >>> 0) throw new ArchiveDataError('corrupt zip data (CRC-32 mismatch)');
}

/** Decompressed bytes count against the limit as they come. */
async function* counted(w: Walk, name: string, chunks: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  for await (const c of chunks) {
    w.bytes += c.byteLength;
    if (w.bytes > w.limits.maxBytes) throw tooLarge(w, name);
    yield c;
  }
}

/** The member's gzip undone: whole when small (small-gzip.ts), else as a stream. */
function gunzip(name: string, chunks: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  return inflateSmallWhole(chunks, (input) => gunzipWhole(gunzipSync, input, SMALL_GZIP_OUTPUT), (all) => gunzipStream(name, all));
}

async function* gunzipStream(name: string, chunks: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  const src = Readable.from(chunks, { objectMode: false });
  const z = createGunzip();
  src.on('error', (e) => z.destroy(e));
  src.pipe(z);
  try {
    yield* chunksUntilError(z);
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new ArchiveDataError(`${name}: ${(e as NodeJS.ErrnoException).code === 'Z_BUF_ERROR' ? 'gzip data ends early' : 'corrupt gzip data'}`);
  } finally {
    src.destroy();
    z.destroy();
  }
}

async function* unxz(name: string, chunks: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  const mod = await (xzModule ??= import('xz-decompress') as Promise<XzModule>);
  const XzReadableStream = (mod.XzReadableStream ?? mod.default!.XzReadableStream) as XzStream;
  const web = Readable.toWeb(Readable.from(chunks, { objectMode: false })) as unknown as ReadableStream<Uint8Array>;
  const xz = new XzReadableStream(web);
  try {
    for await (const b of xz as unknown as AsyncIterable<Uint8Array>) yield b;
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new ArchiveDataError(`${name}: corrupt or truncated xz data (${(e as Error)?.message ?? String(e)})`);
  }
}

type XzStream = new (input: ReadableStream<Uint8Array>) => ReadableStream<Uint8Array>;

/** Compressed data inside an archive that breaks part-way; the tar walker turns it into a warning. */
class ArchiveDataError extends Error {}
