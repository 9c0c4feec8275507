import * as assert from 'node:assert/strict';
import { indexKnowledge } from '../../src/core/knowledge/pipeline';
import { whyIsThis } from '../../src/core/knowledge/why';
import type { Workspace } from '../../src/core/store/workspace';
import { resolveOneSymbol } from '../../src/core/structural/lookup';
import { openWorkspace } from '../../src/core/workspace';
import { indexStructure } from '../helpers/example';
import { tempDir, write } from '../helpers/fixtures';
import { gitRepo } from '../helpers/prereq';

/*
 * A design document that never names the code it designed: the commit that
 * wrote the code says, in its subject, what the document's title says
 * ("Add ingesters shuffle sharding support on the read path" for "Shuffle
 * sharding on the read path"). why_is_this reaches the document through
 * that commit, weak, and quotes its reason; a function written by a commit
 * about something else does not reach it. Real git, a real repository.
 */
describe('why_is_this: the design document a commit that wrote the code carries out', function () {
  this.timeout(120_000);
  let d: { root: string; cleanup: () => void };
  let ws: Workspace;
  let sha = '';

  before(async function () {
    d = tempDir('tenure-why-change-');
    const git = gitRepo(this, d.root);
    write(
      d.root,
      'docs/design/shuffle-sharding-on-the-read-path.md',
      [
        '# Shuffle sharding on the read path',
        '',
        '## Context',
        '',
        'Each tenant writes to a few ingesters only, chosen from the whole set.',
        '',
        '## Decision',
        '',
        "A querier must keep asking every ingester that held a tenant's series during the last block flush interval, because a smaller set would miss samples not yet flushed to storage.",
        '',
      ].join('\n'),
    );
    write(d.root, 'docs/design/zone-awareness.md', ['# Zone awareness', '', '## Decision', '', 'Replicas are spread over zones, because losing one zone must not lose a write.', ''].join('\n'));
    git('add', '-A');
    git('commit', '-qm', 'Write down the designs for the querier and the replicas');
    write(d.root, 'pkg/ring/subset.go', ['package ring', '', 'func RingSubsetFor(tenant string, size int) []string {', '\tout := make([]string, 0, size)', '\treturn out', '}', ''].join('\n'));
    git('add', '-A');
    git('commit', '-qm', 'Add ingesters shuffle sharding support on the read path (#3252)', '-m', 'Queriers look at the ingesters a tenant used during the lookback period.');
    sha = git('rev-parse', '--short=7', 'HEAD').trim();
    write(d.root, 'pkg/ring/zones.go', ['package ring', '', 'func ZoneOf(instance string) string {', '\treturn instance', '}', ''].join('\n'));
    git('add', '-A');
    git('commit', '-qm', 'Tidy the helpers that name an instance in logs and metrics');
    ws = await openWorkspace(d.root);
    await indexStructure(ws);
    const report = await indexKnowledge(ws, {});
    assert.equal(report.status, 'done', report.message);
  });
  after(async () => {
    await ws?.close();
    d?.cleanup();
  });

  it('reaches the design whose title the commit says, weak, saying which commit, and quotes its reason', async () => {
    const target = await resolveOneSymbol(ws.db, 'RingSubsetFor', { root: d.root });
    const r = await whyIsThis(ws.db, target, 8, { root: d.root });
    const design = r.items.find((i) => i.document.path === 'docs/design/shuffle-sharding-on-the-read-path.md');
    assert.ok(design, `reached: ${r.items.map((i) => i.document.path ?? i.document.title).join(', ')}`);
    assert.equal(design.tier, 'weak');
    assert.equal(design.relation, 'self');
    assert.equal(design.anchors[0]!.reason, `its title is what commit ${sha} did ("Add ingesters shuffle sharding support on the read path (#3252)"), a commit that last changed its lines — verify`);
    assert.match(design.reasons[0]?.quote.quote ?? '', /must keep asking every ingester .* because a smaller set would miss samples/);
    assert.ok(!r.items.some((i) => i.document.path === 'docs/design/zone-awareness.md'), 'the design no commit of its lines says is not reached');
  });

  it('does not reach the design from code a commit about something else wrote', async () => {
    const target = await resolveOneSymbol(ws.db, 'ZoneOf', { root: d.root });
    const r = await whyIsThis(ws.db, target, 8, { root: d.root });
    assert.ok(!r.items.some((i) => i.document.path === 'docs/design/shuffle-sharding-on-the-read-path.md'), r.items.map((i) => i.document.path ?? i.document.title).join(', '));
  });
});
