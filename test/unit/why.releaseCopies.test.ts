import * as assert from 'node:assert/strict';
import type { DocumentRef } from '../../src/core/knowledge/quotes.js';
import type { DocKind } from '../../src/core/knowledge/sources/document.js';
import { withoutReleaseCopies } from '../../src/core/knowledge/why.js';
import type { LinkTier } from '../../src/core/model/tiers.js';

/*
 * A documentation site keeps a copy of each page for each release: the copies
 * an answer reaches are one source, the most certain link kept, then the page
 * outside any release folder, then `latest`, then the newest release.
 */

type Doc = { tier: LinkTier; text?: undefined; document: DocumentRef };

function page(id: number, path: string, tier: LinkTier = 'weak', kind: DocKind = 'doc', title = 'Envoy Patch Policy'): [number, Doc] {
  return [id, { tier, document: { id, source: path, kind, title, path } }];
}

const kept = (docs: Map<number, Doc>) => [...docs.values()].map((d) => d.document.path).sort();

describe('copies of a page for each release', () => {
  it('keeps one copy of a page reached in eleven release folders: latest, else the newest release', () => {
    const docs = new Map([
      page(1, 'site/content/en/v1.0/tasks/extensibility/envoy-patch-policy.md'),
      page(2, 'site/content/en/v1.9/tasks/extensibility/envoy-patch-policy.md'),
      page(3, 'site/content/en/v1.10/tasks/extensibility/envoy-patch-policy.md'),
      page(4, 'site/content/en/latest/tasks/extensibility/envoy-patch-policy.md'),
    ]);
    withoutReleaseCopies(docs);
    assert.deepEqual(kept(docs), ['site/content/en/latest/tasks/extensibility/envoy-patch-policy.md']);
    docs.clear();
    for (const [id, d] of [page(1, 'website/versioned_docs/version-0.9.1/guide.md'), page(2, 'website/versioned_docs/version-0.10.0/guide.md')]) docs.set(id, d);
    withoutReleaseCopies(docs);
    assert.deepEqual(kept(docs), ['website/versioned_docs/version-0.10.0/guide.md']);
  });

  it('keeps the page outside the release folders over its copies, and the most certain link over both', () => {
    const docs = new Map([
      page(1, 'site/content/en/community/design/envoy-patch-policy.md', 'weak', 'design', 'EnvoyPatchPolicy'),
      page(2, 'site/content/en/v0.6/design/envoy-patch-policy.md', 'weak', 'design', 'EnvoyPatchPolicy'),
    ]);
    withoutReleaseCopies(docs);
    assert.deepEqual(kept(docs), ['site/content/en/community/design/envoy-patch-policy.md']);
    const strong = new Map([
      page(1, 'site/content/en/community/design/envoy-patch-policy.md', 'weak', 'design', 'EnvoyPatchPolicy'),
      page(2, 'site/content/en/v0.6/design/envoy-patch-policy.md', 'strong', 'design', 'EnvoyPatchPolicy'),
    ]);
    withoutReleaseCopies(strong);
    assert.deepEqual(kept(strong), ['site/content/en/v0.6/design/envoy-patch-policy.md']);
  });

  it('leaves pages alone that only share a name: none in a release folder, another title, another kind, or an API version', () => {
    const docs = new Map([
      page(1, 'docs/adr/README.md', 'weak', 'readme', 'Decisions'),
      page(2, 'services/api/README.md', 'weak', 'readme', 'Decisions'),
      page(3, 'site/content/en/v1.2/user/rate-limit.md', 'weak', 'doc', 'Rate Limit'),
      page(4, 'site/content/en/community/design/rate-limit.md', 'weak', 'design', 'Rate Limit'),
      page(5, 'site/content/en/v1.3/user/rate-limit.md', 'weak', 'doc', 'Global Rate Limit'),
      page(6, 'api/v1alpha1/backend.md', 'weak', 'doc', 'Backend'),
      page(7, 'api/v1beta1/backend.md', 'weak', 'doc', 'Backend'),
      page(8, 'docs/api/v1/backend.md', 'weak', 'doc', 'Backend'),
      page(9, 'docs/api/v2/backend.md', 'weak', 'doc', 'Backend'),
    ]);
    withoutReleaseCopies(docs);
    assert.equal(docs.size, 9);
  });
});
