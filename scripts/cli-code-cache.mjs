// Part of `npm run build` (called by bundle-cli.mjs): V8's code cache of the CLI bundle, made after a
// few commands ran in this process, so that it holds the compiled code of what a run of the CLI
// compiles (reading text and pprof dumps, analysis, rules, the table and JSON reports), not only the
// bundle's top level. Written beside the bundle (load.js's CODE_CACHE); the commands' own output goes
// to a temporary folder.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const samples = fileURLToPath(new URL('../samples/', import.meta.url));

/** Each command a cache is made after: `leakscope …` without the binary's name, output to OUT. */
const COMMANDS = [
  ['inspect', `${samples}apiproxy-leak/goroutine.debug2.txt`],
  ['inspect', `${samples}lock-pileup/goroutine.debug1.txt`, '--format', 'json'],
  ['inspect', `${samples}waitgroup-leak/goroutine.debug0.pb.gz`, '--format', 'markdown'],
];

/**
 * Writes the cache of the bundle `loader` (dist/cli/load.js) runs. A command that fails (a checkout
 * without samples/) leaves no cache, with a warning: the CLI then compiles the bundle at each start.
 */
export async function writeCodeCache(loader) {
  const { loadCli, CODE_CACHE } = await import(pathToFileURL(loader).href);
  rmSync(CODE_CACHE, { force: true });
  const { cli, script } = loadCli();
  const out = mkdtempSync(join(tmpdir(), 'leakscope-code-cache-'));
  const exitCode = process.exitCode;
  try {
    for (const [i, args] of COMMANDS.entries()) {
      await cli.runCli(['node', 'leakscope', ...args, '--output', join(out, `${i}.out`)]);
      if (process.exitCode !== 0) {
        console.warn(`cli-code-cache: \`leakscope ${args.join(' ')}\` exited ${process.exitCode}; no code cache written`);
        return;
      }
    }
  } finally {
    process.exitCode = exitCode;
    rmSync(out, { recursive: true, force: true });
  }
  writeFileSync(CODE_CACHE, script.createCachedData());
}
