/**
 * LinkGraph reads the groups of an analysis's links from `correlate` (`linkedGroups`) instead of
 * finding them by the id of every group. On every sample and corpus dump, the groups must be those
 * the links' ids name, and the graph the one built from ids (links `correlate` did not make: a copy).
 */
import { describe, expect, it } from 'vitest';
import { analyze, linkedGroups } from '../../src/analyze/index.js';
import { LinkGraph } from '../../src/rules/links.js';
import { sampleAndCorpusDumps } from '../helpers/paths.js';
import { snapshotsOf } from '../helpers/snapshots.js';

describe('LinkGraph from the groups correlate linked', () => {
  it('links the groups the ids name, as the graph built by id does', async () => {
    let linked = 0;
    for await (const { snapshot: s } of snapshotsOf(sampleAndCorpusDumps())) {
      const a = analyze(s);
      const ends = linkedGroups(a.links, a.groups);
      expect(ends).toBeDefined();
      expect(linkedGroups([...a.links], a.groups)).toBeUndefined();
      expect(linkedGroups(a.links, [...a.groups])).toBeUndefined();
      expect(ends!.children.map((g) => g.id)).toEqual(a.links.map((l) => l.child));
      expect(ends!.parents.map((g) => g.id)).toEqual(a.links.map((l) => l.parent));
      for (const g of [...ends!.children, ...ends!.parents]) expect(a.groups).toContain(g);
      if (a.links.length === 0) continue;
      linked++;
      const fast = new LinkGraph(a);
      const byId = new LinkGraph({ ...a, links: [...a.links] });
      const edges = (graph: LinkGraph) => a.groups.map((g) => [graph.parentsOf(g), graph.childrenOf(g)]);
      expect(edges(fast)).toEqual(edges(byId));
    }
    expect(linked).toBeGreaterThan(10);
  });
});
