/**
 * The report library: the renderer registry (registry.ts: format name → pure `(input, opts) =>
 * string`, each renderer loaded on first use; the HTML report lives in `html.ts`) and, for library
 * users, the renderers themselves.
 */
export { FORMATS, getPieceRenderer, getRenderer, isFormat, render, type FormatName, type PieceRenderer } from './registry.js';
export { renderGithub } from './github.js';
export { renderJson, writeJson } from './json.js';
export { renderJunit } from './junit.js';
export { renderMarkdown } from './markdown.js';
export { renderSarif } from './sarif.js';
export { renderTable } from './table.js';
export { evaluateGate, trendFindings, type GateFacts, type GateLimits } from './gate.js';
export { reportJsonSchema } from './json-schema.js';
export { JSON_SCHEMA_VERSION } from './json.js';
export { ANSI, PLAIN } from './table-kit.js';
export type * from './types.js';
