/** The snapshots of real dumps, for tests that check something on every dump they can read. */
import type { Snapshot } from '../../src/model/dump.js';
import { readDump } from '../../src/read/index.js';

/** Each snapshot of each file of `paths`, in order, with its file; a file that cannot be read gives none. */
export async function* snapshotsOf(paths: Iterable<string>): AsyncGenerator<{ path: string; snapshot: Snapshot }> {
  for (const path of paths) {
    const dump = await readDump(path).catch(() => undefined);
    for (const snapshot of dump?.snapshots ?? []) yield { path, snapshot };
  }
}
