import * as assert from 'node:assert/strict';
import type { WhyIsThisResult, WhyItem } from '../../src/core/knowledge/why.js';
import type { DocumentRef } from '../../src/core/knowledge/quotes.js';
import { tokens } from '../../src/core/tools/budget.js';
import { fitWhy, repeatsTitle } from '../../src/core/tools/whyIsThis.js';

/* How why_is_this spends its 800 tokens: on the sentences that give a reason before the sources that merely name the symbol. */

const target = { id: 1, sid: 'go `ledger`/Ledger#Settle().', name: 'Settle', qname: 'ledger.Ledger.Settle', kind: 'method' as const, path: 'ledger/ledger.go', line: 40 };

const ADR_SENTENCES = [
  'Settlement runs once per batch because the clearing partner charges a fee for every call, and one call per instruction would cost more than the batch saves.',
  'We keep the batch under 500 instructions so that a failed batch can be retried inside the partner’s 15-minute window without splitting it.',
  'A batch that is split after it has been submitted is rejected by the partner as a duplicate, which is why the size is fixed before submission.',
  'Retrying a single instruction instead of the batch was rejected, since the partner would count every retried instruction against the daily quota.',
  'The ledger therefore records the batch as one entry and the instructions under it, which keeps reconciliation a single lookup per batch.',
  'Reconciliation must finish before the next cut-off at 18:00, otherwise the next day’s batch would start from an unreconciled balance and drift.',
];

function adr(): WhyItem {
  const document: DocumentRef = { id: 7, source: 'docs/adr/0007-batch-settlement.md', kind: 'adr', title: 'ADR-0007: Settle in batches', ref: 'ADR-0007', path: 'docs/adr/0007-batch-settlement.md' };
  const reasons = ADR_SENTENCES.map((quote, k) => ({ quote: { document, quote, line: 10 + k }, score: 3 - k * 0.3, tie: 2.5, constraint: false }));
  return { category: 'decision', document, tier: 'exact', relation: 'self', hops: 1, anchors: [{ entity: 'Ledger.Settle', entityType: 'search', tier: 'exact', symbol: { sid: target.sid, qname: target.qname }, relation: 'self', reason: 'names `Ledger.Settle` verbatim' }], excerpts: reasons.map((r) => r.quote), reasons, extractedBy: 'name search' };
}

/** A commit of the symbol's lines whose message says nothing about why: its passage is its subject line. */
function commit(k: number, passage?: string): WhyItem {
  const sha = `${k}abcdef0123456789`.slice(0, 7);
  const title = `chore: update, tighten and modernize the linters of the settlement and ledger packages, round ${k} (#${8400 + k})`;
  const document: DocumentRef = { id: 100 + k, source: `git:${sha}`, kind: 'commit', title, ref: `commit ${sha}` };
  return { category: 'commit', document, tier: 'exact', relation: 'self', hops: 1, anchors: [{ entity: target.qname, entityType: 'history', tier: 'exact', symbol: { sid: target.sid, qname: target.qname }, relation: 'self', reason: 'last changed 3 of its lines (git blame)' }], excerpts: [{ document, quote: passage ?? `commit ${sha}: ${title}` }], reasons: [], extractedBy: 'git blame' };
}

function result(items: WhyItem[]): WhyIsThisResult {
  const lead = items[0]!.reasons[0]!;
  return {
    target,
    indexed: true,
    scope: [{ sid: target.sid, qname: target.qname, relation: 'self' }],
    lead: { quote: lead.quote, category: 'decision', tier: 'exact', relation: 'self', handle: 'ADR-0007' },
    items,
    constraints: [],
    counts: { documents: items.length, byCategory: {}, byTier: { exact: items.length, strong: 0, weak: 0, unresolved: 0 }, unresolved: 0 },
    extractedBy: ['offline'],
    summary: `${items.length} sources about ledger.Ledger.Settle itself.`,
    notSeen: ['documents outside the indexed sources (tickets in other systems, chat, meetings)'],
  };
}

describe('why_is_this within its budget', () => {
  it('quotes the decision record past its second sentence before it lists commits that merely name the symbol', () => {
    // Commits whose bodies name the symbol and say nothing about why.
    const r = result([adr(), ...[1, 2, 3, 4, 5, 6, 7].map((k) => commit(k, `Moved Ledger.Settle and its helpers from the settlement package into ledger/ledger.go, renamed the batch variables to match the ledger package and updated call sites ${k}.`))]);
    const { text } = fitWhy(r, 8, 800);
    assert.ok(tokens(text) <= 800, `${tokens(text)} tokens`);
    // The lead and the next four of its sentences (five a first source may quote besides the lead, as far as the budget goes).
    for (const s of ADR_SENTENCES.slice(0, 5)) assert.ok(text.includes(s), `quoted: ${s.slice(0, 40)}…`);
    // The commits come after, as far as the budget lets them, and never before a sentence of the record.
    const firstCommit = text.indexOf('commit 1abcdef');
    if (firstCommit >= 0) assert.ok(firstCommit > text.indexOf(ADR_SENTENCES[4]!), 'a mention is listed after the reasons');
  });

  it('quotes the record that explains most deeper before it opens a weak source that explains little', () => {
    // Seven notes that share words with the symbol (weak), each with one sentence that scores low as a reason.
    const note = (k: number): WhyItem => {
      const document: DocumentRef = { id: 200 + k, source: `docs/guides/operations-${k}.md`, kind: 'doc', title: `Operations guide ${k}`, path: `docs/guides/operations-${k}.md` };
      const quote = { document, quote: `During the quarterly review ${k} the operations team walked through the settlement dashboards, the ledger exports and the batch reports, and agreed to keep the existing alert thresholds for the time being.`, line: 5 };
      return { category: 'note', document, tier: 'weak', relation: 'self', hops: 1, anchors: [{ entity: 'settle ledger', entityType: 'concept', tier: 'weak', symbol: { sid: target.sid, qname: target.qname }, relation: 'self', reason: '' }], excerpts: [quote], reasons: [{ quote, score: 0.8, tie: 0.5, constraint: false }], extractedBy: 'offline' };
    };
    const { text } = fitWhy(result([adr(), ...[1, 2, 3, 4, 5, 6, 7].map(note)]), 8, 800);
    assert.ok(tokens(text) <= 800, `${tokens(text)} tokens`);
    for (const s of ADR_SENTENCES.slice(0, 5)) assert.ok(text.includes(s), `quoted: ${s.slice(0, 40)}…`);
    assert.ok(!text.includes('Operations guide 7'), 'the last weak note gives way to the record\'s reasons');
  });

  it("a commit whose passage is only its subject line is listed once, with no quote repeating its title", () => {
    const r = result([adr(), commit(1)]);
    const { text, data } = fitWhy(r, 8, 800);
    const shown = data.documents.find((d) => d.ref === 'commit 1abcdef');
    assert.ok(shown, 'the commit is listed: there is room');
    assert.equal(shown.gives, 'mention');
    assert.deepEqual(shown.quotes, []);
    assert.equal(text.split('round 1 (#8401)').length - 1, 1, 'its title appears once');
    assert.equal(repeatsTitle('commit 6f02fbc: refactor!: move load_all_events (#187)', 'refactor!: move load_all_events (#187)'), true);
    assert.equal(repeatsTitle('Without the recomputation, peers stay excluded.', 'fix(blocksync): recompute maxPeerHeight'), false);
  });

  it('with no reason anywhere, the sources that name the symbol are still listed', () => {
    const r = { ...result([adr(), commit(1), commit(2)]), items: [commit(1), commit(2)] } as WhyIsThisResult;
    const { data } = fitWhy({ ...r, lead: undefined } as unknown as WhyIsThisResult, 8, 800);
    assert.equal(data.why.found, false);
    assert.deepEqual(data.documents.map((d) => d.ref), ['commit 1abcdef', 'commit 2abcdef']);
  });
});

describe('why_is_this source headings say each thing once', () => {
  // The answer's first lines name the symbol in full; a heading that names it again, and its file twice, costs an agent tokens for nothing.
  function comment(line: number, text: string): WhyItem {
    const document: DocumentRef = { id: -line, source: `${target.path}#L${line}`, kind: 'doc', title: `comment of ${target.qname}`, path: target.path };
    const quote = { document, quote: text, line };
    return { category: 'docstring', document, tier: 'exact', relation: 'self', hops: 1, anchors: [{ entity: target.qname, entityType: 'code', tier: 'exact', symbol: { sid: target.sid, qname: target.qname }, relation: 'self', reason: `a comment in it at ${target.path}:${line}` }], excerpts: [quote], reasons: [{ quote, score: 1, tie: 1, constraint: false }], extractedBy: 'code comment' };
  }

  it('heads a comment of the symbol with its file once and its line, not its name', () => {
    const r = result([adr(), comment(52, 'The partner rejects a split batch, so the size is fixed before submission.')]);
    const { text } = fitWhy(r, 8, 800);
    const heading = text.split('\n').find((l) => l.startsWith('docstring — '));
    assert.equal(heading, 'docstring — comment in ledger/ledger.go [exact: a comment in it at line 52]');
  });

  it('names a document\'s anchor as written, without the symbol it denotes when that is the symbol asked about', () => {
    const item = adr();
    const anchored: WhyItem = { ...item, anchors: [{ entity: 'settle the ledger', entityType: 'concept', tier: 'weak', symbol: { sid: target.sid, qname: target.qname }, relation: 'self', reason: '' }], tier: 'weak' };
    const { text } = fitWhy(result([anchored]), 8, 800);
    assert.ok(text.includes('[weak: "settle the ledger" — names a concept spanning it and other symbols — verify]'), text.split('\n').find((l) => l.startsWith('decision — ')));
    assert.ok(!text.includes(`→ ${target.qname}`));
  });
});
