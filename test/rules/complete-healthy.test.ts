/**
 * samples/complete-healthy: complete SIGQUIT dumps of healthy programs that once drew false warnings: a
 * pool of workers started together by one constructor, woken now and then, so their receive waits range
 * from a minute to the process's uptime; and a client whose readLoops wait for streaming response
 * bodies that its goroutines are reading. No warning, and each is still named (info) for what it is.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SAMPLES } from '../helpers/paths.js';
import { findingsOf, summary } from './e2e.js';

const ROOT = join(SAMPLES, 'complete-healthy');
const INFO: Record<string, RegExp> = {
  'idle-pool-constructor': /^Idle loops: 12 goroutines wait for work/,
  'watch-stream-clients': /^25 HTTP client connections stream response bodies/,
};

describe('samples/complete-healthy: no warning on complete dumps of healthy programs', () => {
  for (const name of Object.keys(INFO)) {
    for (const go of ['go1.19', 'go1.23']) {
      const file = join(ROOT, name, go, 'sigquit.txt');
      it.skipIf(!existsSync(file))(`${name}/${go}`, async () => {
        const fs = (await findingsOf(file)).flat();
        expect(fs.filter((f) => f.severity !== 'info'), summary(fs)).toEqual([]);
        expect(fs.some((f) => INFO[name].test(f.title)), summary(fs)).toBe(true);
      });
    }
  }
  it('holds both programs and their dumps', () => {
    expect(readdirSync(ROOT).filter((d) => d in INFO).sort()).toEqual(Object.keys(INFO).sort());
  });
});
