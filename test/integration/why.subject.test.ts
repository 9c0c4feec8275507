import * as assert from 'node:assert/strict';
import { whyIsThisTool } from '../../src/core/tools/whyIsThis';
import { knowledgeIndexedFiles, type FilledExample } from '../helpers/example';

/*
 * A decision record often explains code without naming it: thanos' record on
 * bucket operations says why blocks get a deletion mark and never names
 * MarkForDeletion. The words of the name and of its doc comment, searched
 * together, find the record on its subject. Weak, to verify; a record on
 * another subject is not linked.
 */

describe('why_is_this: a decision record on the symbol\'s subject that does not name it', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await knowledgeIndexedFiles({
      'pkg/block/delete.ts': [
        '/**',
        ' * Writes a deletion mark next to the block in the bucket; the compactor removes',
        ' * the block itself once the mark is old enough.',
        ' */',
        'export function markForDeletion(bucket: string, block: string): void {',
        '  void bucket;',
        '  void block;',
        '}',
        '',
        '/** Reads the header line of an uploaded file. */',
        'export function parseHeader(line: string): string {',
        '  return line.trim();',
        '}',
        '',
      ].join('\n'),
      'docs/adr/0004-delayed-block-deletion.md': [
        '# 4. Delay the deletion of blocks',
        '',
        '## Context',
        '',
        'The compactor removed blocks that queriers were still reading from the bucket, and their queries failed half-way.',
        '',
        '## Decision',
        '',
        'Blocks are never deleted directly: a deletion mark is written first, and the block is removed 48 hours after the mark, so that every reader has seen the mark before the block goes.',
        '',
      ].join('\n'),
      'docs/adr/0005-use-postgres.md': ['# 5. Use PostgreSQL for tenants', '', '## Decision', '', 'Tenants are stored in PostgreSQL, because the team already runs it and its backups are tested.', ''].join('\n'),
    });
  });
  after(() => fx.close());

  it('links the record on its subject weakly, says by which words, and quotes its decision', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'markForDeletion' });
    const data = r.data as { documents: { where?: string; tier: string; how: string; quotes: { text: string }[] }[] };
    const adr = data.documents.find((d) => d.where === 'docs/adr/0004-delayed-block-deletion.md');
    assert.ok(adr, r.text);
    assert.equal(adr.tier, 'weak');
    assert.match(adr.how, /^on its subject: has \d+ of \d+ words of its name and doc comment \("mark", "deletion", .*\) — verify$/);
    assert.ok(adr.quotes.some((q) => q.text.startsWith('Blocks are never deleted directly')), r.text);
    assert.ok(!data.documents.some((d) => d.where === 'docs/adr/0005-use-postgres.md'), r.text);
    // A weak link never leads the answer as the symbol's reason.
    assert.ok(!/ADR-0*4.*— decision, (exact|strong)$/.test(r.text.split('\n')[0]!), r.text.split('\n')[0]);
  });

  it('links no record when none is on its subject', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'parseHeader' });
    const data = r.data as { documents: { where?: string }[] };
    assert.ok(!data.documents.some((d) => d.where?.startsWith('docs/adr/')), r.text);
  });
});

/*
 * The folder a symbol's file sits in names the part of the system it belongs
 * to: `State.beginSync` in pkg/alertmanager/ is on the subject of the record
 * about the alertmanager, not of one about another component's start-up that
 * shares more of its words.
 */
describe("why_is_this: a record on the subject of the symbol's folder", function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await knowledgeIndexedFiles({
      'pkg/alertmanager/replication.ts': [
        'export class State {',
        '  /** Waits until the peers are ready, then settles the state it holds. */',
        '  beginSync(): void {',
        '    return;',
        '  }',
        '}',
        '',
      ].join('\n'),
      'docs/adr/0007-scalable-alertmanager.md': [
        '# 7. A scalable alertmanager',
        '',
        '## Decision',
        '',
        'The alertmanager state is replicated to every replica, because a replica must sync its state from its peers before it begins to send notifications.',
        '',
      ].join('\n'),
      'docs/adr/0008-ingester-startup.md': [
        '# 8. Ingester start-up',
        '',
        '## Decision',
        '',
        'An ingester waits until it is ready before it begins to sync writes, because a ready ingester holds the whole state.',
        '',
      ].join('\n'),
      // Records on other parts that use the common words too, as a real project's do: the rare word is the folder's.
      ...Object.fromEntries(
        ['querier', 'compactor', 'ruler', 'distributor'].map((part, k) => [
          `docs/adr/00${10 + k}-${part}-rollout.md`,
          [`# ${10 + k}. ${part} rollout`, '', '## Decision', '', `The ${part} waits until its ring is ready before it begins, because its state must be whole first.`, ''].join('\n'),
        ]),
      ),
    });
  });
  after(() => fx.close());

  it("links the record on its folder's subject, not the one that only shares more of its words", async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'State.beginSync' });
    const data = r.data as { documents: { where?: string; tier: string; how: string }[] };
    const adr = data.documents.find((d) => d.where === 'docs/adr/0007-scalable-alertmanager.md');
    assert.ok(adr, r.text);
    assert.equal(adr.tier, 'weak');
    assert.match(adr.how, /^on its subject: has \d+ of \d+ words of its name and doc comment/);
    assert.ok(!data.documents.some((d) => d.where === 'docs/adr/0008-ingester-startup.md'), r.text);
  });
});

/*
 * A name's verb is rarely in the record's form: `generateUnguessablePath` is
 * on the subject of a record that says the path "will be generated" and is
 * "unguessable". Words are compared by their root.
 */
describe('why_is_this: a record on its subject in other forms of its words', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await knowledgeIndexedFiles({
      'internal/wasm/server.ts': [
        '/** The downloading path of a module. */',
        'export function generateUnguessablePath(url: string, salt: string): string {',
        '  return url + salt;',
        '}',
        '',
      ].join('\n'),
      'docs/design/wasm-modules.md': [
        '# Serving Wasm modules',
        '',
        '## Security',
        '',
        'A user without access to a private image could otherwise fetch its module from the cache.',
        'To prevent this, the download URL will be generated by the gateway from a salted hash, so that it is unguessable.',
        '',
      ].join('\n'),
      'docs/design/rate-limits.md': ['# Rate limits', '', '## Decision', '', 'Requests are limited per client, because one client must not starve the others.', ''].join('\n'),
    });
  });
  after(() => fx.close());

  it('links the record that says "generated" and "unguessable", weakly, and quotes why', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'generateUnguessablePath' });
    const data = r.data as { documents: { where?: string; tier: string; how: string; quotes: { text: string }[] }[] };
    const doc = data.documents.find((d) => d.where === 'docs/design/wasm-modules.md');
    assert.ok(doc, r.text);
    assert.equal(doc.tier, 'weak');
    assert.match(doc.how, /^on its subject: has \d+ of \d+ words .*"generate", "unguessable"/);
    assert.ok(doc.quotes.some((q) => q.text.startsWith('To prevent this, the download URL will be generated')), r.text);
    assert.ok(!data.documents.some((d) => d.where === 'docs/design/rate-limits.md'), r.text);
  });
});
