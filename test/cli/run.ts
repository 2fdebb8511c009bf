/**
 * Runs the BUILT binary (`node dist/cli/main.js`) the way a user does, with NO_COLOR=1. The build runs
 * once per test run: the first test file to get here builds under a lock folder, the others wait.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from '../helpers/paths.js';

export const BIN = join(REPO, 'dist', 'cli', 'main.js');
const LOCK = join(tmpdir(), `leakscope-cli-build-${Buffer.from(REPO).toString('hex').slice(-16)}.lock`);
/** Test files run in forked workers of one vitest process: its pid names this run. */
const RUN_ID = String(process.ppid);
const DONE = `${LOCK}.done`;

let built: Promise<void> | undefined;

async function sleep(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

/** `npm run build` once for all test files of this run. */
export function ensureBuilt(): Promise<void> {
  built ??= (async () => {
    for (;;) {
      try {
        mkdirSync(LOCK);
        break;
      } catch {
        // Another worker builds; a lock older than 3 minutes is stale.
        try {
          if (Date.now() - statSync(LOCK).mtimeMs > 180_000) rmdirSync(LOCK);
        } catch {
          /* gone meanwhile */
        }
        await sleep(250);
      }
    }
    try {
      if (!builtThisRun()) {
        try {
          execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: REPO, stdio: 'pipe' });
          // The binary that ships: the CLI bundled as `npm run build` does (scripts/bundle-cli.mjs).
          execFileSync(process.execPath, ['scripts/bundle-cli.mjs'], { cwd: REPO, stdio: 'pipe' });
        } catch (e) {
          const out = String((e as { stdout?: Buffer }).stdout ?? '') + String((e as { stderr?: Buffer }).stderr ?? '');
          throw new Error(`npm run build failed:\n${out.slice(0, 2000)}`);
        }
        writeFileSync(DONE, RUN_ID);
      }
    } finally {
      rmdirSync(LOCK);
    }
  })();
  return built;
}

function builtThisRun(): boolean {
  try {
    return readFileSync(DONE, 'utf8') === RUN_ID && statSync(BIN).isFile();
  } catch {
    return false;
  }
}

export interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function run(args: readonly string[], opts: { cwd?: string; input?: string | Buffer; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd ?? REPO,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '', ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}
