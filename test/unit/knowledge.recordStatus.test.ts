import * as assert from 'node:assert/strict';
import { recordStatus, statusOf, statusToSay, successorIn } from '../../src/core/knowledge/sources/recordStatus';

/*
 * A decision record's own status, in the shapes open-source projects write it (each case below is the
 * form of a record in a project that keeps its ADRs or design documents beside its code).
 */
describe('knowledge: a decision record\'s own status', () => {
  const cases: [string, string, string | undefined, string | undefined][] = [
    ['a MADR metadata line with a linked successor', '# Superseded ADR\n\n- Status: superseded by [20201029-superseder](20201029-superseder.md)\n- Date: 2020-10-28\n\n## Context\n', 'superseded', 'superseded by 20201029-superseder'],
    ['a bold value in a star list', '# Internal listeners naming convention\n* status: **superseded by [MADR-077](./077-naming-system-envoy-resources.md)**\n\n## Context and Problem statement\n', 'superseded', 'superseded by MADR-077'],
    ['a Status section', '# 12. Use Postgres\n\nDate: 2021-03-01\n\n## Status\n\nAccepted\n\n## Context\n\nWe need a store.\n', 'accepted', 'Accepted'],
    ['a Status section naming what replaced it', '# 3. Old\n\n## Status\n\nRejected in favour of ADR 111\n\n## Context\n', 'rejected', 'Rejected in favour of ADR 111'],
    ['front matter', '---\ntitle: Push secrets\nstatus: draft\n---\n\n# Push secrets\n', 'proposed', 'draft'],
    ['front matter shown as a YAML block at the top', '```yaml\n---\ntitle: CRD promotion\nstatus: implemented\n---\n```\n\n# CRD\n', 'accepted', 'implemented'],
    ['a metadata table', '# 014. New alias schema\n\n| Status   | Date       | Author(s) |\n|:---------|:-----------|:----------|\n| Accepted | 2026-02-23 | [@a](https://example.org) |\n\n## Context\n', 'accepted', 'Accepted'],
    ['an emphasised field', '# IngressRoute\n\n_Status_: Draft\n\nThe IngressRoute design introduced in July 2018 …\n', 'proposed', 'Draft'],
    ['a reStructuredText field list', 'Use Celery\n==========\n\n:Status: Deprecated\n:Date: 2019-01-01\n', 'deprecated', 'Deprecated'],
    ['a reStructuredText Status section', '6. CSP middleware\n##################\n\nStatus\n------\n\nProvisional\n\nContext\n-------\n', 'proposed', 'Provisional'],
    ['accepted, then superseded', '# 7. Retries\n\n- Status: Implemented. Superseded by ADR-013\n', 'superseded', 'Implemented. Superseded by ADR-013'],
    ['accepted with only a part superseded', '# 9. Routing\n\nStatus: Implemented — the §5 tool-routing decision is superseded by RFC 0008\n', 'accepted', 'Implemented — the §5 tool-routing decision is superseded by RFC 0008'],
    ['a template listing the choices', '# Title\n\n- Status: [draft | proposed | rejected | accepted | deprecated | … | superseded by [ADR-0005](0005-example.md)] <!-- optional -->\n', undefined, undefined],
    ['a template explaining the choices', '# Title\n\n- **Status**: Proposed, accepted, deprecated, superseded...\n', undefined, undefined],
    ['a Status section that holds the template\'s note', '# Title\n\n## Status\n\n> A decision may be "proposed" if it hasn\'t been agreed upon yet, or "accepted" once it is agreed.\n\n## Context\n', undefined, undefined],
    ['a sentence about something else\'s status', '# Health checks\n\n## Status\n\nIn order to inform users of the address the services their ingress routes to …\n', undefined, undefined],
    ['a status field inside a code block', '# Node pools\n\n```yaml\nstatus: accepted\n```\n', undefined, undefined],
    ['a word in prose', '# Design\n\nThe status quo is that every pod restarts.\n', undefined, undefined],
    ['a record that gives none', '# 4. Use Kafka\n\n## Context\n\nWe need ordered delivery.\n', undefined, undefined],
  ];
  for (const [what, text, state, said] of cases) {
    it(`${what}: ${state ?? 'no status'}`, () => {
      const s = recordStatus(text);
      assert.equal(s?.state, state);
      assert.equal(s?.said, said);
    });
  }

  it('says a status only when the record is not simply in force', () => {
    assert.equal(statusToSay(statusOf('Accepted')), undefined);
    assert.equal(statusToSay(statusOf('Implemented (PR #2897)')), undefined);
    assert.equal(statusToSay(statusOf('Draft')), 'draft');
    assert.equal(statusToSay(statusOf('Superseded by ADR-0012')), 'superseded by ADR-0012');
    assert.equal(statusToSay(statusOf('Implemented — parts superseded by ADR-020')), 'implemented — parts superseded by ADR-020', 'a part no longer in force is said');
    assert.equal(statusToSay(statusOf('Implemented. Superseded by ADR-013')), 'superseded by ADR-013');
    assert.equal(statusToSay(statusOf('Proposed — pending restricted-content policy approval')), 'proposed', 'a label, not the sentence');
    assert.equal(statusToSay(statusOf('In Review')), 'in review');
    assert.equal(statusToSay(statusOf('Rejected in favour of ADR 111')), 'rejected in favour of ADR 111');
  });

  it('finds the successor a superseded record names, by handle, number or file name, only when one record fits', () => {
    const records = [
      { ref: 'ADR-0003', path: 'docs/adr/0003-batch-size.md' },
      { ref: 'ADR-0009', path: 'docs/adr/0009-larger-batches.md' },
      { ref: 'ADR-0009', path: 'other/adr/0009-elsewhere.md' },
      { ref: null, path: 'docs/madr/decisions/077-naming-system-envoy-resources.md' },
      { ref: null, path: 'docs/madr/decisions/036-internal-listeners.md' },
      { ref: null, path: 'docs/adr/20201029-superseder.md' },
    ];
    const from = (path: string) => ({ ref: null, path });
    const of = (said: string, path: string) => successorIn(statusOf(said)!, from(path), records)?.path;
    assert.equal(of('Superseded by [ADR-0009](0009-larger-batches.md)', 'docs/adr/0003-batch-size.md'), 'docs/adr/0009-larger-batches.md', 'the same folder\'s ADR-0009, not another folder\'s');
    assert.equal(of('superseded by MADR-077', 'docs/madr/decisions/036-internal-listeners.md'), 'docs/madr/decisions/077-naming-system-envoy-resources.md', 'a number a file name starts with');
    assert.equal(of('superseded by 20201029-superseder', 'docs/adr/0003-batch-size.md'), 'docs/adr/20201029-superseder.md', 'a file name');
    assert.equal(of('superseded by ADR-0042', 'docs/adr/0003-batch-size.md'), undefined, 'no such record');
    assert.equal(of('superseded', 'docs/adr/0003-batch-size.md'), undefined, 'no successor named');
  });
});
