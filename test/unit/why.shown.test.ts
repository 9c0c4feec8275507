import * as assert from 'node:assert/strict';
import type { DocumentRef } from '../../src/core/knowledge/quotes.js';
import { selectShown, type WhyItem } from '../../src/core/knowledge/why.js';

/*
 * Which sources an answer shows within its limit: a comment inside the
 * symbol's own code is its authors' words about how it is, so a limit full of
 * weakly linked commits that give a reason never pushes it out, and it stays
 * behind every source that gives one; its doc comment, which says what it
 * does, competes like any other source.
 */

const target = { sid: 'py pkg/timeouts.SampleTimeout.', qname: 'pkg.timeouts.SampleTimeout' };

function commit(k: number, tier: WhyItem['tier']): WhyItem {
  const document: DocumentRef = { id: 100 + k, source: `git:${k}abcdef`, kind: 'commit', title: `feat: tune the samplers, part ${k}`, ref: `commit ${k}abcdef` };
  const quote = { document, quote: `The samplers must not block the sync loop, part ${k}, because a blocked loop stalls every peer.` };
  return {
    category: 'commit', document, tier, relation: 'self', hops: 1,
    anchors: [{ entity: 'SampleTimeout', entityType: 'history', tier, symbol: target, relation: 'self', reason: 'its message names it' }],
    excerpts: [quote], reasons: [{ quote, score: 1.2, tie: 0.4, constraint: false }], extractedBy: 'git log',
  };
}

function ownComment(line = 12): WhyItem {
  const document: DocumentRef = { id: -line, source: `pkg/timeouts.py#L${line}`, kind: 'doc', title: 'comment of pkg.timeouts.SampleTimeout', path: 'pkg/timeouts.py' };
  const quote = { document, quote: 'SampleTimeout = approximate block time * max amount of catchup workers', line };
  return {
    category: 'docstring', document, tier: 'exact', relation: 'self', hops: 1,
    anchors: [{ entity: target.qname, entityType: 'code', tier: 'exact', symbol: target, relation: 'self', reason: `a comment in it at pkg/timeouts.py:${line}` }],
    excerpts: [quote], reasons: [], extractedBy: 'code comment',
  };
}

/** The symbol's doc comment, which says what it does. */
function docComment(): WhyItem {
  const document: DocumentRef = { id: -2, source: 'pkg/timeouts.py#L10', kind: 'doc', title: 'doc comment of pkg.timeouts.SampleTimeout', path: 'pkg/timeouts.py' };
  const quote = { document, quote: 'The timeout of one sample.', line: 10 };
  return {
    category: 'docstring', document, tier: 'exact', relation: 'self', hops: 1,
    anchors: [{ entity: target.qname, entityType: 'code', tier: 'exact', symbol: target, relation: 'self', reason: 'its doc comment at pkg/timeouts.py:10' }],
    excerpts: [quote], reasons: [], extractedBy: 'docstring',
  };
}

function mention(k: number): WhyItem {
  const document: DocumentRef = { id: 200 + k, source: `docs/notes-${k}.md`, kind: 'doc', title: `Notes ${k}`, path: `docs/notes-${k}.md` };
  const quote = { document, quote: `SampleTimeout is listed in the table of settings (${k}).` };
  return {
    category: 'note', document, tier: 'weak', relation: 'self', hops: 1,
    anchors: [{ entity: 'SampleTimeout', entityType: 'search', tier: 'weak', symbol: target, relation: 'self', reason: 'names it' }],
    excerpts: [quote], reasons: [], extractedBy: 'name search',
  };
}

describe('the sources why_is_this shows within its limit', () => {
  it('keeps the symbol’s own comment when more sources than the limit give a reason, after them', () => {
    const reasons = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((k) => commit(k, k <= 2 ? 'exact' : 'weak'));
    const items = [...reasons, ownComment(), mention(1), mention(2)];
    const shown = selectShown(items, 8);
    assert.equal(shown.length, 8);
    assert.deepEqual(shown.map((i) => i.document.source), [...reasons.slice(0, 7).map((i) => i.document.source), 'pkg/timeouts.py#L12']);
  });

  it('lists what merely names the symbol, at most three, after its own comment', () => {
    const items = [commit(1, 'exact'), mention(1), ownComment(), mention(2), mention(3), mention(4)];
    const shown = selectShown(items, 8);
    assert.deepEqual(shown.map((i) => i.document.source), ['git:1abcdef', 'pkg/timeouts.py#L12', 'docs/notes-1.md', 'docs/notes-2.md', 'docs/notes-3.md']);
  });

  it('shows only sources that give a reason when there is no comment in its code, its doc comment included', () => {
    const reasons = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((k) => commit(k, 'exact'));
    const shown = selectShown([...reasons, docComment(), mention(1)], 8);
    assert.deepEqual(shown, reasons.slice(0, 8));
  });

  it('keeps three of its own comments, not more, when sources that give a reason would fill the limit', () => {
    // A model class has a comment on every field: they must not push out the commits and records that say why.
    const reasons = [1, 2, 3, 4, 5, 6].map((k) => commit(k, 'exact'));
    const comments = [20, 30, 40, 50, 60].map((line) => ownComment(line));
    const shown = selectShown([...reasons, ...comments], 8);
    assert.deepEqual(shown.map((i) => i.document.source), [...reasons.slice(0, 5).map((i) => i.document.source), 'pkg/timeouts.py#L20', 'pkg/timeouts.py#L30', 'pkg/timeouts.py#L40']);
    // With nothing else to show, every comment has a place.
    assert.equal(selectShown(comments, 8).length, 5);
  });
});
