/**
 * A support bundle packed like a collector packs one (a tgz of `<pod>-goroutine-<time>` files) from
 * real snapshots: a leaking pod (samples/soak-leak, 4 snapshots: growing), a healthy pod over its
 * warm-up (samples/soak-healthy's first 4: rising-inconclusive, so suspect) and the healthy pod on flat
 * load (4 later snapshots: stable, healthy).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { SAMPLES } from '../helpers/paths.js';

const series = (c: string) => readdirSync(join(SAMPLES, c, 'series')).sort().map((f) => join(SAMPLES, c, 'series', f));

export const FLEET_PODS: Readonly<Record<string, readonly string[]>> = {
  'quotes-7d9f8b6c4-leak1': series('soak-leak').slice(0, 4),
  'quotes-7d9f8b6c4-warm1': series('soak-healthy').slice(0, 4),
  'quotes-7d9f8b6c4-flat1': series('soak-healthy').slice(5, 9),
};

/** Writes `<tmp>/bundle.tgz` and returns its path. */
export function packFleet(tmp: string): string {
  const dir = join(tmp, 'bundle');
  mkdirSync(dir);
  for (const [pod, files] of Object.entries(FLEET_PODS)) {
    files.forEach((f, i) => copyFileSync(f, join(dir, `${pod}-goroutine-2026-11-30T07_3${i}_00`)));
  }
  const bundle = join(tmp, 'bundle.tgz');
  execFileSync('tar', ['czf', bundle, '-C', dir, '.']);
  return bundle;
}
