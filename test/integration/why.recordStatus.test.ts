import * as assert from 'node:assert/strict';
import { resolveOneSymbol } from '../../src/core/structural/lookup';
import { whyIsThis } from '../../src/core/knowledge/why';
import { searchKnowledgeTool } from '../../src/core/tools/searchKnowledge';
import { whyIsThisTool } from '../../src/core/tools/whyIsThis';
import { answerOf } from '../../src/webview/whyModel';
import { knowledgeIndexedFiles, type FilledExample } from '../helpers/example';

/*
 * Two decision records name the same constant: the older was superseded by
 * the newer. Quoting the older one's reason as why the code is so would
 * mislead an agent into restoring what the team moved away from. The record
 * in force leads the answer; the superseded one is still shown (it says why
 * the code once was so) with its status on its line, ranked below.
 */

describe('why_is_this and search_knowledge: a record superseded, rejected or still a draft says so', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await knowledgeIndexedFiles({
      'src/batch.ts': ['export const BATCH_SIZE = 500;', '', 'export const LEGACY_ROW_CAP = 100;', '', 'export function flush(rows: unknown[]): number {', '  return Math.ceil(rows.length / BATCH_SIZE);', '}', ''].join('\n'),
      'docs/adr/0003-batch-size.md': [
        '# 3. Batch size of 100',
        '',
        '- Status: superseded by [ADR-0009](0009-larger-batches.md)',
        '- Date: 2024-02-01',
        '',
        '## Decision',
        '',
        'BATCH_SIZE is 100 because the old warehouse driver must not hold more than 100 rows in one statement.',
        'LEGACY_ROW_CAP keeps that limit for the reports that still use the old driver, because it fails past it.',
        '',
      ].join('\n'),
      'docs/adr/0009-larger-batches.md': [
        '# 9. Larger batches',
        '',
        '- Status: Accepted',
        '- Date: 2025-05-12',
        '',
        '## Decision',
        '',
        'BATCH_SIZE is 500 because the new driver streams rows, and fewer round trips keep the nightly load inside its two-hour window.',
        '',
      ].join('\n'),
      'docs/design/adaptive-batches.md': [
        '---',
        'title: Adaptive batches',
        'status: draft',
        '---',
        '',
        '# Adaptive batches',
        '',
        'BATCH_SIZE should adapt to the row width, because wide rows make a batch of 500 exceed the driver\'s 16 MB packet limit.',
        '',
      ].join('\n'),
    });
  });
  after(() => fx.close());

  it('leads with the record in force and says, on each other record, where it stands', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'BATCH_SIZE' });
    const lines = r.text.split('\n');
    assert.match(lines[0]!, /^Why: .*new driver streams rows.*ADR-0009.* — decision, exact$/, lines[0]);
    const data = r.data as { documents: { ref?: string; where?: string; status?: string; tier: string }[] };
    const accepted = data.documents.findIndex((d) => d.ref === 'ADR-0009');
    const superseded = data.documents.findIndex((d) => d.ref === 'ADR-0003');
    const draft = data.documents.findIndex((d) => d.where === 'docs/design/adaptive-batches.md');
    assert.ok(accepted >= 0 && superseded >= 0 && draft >= 0, r.text);
    assert.equal(data.documents[accepted]!.status, undefined, 'a record in force needs no status');
    assert.equal(data.documents[superseded]!.status, 'superseded by ADR-0009');
    assert.equal(data.documents[draft]!.status, 'draft');
    assert.ok(accepted < superseded, `the superseded record ranks below the one in force:\n${r.text}`);
    // The link tier is about reaching the symbol, not the record's standing: each names it verbatim.
    for (const i of [accepted, superseded, draft]) assert.equal(data.documents[i]!.tier, 'exact', r.text);
    assert.ok(lines.some((l) => /^decision \(superseded by ADR-0009\) — ADR-0003 /.test(l)), r.text);
    assert.ok(lines.some((l) => /^decision \(draft\) — /.test(l)), r.text);
  });

  it('a reason only a superseded record gives still answers, and says the record is superseded, in the answer and the panel', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'LEGACY_ROW_CAP' });
    assert.match(r.text.split('\n')[0]!, /^Why: ".*" \(ADR-0003, docs\/adr\/0003-batch-size\.md:\d+\) — decision \(superseded by ADR-0009\), exact$/, r.text);
    assert.equal((r.data as { why: { status?: string } }).why.status, 'superseded by ADR-0009');
    // The record in force is shown too, reached through the one it supersedes, though it does not name the constant.
    const docs = (r.data as { documents: { ref?: string; through?: string; how: string; tier: string }[] }).documents;
    const successor = docs.find((d) => d.ref === 'ADR-0009');
    assert.ok(successor, r.text);
    assert.equal(successor.through, 'ADR-0003');
    assert.equal(successor.how, 'supersedes ADR-0003, which reaches it');
    assert.equal(successor.tier, 'weak', 'two hops from the constant: at most weak');
    assert.ok(r.text.includes('Reached through another document (weak for LEGACY_ROW_CAP itself):\ndecision — ADR-0009'), r.text);
    const target = await resolveOneSymbol(fx.ws.db, 'LEGACY_ROW_CAP', { root: fx.ws.root });
    const a = answerOf(await whyIsThis(fx.ws.db, target, 8, { root: fx.ws.root }));
    assert.equal(a?.status, 'superseded by ADR-0009');
  });

  it('search_knowledge says where each quoted record stands, as why_is_this does', async () => {
    const r = await searchKnowledgeTool.invoke({ workspace: fx.ws }, { question: 'Why is the batch size what it is?', mode: 'local' });
    const sources = (r.data as { sources: { source: string; status?: string }[] }).sources;
    const of = (file: string) => sources.find((q) => q.source.includes(file));
    assert.ok(of('0003-batch-size.md') && of('0009-larger-batches.md') && of('adaptive-batches.md'), r.text);
    assert.equal(of('0003-batch-size.md')!.status, 'superseded by ADR-0009');
    assert.equal(of('adaptive-batches.md')!.status, 'draft');
    assert.equal(of('0009-larger-batches.md')!.status, undefined, 'a record in force needs no status');
    assert.ok(r.text.split('\n').some((l) => /^ {2}\[\d+\] ".*" \(docs\/adr\/0003-batch-size\.md:\d+\) — superseded by ADR-0009$/.test(l)), r.text);
    // The offline answer quotes prose, as the sources do: never a title, front matter or a status line.
    const points = r.text.split('\n').filter((l) => l.startsWith('- "') && / \[\d+\]$/.test(l));
    assert.ok(points.length, r.text);
    for (const p of points) assert.doesNotMatch(p, /^- "(?:---|title:|Batch size of 100"|Larger batches"|Adaptive batches"|Status:)/, r.text);
    // Both records answer the question as well; the one in force is read first.
    assert.ok(sources.indexOf(of('0009-larger-batches.md')!) < sources.indexOf(of('0003-batch-size.md')!), r.text);
  });
});
