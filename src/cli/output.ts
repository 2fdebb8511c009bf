/**
 * Where a report goes: stdout (written once), or `--output FILE` written atomically: a temporary
 * file in the same folder, then rename, so a reader never sees half a report and a failed run leaves
 * no partial file. The output may never be one of the inputs. Warnings go to stderr, one line each.
 */
import { realpathSync, statSync, type Stats } from 'node:fs';
import { rename, unlink, writeFile } from 'node:fs/promises';
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

/** Write the whole report: to stdout, or atomically to `output`. */
export async function writeOutput(text: string, output: string | undefined): Promise<void> {
  // Renderers return their text; the file or terminal gets a final newline either way.
  if (text.length > 0 && !text.endsWith('\n')) text += '\n';
  if (output === undefined || output === '-') {
    await writeStdout(text);
    return;
  }
  const target = resolve(output);
  // (node:crypto loads a dozen modules: only a run that writes a file pays for them.)
  const { randomBytes } = await import('node:crypto');
  const tmp = join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, text, { flag: 'wx' });
    await rename(tmp, target);
  } catch (e) {
    await unlink(tmp).catch(() => {});
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(`${output}: cannot write the report (${code ?? (e as Error).message})`);
  }
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
