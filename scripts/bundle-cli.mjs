#!/usr/bin/env node
// Part of `npm run build`, after tsc: bundle the command line (dist/cli/program.js and everything it
// imports but a few packages, below) into ONE CommonJS file, dist/cli/leakscope.cjs, and write over
// dist/cli/main.js (the `bin`) a loader that runs it from V8's code cache: dist/cli/leakscope.cjs.cache,
// made at the end of this script by running a few commands on bundled samples (cli-code-cache.mjs).
//
// Why: a start of the CLI parsed and compiled ~400 KB of its own code before reading a byte of a dump,
// 50-60 ms of every run (--log-function-events), a third of an `inspect` of a small dump. Node 20 has
// no compile cache for ES modules (module.enableCompileCache is Node 22), but `vm.Script` takes V8's
// code cache of a script, and one file is one script. A cache this Node does not accept (another Node
// version, other V8 flags, a changed bundle) is ignored by V8, and the bundle is compiled as usual.
//
// Bundled code keeps the meaning of `import.meta.url` of the file it came from: every use is
// rewritten to the file URL of that file, found from the bundle's own folder (packs.ts finds
// builtin-packs.json, emit.ts package.json, parallel.ts starts its workers on the unbundled
// dist/read/worker.js beside dist/read/parallel.js).
// Packages that find files next to their own code (web-tree-sitter's wasm) or are loaded with
// createRequire stay external; they are loaded with the bundle's `require` (web-tree-sitter through its
// CommonJS build).
import { build } from 'esbuild';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist/cli`;

/** `text` of the bundled file `path` with each `import.meta.url` as the file URL of that file. */
function withFileUrls(text, path) {
  const rel = relative(outdir, path).split(sep).join('/');
  return text.replaceAll('import.meta.url', `__leakscopeFileUrl(${JSON.stringify(rel)})`);
}

/** `import.meta.url` of each bundled module (ours in dist/, and packages'), as the file URL of its own file. */
const keepImportMetaUrl = {
  name: 'keep-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.m?js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      return { contents: withFileUrls(text, args.path), loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

/**
 * Our own modules a command loads with `import()` (the actions, the renderers, the parallel reader,
 * --source), imported statically in the bundle. In a CommonJS bundle a module reached by `import()`
 * (and all it imports) is wrapped to run when first asked for, and its top-level `const`s become
 * `var`s assigned then: V8's optimizing compiler takes a `const` of the module scope as a constant, a
 * `var` as a slot to load and check at each use, in the hottest loops of the reader. With the code
 * cache a lazy module no longer saves its parse, only its few top-level statements; packages that are
 * costly to load (tree-sitter, the archive readers, the glob walker) stay behind `import()`.
 */
const staticOwnImports = {
  name: 'static-own-imports',
  setup(b) {
    b.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, async (args) => {
      if (!args.path.startsWith(`${root}dist`)) return undefined; // a package's own dist/
      const text = await readFile(args.path, 'utf8');
      let n = 0;
      const imports = [];
      const body = text.replace(/\bimport\((['"])(\.{1,2}\/[^'"]+\.js)\1\)/g, (_, q, spec) => {
        const name = `__leakscopeStatic${n++}`;
        imports.push(`import * as ${name} from ${JSON.stringify(spec)};`);
        return `Promise.resolve(${name})`;
      });
      if (n === 0) return undefined;
      return { contents: withFileUrls(`${imports.join('\n')}\n${body}`, args.path), loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

// Bundles of an earlier build: ES module chunks (their names carry a content hash), or the one file.
for (const f of readdirSync(outdir)) if (/-[A-Z0-9]{8}\.js(\.map)?$/.test(f) || f.startsWith('leakscope.cjs')) rmSync(`${outdir}/${f}`);

/**
 * commander loads node:child_process only to run `git-style` executable subcommands (leakscope has
 * none), and it costs a start ~5 ms with the net, dgram… modules it pulls in: it gets a stand-in that
 * loads it on first use.
 */
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      args.kind === 'require-call' && args.namespace !== 'lazy-child-process' ? { path: 'node:child_process', namespace: 'lazy-child-process' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-child-process' }, () => ({
      contents: 'let m;\nmodule.exports = new Proxy({}, { get: (_, k) => (m ??= require("node:child_process"))[k] });\n',
      loader: 'js',
    }));
  },
};

/**
 * fdir (tinyglobby's folder walker) loads picomatch from node_modules when its module is evaluated, for
 * its own `glob()`, which tinyglobby never calls (it filters with its own bundled picomatch): five
 * CommonJS files resolved, read and compiled at every start of a command, 4-10 ms of an `inspect`.
 * Loaded on the first `glob()` instead. If fdir's text changes, it is bundled as it is, with a warning.
 */
const EAGER_PICOMATCH = `let pm = null;
/* c8 ignore next 6 */
try {
	__require.resolve("picomatch");
	pm = __require("picomatch");
} catch {}`;
const LAZY_PICOMATCH = `let pm = null;
let pmTried = false;
function picomatchOnce() {
	if (!pmTried) {
		pmTried = true;
		try {
			__require.resolve("picomatch");
			pm = __require("picomatch");
		} catch {}
	}
	return pm;
}`;
const lazyPicomatch = {
  name: 'lazy-picomatch',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]fdir[\\/]dist[\\/]index\.mjs$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      const use = 'const globFn = this.globFunction || pm;';
      if (!text.includes(EAGER_PICOMATCH) || !text.includes(use)) {
        console.warn(`bundle-cli: ${args.path} no longer loads picomatch as expected; bundled unchanged`);
        return undefined;
      }
      const lazy = text.replace(EAGER_PICOMATCH, LAZY_PICOMATCH).replace(use, 'const globFn = this.globFunction || picomatchOnce();');
      return { contents: withFileUrls(lazy, args.path), loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

// `__leakscopeDirUrl` is the file URL of the bundle's folder, given by the wrapper (load.js): resolving
// against it costs a `new URL`, where the first pathToFileURL of a process cost 4-14 ms.
const BANNER = `// leakscope CLI bundle (scripts/bundle-cli.mjs)
const __leakscopeFileUrl = (rel) => new URL(rel, __leakscopeDirUrl).href;`;
await build({
  entryPoints: [`${outdir}/program.js`],
  outfile: `${outdir}/leakscope.cjs`,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // `import()` of bundled modules and of Node's own becomes `require` inside the one script: a
  // vm.Script has no module loader of its own for `import()` before Node 20.12.
  supported: { 'dynamic-import': false },
  // commander and pprof-format are bundled; these find files beside themselves or load lazily.
  external: ['web-tree-sitter', 'tree-sitter-go', 'cli-table3', 'ajv', 'yaml'],
  sourcemap: true,
  // Whitespace and syntax minified, names kept (no identifier renaming; the source map maps back):
  // a smaller text is a smaller source to hash and a smaller cache to read.
  minifyWhitespace: true,
  minifySyntax: true,
  banner: { js: BANNER },
  // lazyPicomatch and staticOwnImports before keepImportMetaUrl: they rewrite `import.meta.url` too.
  plugins: [lazyPicomatch, staticOwnImports, keepImportMetaUrl, lazyChildProcess],
  logLevel: 'warning',
});
// esbuild turns an `import.meta` left in CommonJS output into an empty object (`import_meta = {}`),
// whose `url` is undefined at run time: a module that uses it another way must fail the build.
if (/\bimport_meta\d*\s*=\s*\{\}/.test(readFileSync(`${outdir}/leakscope.cjs`, 'utf8'))) {
  console.error('bundle-cli: dist/cli/leakscope.cjs has an import.meta without its file (import_meta = {})');
  process.exit(1);
}

writeFileSync(`${outdir}/load.js`, `// leakscope CLI loader (scripts/bundle-cli.mjs): the one-file bundle of the command line, run from
// V8's code cache of it when this Node accepts the cache, compiled from its text when not.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';

// V8 checks a code cache's versions, flags and length, but its checksum only with this flag: without
// it a damaged cache file crashes the process. Set in every process that makes or reads the cache (the
// flags are part of what a cache must match).
setFlagsFromString('--verify-snapshot-checksum');

export const BUNDLE = fileURLToPath(new URL('./leakscope.cjs', import.meta.url));
export const CODE_CACHE = \`\${BUNDLE}.cache\`;

/** The bundle's exports (runCli …) and its script (createCachedData), run as a CommonJS module is. */
export function loadCli() {
  const source = readFileSync(BUNDLE, 'utf8');
  let cachedData;
  try {
    cachedData = readFileSync(CODE_CACHE);
  } catch {
    // No cache (a build that made none): compiled from the text.
  }
  const script = new Script(\`(function (exports, require, module, __filename, __dirname, __leakscopeDirUrl) {\${source}\\n})\`, { filename: BUNDLE, cachedData });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(BUNDLE), module, BUNDLE, dirname(BUNDLE), new URL('./', import.meta.url).href);
  return { cli: module.exports, script, cached: cachedData !== undefined && !script.cachedDataRejected };
}
`);

writeFileSync(`${outdir}/main.js`, `#!/usr/bin/env node
// leakscope CLI (scripts/bundle-cli.mjs): the bundle of dist/cli/program.js, through load.js.
import { loadCli } from './load.js';

await loadCli().cli.runCli(process.argv);
`);

// The code cache: V8's compiled code of what a few commands ran, written by this Node.
const { writeCodeCache } = await import(pathToFileURL(`${root}scripts/cli-code-cache.mjs`).href);
await writeCodeCache(`${outdir}/load.js`);
