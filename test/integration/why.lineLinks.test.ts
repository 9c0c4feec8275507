import * as assert from 'node:assert/strict';
import { linksToFile } from '../../src/core/knowledge/why';
import { resolveOneSymbol } from '../../src/core/structural/lookup';
import { whyIsThisTool } from '../../src/core/tools/whyIsThis';
import { decisionRecord, knowledgeIndexedFiles, type FilledExample } from '../helpers/example';

/*
 * A record may point at the code with a link to a line of it instead of its
 * name: git-en-boite's ADR on value objects says "even for single attributes
 * like a commit author's [name](https://github.com/…/blob/639b40a/packages/core/src/author.ts#L9)",
 * and line 9 declares NameOfPerson. The link is to the innermost symbol at
 * that line of the code as it is now: strong when the line declares it, weak
 * when the line is in its body; the sentence holding the link is tied to it.
 */

const record = (n: number, title: string, ...body: string[]) => decisionRecord(n, title, { Decision: body.join('\n') });

describe('why_is_this: a record that links to a line of the code', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await knowledgeIndexedFiles({
      'packages/core/src/author.ts': [
        '// Who wrote a commit.',
        'export class Author {',
        '  constructor(readonly name: string) {}',
        '}',
        '',
        'export class NameOfPerson {',
        '  constructor(readonly value: string) {}',
        '  initials(): string {',
        '    return this.value.slice(0, 1);',
        '  }',
        '}',
        '',
      ].join('\n'),
      'packages/core/src/ledger.ts': ['export function settle(amount: number): number {', '  const fee = amount / 100;', '  return amount - fee;', '}', ''].join('\n'),
      'doc/adr/0001-value-objects.md': record(
        1,
        'Always use value objects in the core',
        'We use value object classes to represent values, because primitives make the code less expressive.',
        'This holds true even for single attributes like a commit author\'s [name](https://github.com/acme/shop/blob/639b40ab3bb3dd1668e4efc6803bc9779ffb1801/packages/core/src/author.ts#L6).',
      ),
      'doc/adr/0002-fees.md': record(
        2,
        'Fees are taken at settlement',
        'The fee is taken when an amount is paid out [here](../../packages/core/src/ledger.ts#L2), so that a refund never has to return it.',
      ),
      'doc/adr/0003-other-file.md': record(3, 'Vendored parsers', 'We keep the [parser](https://github.com/acme/shop/blob/main/vendor/author.ts#L6) as it was upstream, so that updates stay a copy.'),
    });
  });
  after(() => fx.close());

  it('links a record to the symbol its link declares, strong, and quotes the sentence that holds the link', async () => {
    const target = await resolveOneSymbol(fx.ws.db, 'NameOfPerson', { root: fx.ws.root });
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: target.sid });
    const data = r.data as { documents: { where?: string; tier: string; relation: string; how: string }[] };
    const adr = data.documents.find((d) => d.where === 'doc/adr/0001-value-objects.md');
    assert.ok(adr, r.text);
    assert.equal(adr.tier, 'strong');
    assert.equal(adr.relation, 'self');
    assert.match(adr.how, /links to the line that declares it \(author\.ts#L6\)/);
    assert.ok(r.text.includes("This holds true even for single attributes like a commit author's name."), r.text);
    assert.ok(!data.documents.some((d) => d.where === 'doc/adr/0003-other-file.md'), 'a link to another file of the same name links nothing');
  });

  it('a link to a line inside a body is weak for the innermost symbol there, and nothing for the others', async () => {
    const settle = await resolveOneSymbol(fx.ws.db, 'settle', { root: fx.ws.root });
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: settle.sid });
    const data = r.data as { documents: { where?: string; tier: string; how: string }[] };
    const adr = data.documents.find((d) => d.where === 'doc/adr/0002-fees.md');
    assert.ok(adr, r.text);
    assert.equal(adr.tier, 'weak');
    assert.match(adr.how, /links to line 2 of ledger\.ts, inside it — verify/);
    // Line 6 declares NameOfPerson: its member is not what the link points at.
    const member = await resolveOneSymbol(fx.ws.db, 'NameOfPerson.initials', { root: fx.ws.root });
    const other = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: member.sid });
    assert.ok(!(other.data as { documents: { how: string; relation: string }[] }).documents.some((d) => d.relation === 'self' && /links to/.test(d.how)), other.text);
  });

  it('reads relative links, links from the root and forge URLs to the same file', () => {
    assert.ok(linksToFile('../../packages/core/src/ledger.ts', 'doc/adr/0002-fees.md', 'packages/core/src/ledger.ts'));
    assert.ok(linksToFile('/packages/core/src/ledger.ts', 'doc/adr/0002-fees.md', 'packages/core/src/ledger.ts'));
    assert.ok(linksToFile('https://gitlab.com/acme/shop/-/blob/main/packages/core/src/ledger.ts', undefined, 'packages/core/src/ledger.ts'));
    assert.ok(!linksToFile('https://github.com/acme/shop/blob/main/vendor/packages/core/src/ledger.ts', undefined, 'core/src/ledger.ts'), 'a longer path is another file');
    assert.ok(!linksToFile('https://example.com/packages/core/src/ledger.ts', undefined, 'packages/core/src/ledger.ts'), 'a web page that is not a forge view of a file');
    assert.ok(!linksToFile('../ledger.ts', 'doc/adr/0002-fees.md', 'packages/core/src/ledger.ts'));
  });
});
