/**
 * Where bytes come from: a file, stdin (`-`), or an http(s) URL. Every input becomes an async stream
 * of chunks; nothing here looks at the content.
 */
import { readFileSync, statSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { InputError } from './errors.js';

export interface SourceOptions {
  /** Bytes read from a URL at most (default 256 MiB). */
  maxDownloadBytes?: number;
  /** Milliseconds to wait for a URL's response headers (default 10 s). */
  connectTimeoutMs?: number;
  /** Milliseconds of silence allowed while reading a URL's body (default 30 s). */
  readTimeoutMs?: number;
  /** Redirects followed at most (default 5). */
  maxRedirects?: number;
  /** Stream to read for `-` (default process.stdin). */
  stdin?: NodeJS.ReadableStream;
  /**
   * Stops a download (a URL's request or body) when aborted: the read rejects with the signal's
   * reason, at once, not after a timeout (`watch` stopped by Ctrl-C mid-poll). Nothing is read as cut.
   * Files and stdin are read to their end (they do not wait on a network).
   */
  signal?: AbortSignal;
}

export interface OpenedSource {
  readonly name: string;
  readonly chunks: AsyncIterable<Uint8Array>;
  /**
   * Why the chunks ended before the source's end, once they have ended; undefined when they did not
   * (a download whose connection broke, or went silent, after part of the body: what came is read).
   */
  readonly endedEarly?: () => string | undefined;
  /** File modification time, when the source is a file (used to order snapshots without a capture time). */
  readonly mtime?: Date;
}

export function isUrl(spec: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(spec);
}

export async function openSource(spec: string, opts: SourceOptions = {}): Promise<OpenedSource> {
  if (spec === '-') return { name: '-', chunks: (opts.stdin ?? process.stdin) as AsyncIterable<Uint8Array> };
  if (isUrl(spec)) return openUrl(spec, opts);
  let st;
  try {
    st = statSync(spec);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new InputError(spec, 'not-found', 'no such file');
    throw new InputError(spec, 'unreadable', `cannot read (${code ?? String(e)})`);
  }
  if (st.isDirectory()) throw new InputError(spec, 'unreadable', 'is a directory, not a dump file');
  const chunks = st.isFile() && st.size > 0 && st.size <= READ_BYTES ? wholeFile(spec) : readFileChunks(spec, undefined, undefined, true);
  return { name: spec, chunks, mtime: st.mtime };
}

/**
 * The file's bytes, read whole when first asked for: one chunk, none when it is empty by then. For
 * regular files of at most one read's size (READ_BYTES: they were one chunk already). Each
 * asynchronous step of reading a file (stat, open, its stat, a read, close) waits a turn of libuv's
 * thread pool: a series of hundreds of snapshots of a few hundred KB left the reading thread idle a
 * quarter of a `trend`. Larger files are read ahead in chunks (`readFileChunks`), and so are files
 * that say they are empty (procfs).
 */
async function* wholeFile(path: string): AsyncIterable<Uint8Array> {
  let b: Buffer;
  try {
    b = readFileSync(path);
  } catch (e) {
    throw unreadable(path, e);
  }
  if (b.byteLength > 0) yield b;
}

/** Size of a regular file input; -1 for stdin, URLs and what cannot be stat'ed. */
export function regularFileSize(spec: string): number {
  if (spec === '-' || isUrl(spec)) return -1;
  try {
    const st = statSync(spec);
    return st.isFile() ? st.size : -1;
  } catch {
    return -1;
  }
}

/** Bytes asked of the file per read. */
const READ_BYTES = 1 << 20;
/** Reads kept in flight ahead of the reader. */
const READS_AHEAD = 2;

/**
 * The buffers of a file read with `lend`: those given back, free for later reads, and where later
 * reads go when the consumer said (`readInto`): `make`'s buffers, the only ones then kept.
 */
interface Lending {
  free: Buffer[];
  /** Until it gives none (then buffers of the file's own are kept again). */
  make?: (size: number) => Buffer | undefined;
  made?: Set<Buffer>;
}

/** A chunk given by `readFileChunks`, with the buffer it lies in and its file's lending. */
const lent = new WeakMap<Uint8Array, { buf: Buffer; file: Lending }>();

/**
 * The consumer of a chunk of `readFileChunks` is done with it and keeps no view of it: its buffer
 * takes a later read of the file. (Any other chunk: nothing happens.) Reused buffers keep a large
 * read's memory flat: a new buffer per read made the collector run for the external memory alone.
 */
export function releaseChunk(c: Uint8Array): void {
  const l = lent.get(c);
  if (l === undefined) return;
  lent.delete(c);
  const file = l.file;
  if (file.free.length < READS_AHEAD + 1 && (file.make === undefined || file.made!.has(l.buf))) file.free.push(l.buf);
}

/**
 * Later reads of the file that lent `c` (a chunk of `readFileChunks` with `lend`) go into buffers
 * `make` gives, of the size asked, while it gives them (then into buffers of their own): a consumer
 * that reads the bytes where they lie (the frame matcher's memory) spares a copy. While it gives
 * them, chunks given back (`releaseChunk`) in buffers it did not give are dropped. Any other chunk,
 * or a file told before: nothing happens.
 */
export function readInto(c: Uint8Array, make: (size: number) => Buffer | undefined): void {
  const l = lent.get(c);
  if (l === undefined || l.file.made !== undefined) return;
  l.file.make = make;
  l.file.made = new Set();
  l.file.free.length = 0;
}

/** A buffer of `make` (`readInto`) for the file's next read, if it gives one. */
function madeBuffer(file: Lending): Buffer | undefined {
  if (file.make === undefined) return undefined;
  const b = file.make(READ_BYTES);
  if (b === undefined) file.make = undefined;
  else file.made!.add(b);
  return b;
}

/**
 * The bytes of a file, or of its bytes [start, end). A regular file is read ahead: several reads are
 * in flight (on libuv's threads) while the reader works on the chunk before, so that neither a read
 * from the page cache nor one from disk leaves this thread waiting. A stream keeps one read in flight
 * and only once its buffer is taken: 15–40% of a large read's wall time was this thread waiting.
 * Other files (FIFOs, devices) are read in order by a stream. With `lend`, a consumer that is done
 * with a chunk may hand it back (`releaseChunk`); without, each read has a buffer of its own (for
 * consumers that keep chunks: archives).
 */
export async function* readFileChunks(path: string, start?: number, end?: number, lend = false): AsyncIterable<Uint8Array> {
  let fh: FileHandle;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    throw unreadable(path, e);
  }
  /** Reads in flight, in file order, with the bytes each asked for. */
  const ahead: { read: Promise<Buffer>; n: number }[] = [];
  try {
    const st = await fh.stat();
    // Not a regular file, or one that says it is empty (procfs and sysfs files have content all the
    // same): read in order until the end.
    if (!st.isFile() || st.size === 0) {
      yield* readStream(path, fh, start, end);
      return;
    }
    const stop = Math.min(end ?? st.size, st.size);
    let pos = start ?? 0;
    const file: Lending = { free: [] };
    const readNext = (): void => {
      if (pos >= stop) return;
      const n = Math.min(READ_BYTES, stop - pos);
      const buf = file.free.pop() ?? madeBuffer(file) ?? Buffer.allocUnsafeSlow(READ_BYTES);
      const read = fh.read(buf, 0, n, pos).then((r) => {
        const chunk = r.bytesRead === READ_BYTES ? buf : buf.subarray(0, r.bytesRead);
        if (lend) lent.set(chunk, { buf, file });
        return chunk;
      });
      // Handled here too: a read that fails while an earlier chunk is being read is not an unhandled
      // rejection (the process would end); its error is thrown when its turn comes.
      read.catch(() => undefined);
      ahead.push({ read, n });
      pos += n;
    };
    for (let i = 0; i < READS_AHEAD; i++) readNext();
    while (ahead.length > 0) {
      const { read, n } = ahead.shift()!;
      let chunk: Buffer;
      try {
        chunk = await read;
      } catch (e) {
        throw unreadable(path, e);
      }
      if (chunk.byteLength === 0) break;
      // A short read is the file's end (it was cut while read): nothing after it, not even what a
      // read in flight may find there if the file grew again.
      if (chunk.byteLength < n) {
        yield chunk;
        break;
      }
      // The next read starts after this chunk is taken, and before it is read: a buffer given back
      // while it was read (releaseChunk) takes the read after.
      readNext();
      yield chunk;
    }
  } finally {
    // Reads still in flight (the reader stopped early, or a read failed) end before the file closes.
    await Promise.allSettled(ahead.map((a) => a.read));
    await fh.close().catch(() => undefined);
  }
}

async function* readStream(path: string, fh: FileHandle, start?: number, end?: number): AsyncIterable<Uint8Array> {
  const range = start === undefined ? {} : { start, ...(end !== undefined ? { end: end - 1 } : {}) };
  const stream = fh.createReadStream({ highWaterMark: 1 << 18, autoClose: false, ...range });
  try {
    for await (const chunk of stream) yield chunk as Buffer;
  } catch (e) {
    throw unreadable(path, e);
  }
}

function unreadable(path: string, e: unknown): InputError {
  if (e instanceof InputError) return e;
  const code = (e as NodeJS.ErrnoException).code;
  return new InputError(path, 'unreadable', `cannot read (${code ?? String(e)})`);
}

/** The URL as shown in messages: user and password removed (they must not land in logs or reports). */
export function redactUrl(spec: string): string {
  try {
    const u = new URL(spec);
    if (!u.username && !u.password) return spec;
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return spec;
  }
}

async function openUrl(spec: string, opts: SourceOptions): Promise<OpenedSource> {
  const url = redactUrl(spec);
  let parsed: URL;
  try {
    parsed = new URL(spec);
  } catch {
    throw new InputError(url, 'network', 'is not a valid URL');
  }
  const proto = parsed.protocol;
  if (proto !== 'http:' && proto !== 'https:') {
    throw new InputError(url, 'network', `unsupported URL scheme ${proto} (only http and https)`);
  }
  const maxRedirects = opts.maxRedirects ?? 5;
  // fetch refuses URLs with credentials: send them as Basic auth, to the URL's own origin only.
  const auth = parsed.username || parsed.password
    ? `Basic ${Buffer.from(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`).toString('base64')}`
    : undefined;
  const origin = parsed.origin;
  const stop = opts.signal;
  let current = url;
  for (let hop = 0; ; hop++) {
    stop?.throwIfAborted();
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), opts.connectTimeoutMs ?? 10_000);
    const stopped = (): void => ctl.abort();
    stop?.addEventListener('abort', stopped);
    let res: Response;
    try {
      const headers: Record<string, string> = { accept: '*/*' };
      if (auth && new URL(current).origin === origin) headers.authorization = auth;
      res = await fetch(current, { redirect: 'manual', signal: ctl.signal, headers });
    } catch (e) {
      stop?.throwIfAborted();
      throw new InputError(url, 'network', describeFetchError(e, ctl.signal.aborted));
    } finally {
      clearTimeout(timer);
      stop?.removeEventListener('abort', stopped);
    }
    if (res.status >= 300 && res.status < 400 && res.headers.get('location')) {
      await res.body?.cancel();
      if (hop >= maxRedirects) throw new InputError(url, 'network', `more than ${maxRedirects} redirects`);
      try {
        current = redactUrl(new URL(res.headers.get('location')!, current).toString());
      } catch {
        throw new InputError(url, 'network', `redirected to an invalid location (HTTP ${res.status})`);
      }
      const p = new URL(current).protocol;
      if (p !== 'http:' && p !== 'https:') throw new InputError(url, 'network', `redirected to unsupported ${p}`);
      continue;
    }
    if (!res.ok) {
      await res.body?.cancel();
      const hint = res.status === 401 || res.status === 403 ? ' (the endpoint wants credentials)' : res.status === 404 ? ' (wrong path? the goroutine profile is usually /debug/pprof/goroutine)' : '';
      throw new InputError(url, 'http-status', `HTTP ${res.status} ${oneLine(res.statusText)}`.trim() + hint);
    }
    const type = res.headers.get('content-type') ?? '';
    if (/text\/html/i.test(type)) {
      await res.body?.cancel();
      throw new InputError(url, 'not-a-dump', `answered with an HTML page (${oneLine(type)}), not a goroutine profile: a login page or a wrong path?`);
    }
    let cut: string | undefined;
    const chunks = limitedBody(url, res, opts, (why) => (cut = why));
    return { name: url, chunks, endedEarly: () => cut };
  }
}

/**
 * The response body, at most `maxDownloadBytes`. A body that breaks off (the connection closed or
 * reset, or no data for `readTimeoutMs`) after some of it came ends there, and `onCut` says why: a
 * large dump through `kubectl port-forward` or a proxy that drops it midway is read as far as it came,
 * flagged as cut, like a file cut short. Before any of it came, the failure is the input's error.
 */
async function* limitedBody(url: string, res: Response, opts: SourceOptions, onCut: (why: string) => void): AsyncIterable<Uint8Array> {
  const max = opts.maxDownloadBytes ?? 256 * 1024 * 1024;
  const readTimeout = opts.readTimeoutMs ?? 30_000;
  if (!res.body) return;
  const reader = res.body.getReader();
  const stop = opts.signal;
  let total = 0;
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      let stopped: (() => void) | undefined;
      const silent = `no data for ${readTimeout} ms while reading the response`;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new InputError(url, 'network', silent)), readTimeout);
        if (stop) stop.addEventListener('abort', (stopped = () => reject(stop.reason)));
      });
      let r: Awaited<ReturnType<typeof reader.read>>;
      try {
        stop?.throwIfAborted();
        r = await Promise.race([reader.read(), timeout]);
      } catch (e) {
        // Stopped by the caller: its reason, not a cut download.
        stop?.throwIfAborted();
        const why = e instanceof InputError ? silent : describeFetchError(e, false);
        if (total > 0) {
          onCut(`the download stopped after ${total}${expectedOf(res)} bytes (${why})`);
          return;
        }
        throw e instanceof InputError ? e : new InputError(url, 'network', why);
      } finally {
        clearTimeout(timer);
        if (stopped) stop!.removeEventListener('abort', stopped);
      }
      if (r.done) return;
      total += r.value.byteLength;
      if (total > max) throw new InputError(url, 'too-large', `response larger than ${max} bytes (raise with --max-download)`);
      yield r.value;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** Server-chosen text in a message: one line, bounded. */
function oneLine(s: string): string {
  const t = s.replace(/[\x00-\x1f\x7f]+/g, ' ').trim();
  return t.length > 100 ? `${t.slice(0, 100)}…` : t;
}

/** ` of N` when the response said its length (`content-length`) in the bytes read, not encoded (gzip), else nothing. */
function expectedOf(res: Response): string {
  const encoding = res.headers.get('content-encoding');
  if (encoding && encoding.trim().toLowerCase() !== 'identity') return '';
  const n = Number(res.headers.get('content-length') ?? NaN);
  return Number.isSafeInteger(n) && n > 0 ? ` of ${n}` : '';
}

function describeFetchError(e: unknown, timedOut: boolean): string {
  if (timedOut) return 'timed out waiting for a response';
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code === 'ECONNREFUSED') return 'connection refused';
  if (cause?.code === 'ENOTFOUND') return 'host not found';
  if (cause?.code === 'ECONNRESET') return 'connection reset by the server';
  // undici's own code for a socket that closed (the server, or a proxy between, hung up).
  if (cause?.code === 'UND_ERR_SOCKET') return 'the connection closed';
  // fetch refuses the WHATWG "bad ports" (1, 22, 25, 6000, 6665-6669, …) before connecting.
  if (cause?.message === 'bad port') return 'refused to connect: the port is on the fetch standard\'s list of blocked ports; serve pprof on another port';
  if (cause?.code) return `network error (${oneLine(cause.code)})`;
  return `network error (${oneLine((e as Error).message ?? String(e))})`;
}
