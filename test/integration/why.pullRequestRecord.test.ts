import * as assert from 'node:assert/strict';
import { knowledgeIndexedRepo, whyOf, type FilledExample } from '../helpers/example';
import { write } from '../helpers/fixtures';

/*
 * A decision record that never names the code it decided, added by the same
 * pull request as the code (one squash commit, "… (#812)"): why_is_this
 * reaches it through that pull request, weak, and quotes its reason. A pull
 * request that added two records does not say which one is about the code,
 * and code no pull request wrote reaches neither. Real git, a real repository.
 */
describe('why_is_this: the decision record the pull request of the code added', function () {
  this.timeout(120_000);
  let fx: FilledExample;
  let sha = '';
  let resolverSha = '';
  const byPullRequest = (reason: string | undefined) => /^added by PR #/.test(reason ?? '');

  before(async function () {
    fx = await knowledgeIndexedRepo(this, 'tenure-why-pr-record-', (git, root) => {
      write(root, 'docs/adr/0001-record-decisions.md', ['# Record decisions', '', '## Decision', '', 'We write one record per decision, because a wiki page drifts from the code.', ''].join('\n'));
      write(root, 'pkg/hooks/names.go', ['package hooks', '', 'func LabelOf(id string) string {', '\treturn id', '}', ''].join('\n'));
      write(root, 'pkg/hooks/batch.go', ['package hooks', '', 'func SendBatch(items []string) int {', '\tn := 0', '\tfor range items {', '\t\tn++', '\t}', '\treturn n', '}', ''].join('\n'));
      git('add', '-A');
      git('commit', '-qm', 'Start the project');
      // A pull request that changed one line of SendBatch's seven and added a record about something else.
      write(root, 'pkg/hooks/batch.go', ['package hooks', '', 'func SendBatch(items []string) int {', '\tn := 0', '\tfor range items {', '\t\tn += 1', '\t}', '\treturn n', '}', ''].join('\n'));
      write(root, 'docs/adr/0004-structured-logs.md', ['# Structured logs', '', '## Decision', '', 'Logs are JSON lines, because the collector indexes fields and drops free text.', ''].join('\n'));
      git('add', '-A');
      git('commit', '-qm', 'Log in JSON lines (#640)');
      write(
        root,
        'docs/adr/0007-back-pressure-for-outbound-calls.md',
        ['# Back-pressure for outbound calls', '', '## Decision', '', "Every outbound delivery waits for a token from a bucket of ten a second, because a burst of retries once took down a customer's endpoint.", ''].join('\n'),
      );
      write(root, 'pkg/hooks/pace.go', ['package hooks', '', 'func PaceFor(tenant string) int {', '\treturn 10', '}', ''].join('\n'));
      git('add', '-A');
      git('commit', '-qm', 'Throttle webhook deliveries per tenant (#812)');
      sha = git('rev-parse', '--short=7', 'HEAD').trim();
      write(root, 'docs/proposals/cross-tenant-query-federation.md', ['# Cross-tenant query federation', '', '## Proposal', '', 'A query may name several tenants joined by a pipe, because operators need one view over the teams they run.', ''].join('\n'));
      git('add', '-A');
      git('commit', '-qm', 'Add the query federation proposal (#3364)');
      write(root, 'pkg/tenant/resolve.go', ['package tenant', '', 'func ResolveTenants(header string) []string {', '\treturn []string{header}', '}', ''].join('\n'));
      git('add', '-A');
      git('commit', '-qm', 'Add tenant resolver (#3486)', '-m', 'This implements the resolver as described by the [proposal].\n\n[proposal]: https://github.com/example/metrics/pull/3364');
      resolverSha = git('rev-parse', '--short=7', 'HEAD').trim();
      write(root, 'docs/adr/0008-signing-payloads.md', ['# Signing payloads', '', '## Decision', '', 'Payloads are signed with a per-tenant secret, because receivers must tell our calls from forged ones.', ''].join('\n'));
      write(root, 'docs/adr/0009-delivery-ordering.md', ['# Delivery ordering', '', '## Decision', '', 'Deliveries of one tenant go out in order, because receivers apply them as a log.', ''].join('\n'));
      write(root, 'pkg/hooks/backoff.go', ['package hooks', '', 'func BackoffAfter(attempt int) int {', '\treturn attempt * 2', '}', ''].join('\n'));
      git('add', '-A');
      git('commit', '-qm', 'Webhook delivery follow-ups (#900)');
    });
  });
  after(() => fx?.close());

  it('reaches the one record the pull request added, weak, saying which pull request and commit, and quotes its reason', async () => {
    const r = await whyOf(fx, 'PaceFor');
    const record = r.items.find((i) => i.document.path === 'docs/adr/0007-back-pressure-for-outbound-calls.md');
    assert.ok(record, `reached: ${r.items.map((i) => i.document.path ?? i.document.title).join(', ')}`);
    assert.equal(record.tier, 'weak');
    assert.equal(record.relation, 'self');
    assert.equal(record.anchors[0]!.reason, `added by PR #812, whose commit ${sha} last wrote 3 of its 3 lines — verify`);
    assert.match(record.reasons[0]?.quote.quote ?? '', /waits for a token .* because a burst of retries once took down/);
    assert.ok(!r.items.some((i) => i.document.path === 'docs/adr/0001-record-decisions.md'), 'a record no pull request of its lines added is not reached');
  });

  it('reaches the record a pull request its commit links to added', async () => {
    const r = await whyOf(fx, 'ResolveTenants');
    const proposal = r.items.find((i) => i.document.path === 'docs/proposals/cross-tenant-query-federation.md');
    assert.ok(proposal, `reached: ${r.items.map((i) => i.document.path ?? i.document.title).join(', ')}`);
    assert.equal(proposal.tier, 'weak');
    assert.equal(proposal.anchors[0]!.reason, `added by PR #3364, which commit ${resolverSha} links to; it last wrote 3 of its 3 lines — verify`);
    assert.match(proposal.reasons[0]?.quote.quote ?? '', /several tenants joined by a pipe, because operators need one view/);
  });

  it('reaches neither record of a pull request that added two', async () => {
    const r = await whyOf(fx, 'BackoffAfter');
    const viaPullRequest = r.items.filter((i) => i.anchors.some((a) => byPullRequest(a.reason)));
    assert.deepEqual(viaPullRequest.map((i) => i.document.path), []);
  });

  it('reaches no record of a pull request that wrote a few of its lines', async () => {
    const r = await whyOf(fx, 'SendBatch');
    assert.ok(!r.items.some((i) => i.document.path === 'docs/adr/0004-structured-logs.md'), r.items.map((i) => i.document.path ?? i.document.title).join(', '));
  });

  it('reaches no record from code no pull request wrote', async () => {
    const r = await whyOf(fx, 'LabelOf');
    assert.ok(!r.items.some((i) => i.anchors.some((a) => byPullRequest(a.reason))), r.items.map((i) => i.document.path ?? i.document.title).join(', '));
  });
});
