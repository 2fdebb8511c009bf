// Loaded with `node --import` by bench/run.mjs: reports the process's peak RSS on exit.
import { writeSync } from 'node:fs';

process.on('exit', () => {
  writeSync(2, `\nLEAKSCOPE_BENCH_MAXRSS_KB=${process.resourceUsage().maxRSS}\n`);
});
