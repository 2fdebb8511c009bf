/**
 * Where a report goes: stdout, or `--output FILE` written atomically: a temporary file in the same
 * folder, then rename, so a reader never sees half a report and a failed run leaves no partial file
 * (a device or named pipe, `-o /dev/null`, is written to as it is). The output may never be one of
 * the inputs. Warnings go to stderr, one line each.
 */
import { closeSync, openSync, realpathSync, statSync, writeSync, type Stats } from 'node:fs';
import { rename, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { isUrl } from '../read/source.js';
import { UsageError } from './exit-codes.js';

function statOrUndefined(p: string): Stats | undefined {
  try {
    return statSync(p);
  } catch {
    return undefined;
  }
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

/** Refuse an unusable `--output` before any work: a folder, a missing folder, or one of the inputs. */
export function checkOutput(output: string | undefined, inputs: readonly string[]): void {
  if (output === undefined || output === '-') return;
  if (output === '') throw new UsageError('--output: empty file name');
  const st = statOrUndefined(output);
  if (st?.isDirectory()) throw new UsageError(`${output}: is a directory; --output needs a file name`);
  const dir = dirname(resolve(output));
  if (!statOrUndefined(dir)?.isDirectory()) throw new UsageError(`${output}: folder ${dirname(output)} does not exist`);
  const outReal = real(output);
  for (const input of inputs) {
    if (input === '-' || isUrl(input)) continue;
    const inSt = statOrUndefined(input);
    const same =
      real(input) === outReal || (st !== undefined && inSt !== undefined && st.dev === inSt.dev && st.ino === inSt.ino);
    if (same) throw new UsageError(`${output}: refusing to overwrite the input ${input} (choose another --output)`);
  }
}

/**
 * Write a report made in pieces: `produce` hands each to its sink, in order; the file or terminal
 * gets a final newline either way. The report is never held whole (a JSON report of a dump of
 * distinct stacks is over 100 MB). A file is written to a temporary file and renamed.
 */
export async function writeOutputPieces(
  produce: (sink: (text: string) => void) => void,
  output: string | undefined,
): Promise<void> {
  if (output === undefined || output === '-') {
    watchStdio();
    const restore = blockingStdout();
    try {
      // Each piece is written when the next one is ready; the last one with a callback (writes keep their order).
      let held = '';
      writePieces((text) => {
        if (held !== '') process.stdout.write(held);
        held = text;
      }, produce);
      await writeStdout(held);
    } catch (e) {
      if (!readerGone(e as NodeJS.ErrnoException)) throw failed('stdout', e);
    } finally {
      restore();
    }
    const failure = await takeStdoutFailure('the report');
    if (failure) throw failure;
    return;
  }
  // A device, FIFO or socket (`-o /dev/null`, `-o /dev/stdout`, a named pipe) is written to: a
  // temporary file renamed over it would replace it (as root, /dev/null became a regular file).
  const st = statOrUndefined(resolve(output));
  if (st !== undefined && !st.isFile()) return writeInPlace(produce, output);
  // Through a symbolic link to the file it names, as `>` writes (`-o latest.html` → reports/…): the
  // rename went over the link itself, which became a file and left its target with the old report.
  const target = st !== undefined ? real(output) : resolve(output);
  const { randomBytes } = await import('node:crypto');
  const tmp = join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let fd = openOutput(tmp, 'wx', output);
  try {
    writePieces((text) => writeAll(fd, text), produce);
    closeSync(fd);
    fd = -1;
    await rename(tmp, target);
  } catch (e) {
    if (fd >= 0) closeSync(fd);
    await unlink(tmp).catch(() => {});
    throw failed(output, e);
  }
}

/** `writeOutputPieces` into `output` itself, opened for writing (not a regular file). */
function writeInPlace(produce: (sink: (text: string) => void) => void, output: string): void {
  const fd = openOutput(output, 'w', output);
  try {
    writePieces((text) => writeAll(fd, text), produce);
  } catch (e) {
    throw failed(output, e);
  } finally {
    closeSync(fd);
  }
}

/** `path` opened with `flags`, or the user's error naming `output`. */
function openOutput(path: string, flags: string, output: string): number {
  try {
    return openSync(path, flags);
  } catch (e) {
    throw failed(output, e);
  }
}

/** What to throw for `e`: a failed open, write or rename is the user's to fix (a full disk), anything else is ours. */
function failed(output: string, e: unknown): unknown {
  if (!(e instanceof Error && 'syscall' in e)) return e;
  const code = (e as NodeJS.ErrnoException).code;
  return new UsageError(`${output}: cannot write the report (${code ?? e.message})`);
}

/** `produce`'s pieces to `write`, in order, but empty ones, and a final newline if the last has none. */
function writePieces(write: (text: string) => void, produce: (sink: (text: string) => void) => void): void {
  let last = '';
  produce((text) => {
    if (text === '') return;
    write(text);
    last = text;
  });
  if (last !== '' && !last.endsWith('\n')) write('\n');
}

/**
 * The bytes of a piece are encoded into this buffer, not a new one per piece: a JSON report of 20,000
 * distinct stacks is ~1,900 pieces of 64 K characters, and a new buffer each was 120 MB of fresh memory
 * to fault in and fill (10 alternating runs: 1.06 -> 0.96 s). A UTF-16 unit takes at most 3 bytes of
 * UTF-8 (a surrogate pair, two units, takes 4), so a piece of up to a third of its size always fits; a
 * longer one gets a buffer of its own.
 */
const scratch = Buffer.allocUnsafe(256 << 10);

/** All of `text` to `fd` (a write may take only part of it). */
function writeAll(fd: number, text: string): void {
  const b = text.length * 3 <= scratch.length ? scratch.subarray(0, scratch.write(text, 'utf8')) : Buffer.from(text, 'utf8');
  for (let at = 0; at < b.length; ) at += writeSync(fd, b, at, b.length - at);
}

/**
 * Makes writes to stdout wait for the reader when stdout is a pipe or socket (`leakscope … -f json |
 * jq`); gives back what undoes it. Node writes to a pipe without blocking: a piece the reader has not
 * taken yet is queued in memory, and the pieces are made faster than a reader takes them, so the whole
 * report was held (the 120 MB JSON report of 20,000 distinct stacks: 526 MB peak, against 167 MB
 * into a file). A file is written synchronously already, and so is a terminal on Linux; a stream
 * without the handle's `setBlocking` is left as it is.
 */
function blockingStdout(): () => void {
  const handle = (process.stdout as { _handle?: { setBlocking?: (blocking: boolean) => number } })._handle;
  if (process.stdout.isTTY || typeof handle?.setBlocking !== 'function') return () => {};
  if (handle.setBlocking(true) !== 0) return () => {};
  return () => handle.setBlocking!(false);
}

/**
 * A write to stdout failed because its reader went away: a closed pipe (EPIPE), or a closed socket
 * (ECONNRESET: Node gives a child process's stdio "pipes" as socket pairs).
 */
export function readerGone(e: NodeJS.ErrnoException): boolean {
  return e.code === 'EPIPE' || e.code === 'ECONNRESET';
}

/** The first write to stdout that failed while its reader was there (`watchStdio`), until taken. */
let stdoutFailure: NodeJS.ErrnoException | undefined;

function onStdoutError(e: NodeJS.ErrnoException): void {
  if (!readerGone(e)) stdoutFailure ??= e;
}

/** stderr that cannot be written (`2> file` on a full disk): its messages are lost, with nothing left to say so on. */
function onStderrError(): void {}

/**
 * Listens, once per process, for writes to stdout and stderr that fail. On stdout, a reader that went
 * away (`leakscope … | head`) is not an error of ours; any other failure (`> file` on a full disk:
 * ENOSPC) is the user's to fix, said in one line (`takeStdoutFailure`). On stderr a failure is
 * ignored: the run's exit code stays its own. Either way an 'error' event nobody took ended the
 * process, with a stack trace and exit code 1.
 */
export function watchStdio(): void {
  if (!process.stdout.listeners('error').includes(onStdoutError)) process.stdout.on('error', onStdoutError);
  if (!process.stderr.listeners('error').includes(onStderrError)) process.stderr.on('error', onStderrError);
}

/**
 * The write to stdout that failed and was not said yet, as the user's error (`what` could not be
 * written); undefined if none. The 'error' event of a failed write comes after its callback: this
 * waits a turn of the event loop first.
 */
export async function takeStdoutFailure(what: string): Promise<UsageError | undefined> {
  await new Promise((done) => setImmediate(done));
  const e = stdoutFailure;
  stdoutFailure = undefined;
  return e === undefined ? undefined : new UsageError(`stdout: cannot write ${what} (${e.code ?? e.message})`);
}

function writeStdout(text: string): Promise<void> {
  return new Promise((done) => {
    if (text === '') return done();
    process.stdout.write(text, () => done());
  });
}

/** One warning line on stderr. */
export function warn(message: string): void {
  process.stderr.write(`leakscope: warning: ${message}\n`);
}

/** One progress/info line on stderr (watch). */
export function note(message: string): void {
  process.stderr.write(`${message}\n`);
}
