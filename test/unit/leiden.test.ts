import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Graph from 'graphology';
import louvain from 'graphology-communities-louvain';
import {
  Random,
  csrFromEdges,
  csrFromGraphology,
  disconnectedCommunities,
  hierarchicalLeiden,
  induced,
  leiden,
  leidenCsr,
  modularity,
  type CsrGraph,
} from '../../src/core/knowledge/leiden';
import { REPO_ROOT } from '../helpers/fixtures';

interface Fixture {
  nodes: number;
  edges: [number, number, number][];
}

function fixture(name: string): Fixture {
  return JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'knowledge', 'graphs', `${name}.json`), 'utf8')) as Fixture;
}

function csr(f: Fixture): CsrGraph {
  return csrFromEdges(
    f.nodes,
    f.edges.map((e) => e[0]),
    f.edges.map((e) => e[1]),
    f.edges.map((e) => e[2]),
  );
}

function graphology(f: Fixture): Graph {
  const g = new Graph({ type: 'undirected' });
  for (let i = 0; i < f.nodes; i++) g.addNode(String(i));
  for (const [u, v, w] of f.edges) g.addEdge(String(u), String(v), { weight: w });
  return g;
}

/** Louvain's best over several seeds, measured with our modularity on the same graph. */
function louvainModularity(f: Fixture, seeds = 5): number {
  const g = graphology(f);
  const { csr: c, keys } = csrFromGraphology(g);
  let best = -1;
  for (let s = 0; s < seeds; s++) {
    const rng = new Random(1000 + s);
    const mapping = louvain(g, { getEdgeWeight: 'weight', rng: () => rng.next() });
    best = Math.max(best, modularity(c, keys.map((k) => mapping[k]!)));
  }
  return best;
}

/** Nodes whose community, up to renaming, is the same in both partitions (each community of `a` mapped to its most common counterpart in `b`). */
function agreement(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const counts = new Map<number, Map<number, number>>();
  for (let i = 0; i < a.length; i++) {
    const m = counts.get(a[i]!) ?? new Map<number, number>();
    m.set(b[i]!, (m.get(b[i]!) ?? 0) + 1);
    counts.set(a[i]!, m);
  }
  let same = 0;
  const used = new Set<number>();
  for (const m of counts.values()) {
    const [bc, n] = [...m.entries()].sort((x, y) => y[1] - x[1])[0]!;
    if (used.has(bc)) continue;
    used.add(bc);
    same += n;
  }
  return same;
}

const GRAPHS = ['karate', 'lesmis', 'lfr1k'];

describe('Leiden (our implementation on graphology)', () => {
  describe('modularity', () => {
    it('is 0 for one community and matches the hand computation on two triangles joined by an edge', () => {
      // Two triangles {0,1,2} {3,4,5} and the bridge 2–3: m = 7.
      const g = csrFromEdges(6, [0, 0, 1, 3, 3, 4, 2], [1, 2, 2, 4, 5, 5, 3]);
      assert.equal(g.totalWeight, 7);
      assert.ok(Math.abs(modularity(g, [0, 0, 0, 0, 0, 0])) < 1e-12);
      // Each side: 3 internal edges, strength 7 → Q = 2 × (3/7 − (7/14)²) = 5/14.
      assert.ok(Math.abs(modularity(g, [0, 0, 0, 1, 1, 1]) - 5 / 14) < 1e-12);
    });

    it('counts self-loops once in the weight and twice in the strength', () => {
      const g = csrFromEdges(2, [0, 0], [0, 1], [2, 1]);
      assert.equal(g.totalWeight, 3);
      assert.deepEqual([...g.strength], [5, 1]);
      // Everything in one community: Q = 3/3 − (6/6)² = 0.
      assert.ok(Math.abs(modularity(g, [0, 0])) < 1e-12);
    });

    it('sums parallel edges and both directions of an edge', () => {
      const g = csrFromEdges(3, [0, 1, 0, 1], [1, 0, 1, 2], [1, 2, 0.5, 1]);
      assert.equal(g.totalWeight, 4.5);
      const row0 = [...g.targets.subarray(g.offsets[0], g.offsets[1])];
      assert.deepEqual(row0, [1], 'one neighbour, edges merged');
      assert.equal(g.weights[g.offsets[0]!], 3.5);
    });
  });

  for (const name of GRAPHS) {
    describe(name, () => {
      const f = fixture(name);
      const g = csr(f);

      it('finds communities that are each connected', () => {
        for (const seed of [1, 2, 3]) {
          const r = leidenCsr(g, { seed });
          assert.deepEqual(disconnectedCommunities(g, r.membership), [], `seed ${seed}`);
          assert.ok(r.communities > 1);
        }
      });

      it("reaches at least Louvain's modularity (graphology-communities-louvain) less 0.002", () => {
        const ours = leidenCsr(g, { seed: 42 }).modularity;
        const theirs = louvainModularity(f);
        assert.ok(ours >= theirs - 0.002, `Leiden ${ours.toFixed(4)} < Louvain ${theirs.toFixed(4)} − 0.002`);
      });

      it('gives the same partition for the same seed, and a valid one for another', () => {
        const a = leidenCsr(g, { seed: 7 });
        const b = leidenCsr(g, { seed: 7 });
        assert.deepEqual([...a.membership], [...b.membership]);
        const c = leidenCsr(g, { seed: 8 });
        assert.deepEqual(disconnectedCommunities(g, c.membership), []);
        assert.ok(Math.abs(c.modularity - a.modularity) < 0.02, 'seeds change the partition, not its quality');
      });

      it('reports the modularity of the partition it returns, numbered by decreasing size', () => {
        const r = leidenCsr(g, { seed: 3 });
        assert.ok(Math.abs(r.modularity - modularity(g, r.membership)) < 1e-12);
        const sizes = new Array<number>(r.communities).fill(0);
        for (const c of r.membership) sizes[c]!++;
        for (let i = 1; i < sizes.length; i++) assert.ok(sizes[i - 1]! >= sizes[i]!, `community ${i} larger than ${i - 1}`);
      });
    });
  }

  it('known values: karate club 0.4198 and les misérables 0.5667 (the optimum leidenalg also finds)', () => {
    assert.ok(Math.abs(leidenCsr(csr(fixture('karate')), { seed: 42 }).modularity - 0.41979) < 0.0005);
    assert.ok(Math.abs(leidenCsr(csr(fixture('lesmis')), { seed: 42 }).modularity - 0.56669) < 0.0005);
  });

  it('a higher resolution gives more, smaller communities', () => {
    const g = csr(fixture('lesmis'));
    const low = leidenCsr(g, { seed: 1, resolution: 0.5 }).communities;
    const mid = leidenCsr(g, { seed: 1, resolution: 1 }).communities;
    const high = leidenCsr(g, { seed: 1, resolution: 2 }).communities;
    assert.ok(low < mid && mid < high, `${low} < ${mid} < ${high}`);
  });

  it('respects a maximum community size', () => {
    const g = csr(fixture('lfr1k'));
    const r = leidenCsr(g, { seed: 1, maxCommunitySize: 25 });
    const sizes = new Map<number, number>();
    for (const c of r.membership) sizes.set(c, (sizes.get(c) ?? 0) + 1);
    assert.ok(Math.max(...sizes.values()) <= 25, `largest ${Math.max(...sizes.values())}`);
    assert.deepEqual(disconnectedCommunities(g, r.membership), []);
  });

  it('greedy refinement (θ = 0) and iterating to convergence are both valid', () => {
    const g = csr(fixture('lfr1k'));
    const greedy = leidenCsr(g, { seed: 5, randomness: 0 });
    const converged = leidenCsr(g, { seed: 5, iterations: -1 });
    assert.deepEqual(disconnectedCommunities(g, greedy.membership), []);
    assert.ok(converged.modularity >= leidenCsr(g, { seed: 5, iterations: 1 }).modularity - 1e-9);
    assert.ok(converged.iterations >= 2);
  });

  it('warm-started from its own partition, it keeps it', () => {
    const g = csr(fixture('lfr1k'));
    const first = leidenCsr(g, { seed: 11 });
    const again = leidenCsr(g, { seed: 99, initialMembership: first.membership });
    const same = agreement(first.membership, again.membership);
    assert.ok(same / g.n > 0.95, `only ${same} of ${g.n} nodes kept their community`);
    assert.ok(again.modularity >= first.modularity - 1e-9);
  });

  it('handles isolated nodes, an empty graph and a graph with no edges', () => {
    assert.equal(leidenCsr(csrFromEdges(0, [], [])).communities, 0);
    const noEdges = leidenCsr(csrFromEdges(4, [], []));
    assert.equal(noEdges.communities, 4);
    const withIsolated = leidenCsr(csrFromEdges(5, [0, 1, 0], [1, 2, 2]), { seed: 1 });
    assert.notEqual(withIsolated.membership[3], withIsolated.membership[0]);
    assert.notEqual(withIsolated.membership[3], withIsolated.membership[4]);
  });

  it('runs on a graphology graph and maps communities back to node keys', () => {
    const g = new Graph({ type: 'undirected' });
    for (const k of ['a', 'b', 'c', 'x', 'y', 'z']) g.addNode(k);
    for (const [u, v] of [['a', 'b'], ['b', 'c'], ['a', 'c'], ['x', 'y'], ['y', 'z'], ['x', 'z'], ['c', 'x']] as const) g.addEdge(u, v);
    const r = leiden(g, { seed: 1 });
    const c = r.communitiesByNode;
    assert.equal(c.get('a'), c.get('b'));
    assert.equal(c.get('x'), c.get('z'));
    assert.notEqual(c.get('a'), c.get('x'));
  });

  describe('hierarchical (GraphRAG: max cluster size with recursion)', () => {
    const g = csr(fixture('lfr1k'));
    const communities = hierarchicalLeiden(g, { seed: 0xdeadbeef, maxClusterSize: 40 });

    it('partitions every level it covers, children inside their parent', () => {
      const byId = new Map(communities.map((c) => [c.id, c]));
      const level0 = communities.filter((c) => c.level === 0);
      assert.equal(level0.reduce((n, c) => n + c.nodes.length, 0), g.n);
      for (const c of communities.filter((x) => x.parent >= 0)) {
        const parent = byId.get(c.parent)!;
        assert.equal(parent.level, c.level - 1);
        const inParent = new Set(parent.nodes);
        assert.ok(c.nodes.every((n) => inParent.has(n)));
        const siblings = communities.filter((x) => x.parent === c.parent);
        assert.equal(siblings.reduce((n, s) => n + s.nodes.length, 0), parent.nodes.length, 'children cover the parent');
      }
    });

    it('splits every community larger than the maximum, unless Leiden cannot split it', () => {
      for (const c of communities) {
        if (c.nodes.length <= 40) continue;
        const children = communities.filter((x) => x.parent === c.id);
        if (children.length) continue;
        const r = leidenCsr(induced(g, c.nodes), { seed: 1 });
        assert.equal(r.communities, 1, `community ${c.id} (${c.nodes.length} nodes) has no children but can be split`);
      }
      assert.ok(communities.some((c) => c.level > 0), 'some community was split');
    });

    it('is deterministic', () => {
      const again = hierarchicalLeiden(g, { seed: 0xdeadbeef, maxClusterSize: 40 });
      assert.deepEqual(
        again.map((c) => [c.level, c.parent, c.nodes.join(',')]),
        communities.map((c) => [c.level, c.parent, c.nodes.join(',')]),
      );
    });
  });
});
