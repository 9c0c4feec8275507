import * as assert from 'node:assert/strict';
import { compare, referenceAvailable } from '../../bench/leiden';
import { median } from '../../bench/stats';
import { skipUnless } from '../helpers/prereq';

/*
 * Our Leiden beside the reference implementation (Debian's python3-leidenalg,
 * C++), on the same graphs: modularity within 0.005 (or better), every
 * community connected, and — on the 10k-node LFR graph, large enough to time —
 * no slower than 3× the reference. Skipped, saying why, where leidenalg is not
 * installed.
 */
describe('Leiden beside python3-leidenalg (the reference)', function () {
  this.timeout(300_000);

  before(function () {
    const r = referenceAvailable();
    skipUnless(this, r);
  });

  for (const graph of ['karate', 'lesmis', 'lfr1k', 'lfr10k']) {
    it(`${graph}: modularity within 0.005 of leidenalg, communities connected`, () => {
      const c = compare(graph, { repeat: 3 });
      assert.equal(c.ours.disconnected, 0);
      assert.ok(c.delta >= -0.005, `ours ${c.ours.modularity.toFixed(4)} vs leidenalg ${c.referenceModularity.toFixed(4)} (Δ ${c.delta.toFixed(4)})`);
      // Our modularity function agrees with igraph's on the reference's own partition.
      assert.ok(Math.abs(c.referenceModularity - c.reference.modularity) < 1e-9, `${c.referenceModularity} vs igraph ${c.reference.modularity}`);
      if (graph === 'lfr10k') {
        assert.ok(median(c.ours.ms) <= 3 * median(c.reference.ms), `ours ${median(c.ours.ms).toFixed(0)} ms vs leidenalg ${median(c.reference.ms).toFixed(0)} ms`);
      }
    });
  }
});
