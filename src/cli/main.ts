#!/usr/bin/env node
/**
 * The `leakscope` binary as tsc compiles it. `npm run build` writes dist/cli/main.js over it with the
 * loader of the one-file bundle of program.ts and its V8 code cache (scripts/bundle-cli.mjs).
 */
import { runCli } from './program.js';

await runCli(process.argv);
