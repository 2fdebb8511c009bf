// node bench/excerpt-cost.mjs FILE: what excerpt detection (read/excerpt.ts) and program-module detection
// (analyze/modules.ts) cost on a large debug=2 dump: the whole read 3x with detection off and on,
// alternating, then each function timed alone. Whole-read medians are noisy on a shared machine.
import { readDump } from '../dist/read/index.js';
import { analyze, programModules } from '../dist/analyze/index.js';
import { excerptSigns } from '../dist/read/excerpt.js';
const f = process.argv[2];
const t = { on: [], off: [] };
let snap;
for (let i = 0; i < 3; i++) {
  for (const mode of ['off', 'on']) {
    const s = performance.now();
    const d = await readDump(f, mode === 'off' ? { excerpt: false } : {});
    t[mode].push(performance.now() - s);
    snap = d.snapshots[0];
  }
}
const med = (a) => [...a].sort((x, y) => x - y)[1];
console.log(`read ${f}: median ${med(t.off).toFixed(0)} ms with detection off, ${med(t.on).toFixed(0)} ms on (ratio ${(med(t.on) / med(t.off)).toFixed(3)}); context ${JSON.stringify(snap.context)}`);
let s = performance.now();
for (let i = 0; i < 20; i++) excerptSigns(snap, snap.context);
const sig = (performance.now() - s) / 20;
s = performance.now();
let pm;
for (let i = 0; i < 5; i++) pm = programModules(snap);
const mod = (performance.now() - s) / 5;
s = performance.now();
analyze(snap);
const an = performance.now() - s;
console.log(`excerptSigns ${sig.toFixed(3)} ms; programModules ${mod.toFixed(1)} ms (${JSON.stringify(pm)}); whole analyze ${an.toFixed(0)} ms; total goroutines ${snap.total}, groups ${snap.groups.length}`);
