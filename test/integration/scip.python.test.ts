import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Workspace } from '../../src/core/store/workspace.js';
import { EnrichmentPass, type EnrichReport } from '../../src/core/structural/enrichment/enrich.js';
import { StructuralIndexer } from '../../src/core/structural/index/indexer.js';
import { whatBreaks } from '../../src/core/structural/impact/whatBreaks.js';
import { resolveOneSymbol } from '../../src/core/structural/lookup.js';
import { scipIndexerResolver } from '../../src/core/structural/sources/scip/indexers.js';
import { openWorkspace } from '../../src/core/workspace.js';
import { REPO_ROOT, tempDir } from '../helpers/fixtures.js';

/*
 * scip-python (the real indexer, run by Tenure) on the Python part of
 * test/fixtures/data: a package whose `__init__` star-imports the module that
 * defines a name, read through a module alias (`capi.geos_intersection`, as
 * Django's GEOS code reads its prototypes). scip-python names the defining
 * module at such a site, not the name: that is the module's member of the
 * site's name, resolved, not a target outside the workspace.
 */

describe('scip-python on names a package re-exports (real indexer)', function () {
  this.timeout(300_000);
  let ws: Workspace;
  let root: string;
  let cleanup: () => void;
  let report: EnrichReport;

  before(async () => {
    const dir = tempDir('tenure-scip-py-');
    root = dir.root;
    cleanup = dir.cleanup;
    fs.cpSync(path.join(REPO_ROOT, 'test', 'fixtures', 'data', 'py'), path.join(root, 'py'), { recursive: true });
    ws = await openWorkspace(root);
    const indexer = await StructuralIndexer.create(ws);
    try {
      await indexer.indexAll();
    } finally {
      await indexer.dispose();
    }
    const scip = scipIndexerResolver('scip-python', root);
    try {
      report = await new EnrichmentPass(ws.db, [scip], { root, log: () => undefined }).run();
    } finally {
      await scip.dispose();
    }
  });
  after(async () => {
    await ws?.close();
    cleanup?.();
  });

  const uses = async (name: string) =>
    (await whatBreaks(ws.db, await resolveOneSymbol(ws.db, name, { root }), 1)).dependents.map((d) => `${d.symbol.qname} ${d.kind} ${d.tier} ${d.provenance.source}`).sort();

  it('a star-re-exported module variable read through a module alias is read, resolved by scip-python (not refuted as outside the workspace)', async () => {
    assert.equal(report.resolvers[0]!.state, 'complete', report.resolvers[0]!.message);
    assert.deepEqual(await uses('py.geo.prototypes.topology.geos_intersection'), ['py.geo.geometry.intersection read resolved scip:scip-python']);
    const refuted = await ws.db.all<{ name: string }>("SELECT r.name FROM refutations r JOIN files f ON f.id = r.file_id WHERE f.path = 'py/geo/geometry.py'");
    assert.deepEqual(refuted, []);
  });

  it('a named re-export is resolved too, and a private name a star import does not bind has no reader', async () => {
    // The package's `from .predicates import geos_contains` is its importer; the function reads it.
    assert.deepEqual(await uses('py.geo.prototypes.predicates.geos_contains'), ['py.geo.geometry.contains read resolved scip:scip-python', 'py.geo.prototypes import resolved scip:scip-python']);
    assert.deepEqual(await uses('py.geo.prototypes.topology._registry'), []);
  });

  it('module-level readers elsewhere keep their resolved edges', async () => {
    assert.deepEqual(await uses('py.policy.MAX_ATTEMPTS'), ['py.policy.Policy.__init__ read resolved scip:scip-python', 'py.policy.bump read resolved scip:scip-python']);
  });
});
