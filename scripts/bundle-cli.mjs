#!/usr/bin/env node
// Part of `npm run build`, after tsc: bundle the CLI (dist/cli/main.js, the `bin`) and what it imports
// into a few files, written over dist/cli/main.js with its lazy parts (the commands' actions,
// renderers, --source, the parallel reader) as chunks beside it. Resolving and linking ~80 small ES modules cost a start of
// the CLI more than all its parsing and analysis of a 1 MB dump; one file does not. The library
// (dist/index.js and the rest of dist/) stays as tsc wrote it.
//
// Bundled code keeps the meaning of `import.meta.url` of the file it came from: every use is
// rewritten to the URL of that file, relative to the chunk (packs.ts finds builtin-packs.json,
// emit.ts package.json, parallel.ts starts its workers on the unbundled dist/read/worker.js beside
// dist/read/parallel.js).
// Packages that find files next to their own code (web-tree-sitter's wasm) or are loaded with
// createRequire stay external.
import { build } from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { readFile } from 'node:fs/promises';
import { dirname, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist/cli`;

/** `import.meta.url` of each bundled dist/ module, as the URL of that module's own file. */
const keepImportMetaUrl = {
  name: 'keep-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const rel = relative(outdir, args.path).split(sep).join('/');
      const url = `new URL(${JSON.stringify(rel.startsWith('.') ? rel : `./${rel}`)}, import.meta.url).href`;
      return { contents: text.replaceAll('import.meta.url', url), loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

const BANNER = '// leakscope CLI bundle (scripts/bundle-cli.mjs)';
const entry = `${outdir}/main.js`;
if ((await readFile(entry, 'utf8')).includes(BANNER)) {
  // Already bundled: the input is what tsc writes, so run tsc (npm run build) again first.
  console.error('bundle-cli: dist/cli/main.js is already the bundle; run tsc first to bundle again');
  process.exit(0);
}

// Chunks of an earlier build (their names carry a content hash).
for (const f of readdirSync(outdir)) if (/-[A-Z0-9]{8}\.js(\.map)?$/.test(f)) rmSync(`${outdir}/${f}`);

/**
 * `require` of Node's own modules in bundled CommonJS (commander), for an ES module bundle: through
 * createRequire (bundle-require-shim.mjs). node:child_process, which commander loads only to run
 * `git-style` executable subcommands (leakscope has none) and which costs a start ~5 ms with the net,
 * dgram… modules it pulls in, gets a stand-in that loads it on first use.
 */
const nodeRequire = {
  name: 'node-require',
  setup(b) {
    b.onResolve({ filter: /^(node:)?[a-z_/]+$/ }, (args) =>
      args.kind === 'require-call' && builtinModules.includes(args.path.replace(/^node:/, ''))
        ? { path: `node:${args.path.replace(/^node:/, '')}`, namespace: 'node-require' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'node-require' }, (args) => ({
      contents:
        args.path === 'node:child_process'
          ? `let m;\nmodule.exports = new Proxy({}, { get: (_, k) => (m ??= __leakscopeNodeRequire(${JSON.stringify(args.path)}))[k] });\n`
          : `module.exports = __leakscopeNodeRequire(${JSON.stringify(args.path)});\n`,
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
      return { contents: text.replace(EAGER_PICOMATCH, LAZY_PICOMATCH).replace(use, 'const globFn = this.globFunction || picomatchOnce();'), loader: 'js' };
    });
  },
};

await build({
  entryPoints: { main: entry },
  outdir,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // commander and pprof-format are bundled; these find files beside themselves or load lazily.
  external: ['web-tree-sitter', 'tree-sitter-go', 'cli-table3', 'ajv', 'yaml'],
  // Chunks beside main.js: the rewritten `import.meta.url` paths are relative to dist/cli/.
  chunkNames: '[name]-[hash]',
  sourcemap: true,
  // Whitespace and syntax minified, names kept (no identifier renaming; the source map maps back):
  // a run parses every chunk it loads, and with the commands' actions lazy (src/cli/actions.ts) the
  // smaller text keeps a small `inspect` as cheap as one large file was (callgrind: 842-849 M
  // instructions against 837-845 M) while `--version` parses a sixth of it (583 M against 727 M).
  minifyWhitespace: true,
  minifySyntax: true,
  banner: { js: BANNER },
  inject: [`${root}scripts/bundle-require-shim.mjs`],
  plugins: [keepImportMetaUrl, nodeRequire, lazyPicomatch],
  logLevel: 'warning',
});
