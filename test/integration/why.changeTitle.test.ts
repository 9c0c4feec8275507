import * as assert from 'node:assert/strict';
import { knowledgeIndexedRepo, whyOf, type FilledExample } from '../helpers/example';
import { write } from '../helpers/fixtures';

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
  let fx: FilledExample;
  let sha = '';

  before(async function () {
    fx = await knowledgeIndexedRepo(this, 'tenure-why-change-', (git, root) => {
      write(
        root,
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
      write(root, 'docs/design/zone-awareness.md', ['# Zone awareness', '', '## Decision', '', 'Replicas are spread over zones, because losing one zone must not lose a write.', ''].join('\n'));
      git('add', '-A');
      git('commit', '-qm', 'Write down the designs for the querier and the replicas');
      write(root, 'pkg/ring/subset.go', ['package ring', '', 'func RingSubsetFor(tenant string, size int) []string {', '\tout := make([]string, 0, size)', '\treturn out', '}', ''].join('\n'));
      git('add', '-A');
      git('commit', '-qm', 'Add ingesters shuffle sharding support on the read path (#3252)', '-m', 'Queriers look at the ingesters a tenant used during the lookback period.');
      sha = git('rev-parse', '--short=7', 'HEAD').trim();
      write(root, 'pkg/ring/zones.go', ['package ring', '', 'func ZoneOf(instance string) string {', '\treturn instance', '}', ''].join('\n'));
      git('add', '-A');
      git('commit', '-qm', 'Tidy the helpers that name an instance in logs and metrics');
    });
  });
  after(() => fx?.close());

  it('reaches the design whose title the commit says, weak, saying which commit, and quotes its reason', async () => {
    const r = await whyOf(fx, 'RingSubsetFor');
    const design = r.items.find((i) => i.document.path === 'docs/design/shuffle-sharding-on-the-read-path.md');
    assert.ok(design, `reached: ${r.items.map((i) => i.document.path ?? i.document.title).join(', ')}`);
    assert.equal(design.tier, 'weak');
    assert.equal(design.relation, 'self');
    assert.equal(design.anchors[0]!.reason, `its title is what commit ${sha} did ("Add ingesters shuffle sharding support on the read path (#3252)"), a commit that last changed its lines — verify`);
    assert.match(design.reasons[0]?.quote.quote ?? '', /must keep asking every ingester .* because a smaller set would miss samples/);
    assert.ok(!r.items.some((i) => i.document.path === 'docs/design/zone-awareness.md'), 'the design no commit of its lines says is not reached');
  });

  it('does not reach the design from code a commit about something else wrote', async () => {
    const r = await whyOf(fx, 'ZoneOf');
    assert.ok(!r.items.some((i) => i.document.path === 'docs/design/shuffle-sharding-on-the-read-path.md'), r.items.map((i) => i.document.path ?? i.document.title).join(', '));
  });
});
