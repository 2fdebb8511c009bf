#!/usr/bin/env node
// Part of `npm run build`: validate the built-in rule packs (rules/*.yaml, the source of truth) with
// the same schema as user rules, and write them as JSON beside the compiled engine
// (dist/rules/builtin-packs.json), so that a run without a user config loads neither yaml nor ajv.
import { writeFileSync } from 'node:fs';
import { BUILTIN_PACKS, parseBuiltinPackSource } from '../dist/rules/packs.js';

const packs = Object.fromEntries(BUILTIN_PACKS.map((name) => [name, parseBuiltinPackSource(name)]));
writeFileSync(new URL('../dist/rules/builtin-packs.json', import.meta.url), `${JSON.stringify(packs)}\n`);
