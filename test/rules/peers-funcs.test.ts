/**
 * `peerWrites` and `grpcConnections` given the dump's functions (`stackFuncs`) skip the groups when
 * no function can match: the result must be what the pass over every group gives, on dumps with
 * peer writes and gRPC (the real servers) and without (every other sample).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze, grpcConnections, peerWrites } from '../../src/index.js';
import { stackFuncs } from '../../src/rules/frames.js';
import { SAMPLES, filesUnder } from '../helpers/paths.js';
import { snapshotsOf } from '../helpers/snapshots.js';

/** Dump files under `dir` (text and protobuf), recursively. */

describe('peer writes and gRPC connections with the dump\'s functions', () => {
  it('equal the pass over every group', async () => {
    const dumps = /\.(txt|pb\.gz)$/;
    const files = ['servers', 'apiproxy-leak', 'blocked-receive'].flatMap((d) => filesUnder(join(SAMPLES, d), dumps));
    let withWrites = 0;
    let withGrpc = 0;
    let without = 0;
    for await (const { snapshot: s } of snapshotsOf(files)) {
      const a = analyze(s);
      const funcs = stackFuncs(a);
      const pw = peerWrites(a);
      expect(peerWrites(a, funcs)).toEqual(pw);
      const c = grpcConnections(a);
      expect(grpcConnections(a, funcs)).toEqual(c);
      if (pw.groups.length) withWrites++;
      if (c.clientGroups.length || c.serverConns) withGrpc++;
      if (!pw.groups.length && !c.clientGroups.length && !c.serverConns) without++;
    }
    expect(withWrites).toBeGreaterThan(3);
    expect(withGrpc).toBeGreaterThan(1);
    expect(without).toBeGreaterThan(3);
  });
});
