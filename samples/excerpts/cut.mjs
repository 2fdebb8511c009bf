#!/usr/bin/env node
/**
 * Cuts excerpts the way people paste them into bug reports, from the real dumps of samples/deadlocks
 * and samples/module-bugs (Go 1.19 and 1.23 test timeouts and SIGQUIT dumps), and writes them with excerpts.json (the expectations) beside this
 * script. Re-runnable: when the source dumps are regenerated, run `node samples/excerpts/cut.mjs` again.
 *
 * Per buggy case and dump, the stuck goroutines (those whose stack passes through a stuck site of the
 * case's expected.json) and their victims (consequence sites), in these shapes:
 *   one        the first stuck goroutine alone, no header
 *   stuck      every stuck goroutine, no header
 *   headed     the dump's own header (`panic: test timed out…`, `SIGQUIT: quit`…) then the stuck goroutines
 *   midstack   the stuck goroutines, the first without its `goroutine N [state]:` line and innermost call
 *   elided     stuck goroutines and victims with a `...` line between them and after the last
 *   five       up to 5 goroutines: stuck, victims, then others of the program
 * Per healthy case: the goroutines the program started that idle (select, receive, accept: workers,
 * ticker loops, accept loops), as one, two and five.
 *
 * The excerpts are not tuned to the rules: the shapes are fixed and every case gets each shape.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
/** Where the dumps come from: our deadlock programs, and programs built inside real projects' packages. */
const SOURCES = ['deadlocks', 'module-bugs'];

/** Goroutine blocks of a dump (header line through its `created by` file line), and the text before the first. */
function blocks(text) {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const out = [];
  const head = [];
  let cur;
  for (const l of lines) {
    if (/^goroutine \d+ \[/.test(l)) {
      cur = { id: Number(/^goroutine (\d+)/.exec(l)[1]), lines: [l] };
      out.push(cur);
    } else if (cur) {
      if (l === '' || /^(FAIL|ok|exit status|\S+:\s)/.test(l) && !l.startsWith('\t')) cur = undefined;
      else cur.lines.push(l);
    } else if (out.length === 0) head.push(l);
  }
  // The header a person copies: the crash line and its preamble up to the first blank line.
  const start = head.findIndex((l) => /^(panic: |fatal error: |SIGQUIT: |SIGABRT: )/.test(l));
  const header = [];
  if (start >= 0) for (let i = start; i < head.length && head[i] !== ''; i++) header.push(head[i]);
  return { header, goroutines: out };
}

/** The block passes through `site` (a `func(` call line followed by a `…/file:line` file line). */
function passes(b, site) {
  for (let i = 0; i + 1 < b.lines.length; i++) {
    if (b.lines[i].startsWith(`${site.function}(`) && new RegExp(`/${site.file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${site.line}\\b`).test(b.lines[i + 1])) return true;
  }
  return false;
}

/** A goroutine of the program: some frame of its module (`example.com/…` for samples/deadlocks). */
function programs(b, module = 'example.com/') {
  return b.lines.some((l) => l.startsWith(module));
}

/** Without its header, and without its innermost call when frames of the stack remain after it. */
function midstack(b) {
  const frames = b.lines.slice(1).filter((l) => !l.startsWith('\t') && !l.startsWith('created by ')).length;
  return b.lines.slice(frames > 2 ? 3 : 1);
}

const dumpsOf = (c) => c.files.filter((f) => f.kind === 'test-timeout' || f.kind === 'sigquit');

const shapes = {
  one: (h, s) => s.slice(0, 1).map((b) => b.lines.join('\n')).join('\n\n'),
  stuck: (h, s) => s.map((b) => b.lines.join('\n')).join('\n\n'),
  headed: (h, s) => [...(h.length ? [h.join('\n')] : []), ...s.map((b) => b.lines.join('\n'))].join('\n\n'),
  midstack: (h, s) => [midstack(s[0]).join('\n'), ...s.slice(1).map((b) => b.lines.join('\n'))].join('\n\n'),
  elided: (h, s, v) => [...s, ...v].map((b) => b.lines.join('\n')).join('\n\n...\n\n') + '\n\n...',
  five: (h, s, v, o) => [...s, ...v, ...o].slice(0, 5).map((b) => b.lines.join('\n')).join('\n\n'),
};

const expected = { schema: 'leakscope-excerpts/v1', excerpts: [] };
for (const d of readdirSync(HERE)) if (/^go1\.\d+$/.test(d)) rmSync(join(HERE, d), { recursive: true });
for (const source of SOURCES) {
const FROM = join(HERE, '..', source);
for (const name of readdirSync(FROM).sort()) {
  const ej = join(FROM, name, 'expected.json');
  if (!existsSync(ej)) continue;
  const c = JSON.parse(readFileSync(ej, 'utf8'));
  for (const f of dumpsOf(c)) {
    const src = join(FROM, name, f.path);
    if (!existsSync(src)) continue;
    const { header, goroutines } = blocks(readFileSync(src, 'utf8'));
    const go = f.path.split('/')[0];
    const kind = f.path.split('/')[1].replace(/\.txt$/, '');
    const write = (shape, text, meta) => {
      const rel = join(go, `${name}.${kind}.${shape}.txt`);
      mkdirSync(join(HERE, go), { recursive: true });
      writeFileSync(join(HERE, rel), `${text}\n`);
      expected.excerpts.push({ path: rel, from: `${source}/${name}/${f.path}`, shape, ...meta });
    };
    if (c.verdict === 'healthy') {
      // What a person pastes to show a healthy process at rest: its idle workers, ticker loops and
      // accept loops (goroutines the program started), not the main or test goroutine waiting for them.
      const idle = /\[(select|chan receive|IO wait)[\],]/;
      const parked = goroutines.filter((b) => programs(b, c.module) && idle.test(b.lines[0]) && !/^created by testing\./m.test(b.lines.join('\n')) && b.id !== 1);
      if (parked.length === 0) continue;
      write('one', shapes.one(header, parked), { verdict: 'healthy' });
      if (parked.length >= 2) write('two', shapes.stuck(header, parked.slice(0, 2)), { verdict: 'healthy' });
      if (parked.length >= 5) write('five', shapes.stuck(header, parked.slice(0, 5)), { verdict: 'healthy' });
      continue;
    }
    // People paste a handful: the first goroutine through each stuck site, the first through each victim site.
    const firstThrough = (sites, not) => [...new Set(sites.map((s) => goroutines.find((b) => !not.includes(b) && passes(b, s))).filter(Boolean))];
    const stuck = firstThrough(c.stuck, []).slice(0, 5);
    if (stuck.length === 0) continue;
    const victims = firstThrough(c.consequences ?? [], stuck).slice(0, 3);
    const others = goroutines.filter((b) => !stuck.includes(b) && !victims.includes(b) && programs(b, c.module));
    const sites = c.stuck.map((s) => ({ function: s.function, line: s.line }));
    for (const [shape, cut] of Object.entries(shapes)) {
      if (shape === 'stuck' && stuck.length === 1) continue; // the same as `one`
      if (shape === 'headed' && header.length === 0) continue;
      // The goroutines an excerpt of this shape keeps: a site counts when one of them passes through it.
      const kept = shape === 'one' ? stuck.slice(0, 1) : stuck;
      const named = sites.filter((s) => kept.some((b) => passes(b, c.stuck.find((x) => x.function === s.function && x.line === s.line))));
      write(shape, cut(header, stuck, victims, others), { verdict: c.verdict, taxonomy: c.taxonomy, stuck: named });
    }
  }
}
}
writeFileSync(join(HERE, 'excerpts.json'), `${JSON.stringify(expected, null, 2)}\n`);
console.log(`${expected.excerpts.length} excerpts written under ${HERE}`);
