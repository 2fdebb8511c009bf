// Injected by scripts/bundle-cli.mjs into the bundle: bundled CommonJS (commander) loads Node's own
// modules through this, an ES module having no `require` of its own.
import { createRequire } from 'node:module';

export const __leakscopeNodeRequire = createRequire(import.meta.url);
