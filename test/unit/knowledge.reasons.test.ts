import * as assert from 'node:assert/strict';
import { offlineReport } from '../../src/core/knowledge/offline.js';
import { bestSentences, candidates, containsInverted, literalOf, proseForms, isWarning, rankSentences, stringLiteralOf, stringValueForms, subjectSaysTitle, tieMatcher, TIE_KINDS, topicWords, valueForms, type Ties } from '../../src/core/knowledge/reasons.js';
import { quoteFrom } from '../../src/core/knowledge/quotes.js';
import { Report } from '../../src/core/knowledge/schemas.js';
import { affixOf, bandWeights, isFocused, nameBody, namesPullRequest } from '../../src/core/knowledge/why.js';
import { reached } from '../../src/core/knowledge/whyScope.js';
import { codeSources, tiesOf } from '../../src/core/knowledge/whyCode.js';
import type { Reached } from '../../src/core/knowledge/whyScope.js';
import { tempDir, write } from '../helpers/fixtures.js';
import { symbolText } from '../../src/core/knowledge/sources/codeNotes.js';
import { pullRequestOf, pullRequestsLinked } from '../../src/core/knowledge/sources/lineHistory.js';

/* Reason finding within one document, the code's own notes, and reports that never fail on size. */

const ADR = `---
title: Settlement timeout
status: accepted
---
# ADR-0012: Gateway timeout of 90 seconds

- Status: Accepted
- Date: 2024-05-02

## Context

The clearing partner answers within 60 seconds, but its SLA allows it up to 80 seconds under load.

## Decision

We set \`GatewayClient.TIMEOUT_SECONDS = 90\` so that a slow but valid answer is never abandoned.

\`\`\`ts
static readonly TIMEOUT_SECONDS = 90;
\`\`\`

A 90-second timeout must outlast the partner's 80-second limit, otherwise an accepted instruction looks failed and is resubmitted.

## References

- [Partner SLA](https://example.com/sla)
`;

const ties: Ties = {
  names: ['GatewayClient.TIMEOUT_SECONDS', 'TIMEOUT_SECONDS'],
  phrases: proseForms('TIMEOUT_SECONDS'),
  values: valueForms(literalOf('static readonly TIMEOUT_SECONDS = 90;')!, 'TIMEOUT_SECONDS'),
  places: ['GatewayClient.ts'],
  neighbours: ['GatewayClient'],
};

describe('reason finding', () => {
  it('never offers front matter, titles, status and date lines, code blocks or link lists as a quote', () => {
    const texts = candidates(ADR).map((c) => c.text);
    assert.ok(texts.length >= 3, texts.join(' | '));
    for (const t of texts) assert.doesNotMatch(t, /^(title:|status:|- Status|- Date|# ADR|static readonly|- \[Partner)/, t);
  });

  it('never offers a markdown link reference definition as a quote, however long its label', () => {
    const doc = [
      '## Decision',
      '',
      'Envoy Gateway watches every resource an extension introduces, so that the two never hold state to synchronize.',
      '',
      '[gw_api]: https://gateway-api.sigs.k8s.io',
      '[BackendObjectReference Extension]: https://gateway-api.sigs.k8s.io/guides/#approach-to-extensibility "Extensibility"',
      '[internal listeners]: <https://www.envoyproxy.io/docs/envoy/latest/internal_listener>',
    ].join('\n');
    assert.deepEqual(
      candidates(doc).map((c) => c.text),
      ['Envoy Gateway watches every resource an extension introduces, so that the two never hold state to synchronize.'],
    );
  });

  it('ranks the constraint with its numbers and the decision clause first, tied by name and by value', () => {
    const best = bestSentences(rankSentences(candidates(ADR), tieMatcher(ties)), 3);
    const quoted = best.map((b) => b.text).join(' | ');
    assert.match(quoted, /must outlast the partner's 80-second limit/);
    assert.match(quoted, /so that a slow but valid answer is never abandoned/);
    const constraint = best.find((b) => /80-second/.test(b.text))!;
    assert.equal(constraint.constraint, true);
    assert.match(constraint.tiedBy ?? '', /value|names/);
  });

  it('keeps the sentences within a fifth of the best one, up to the number asked for; an untied aside is not one of them', () => {
    const doc = [
      '## Context',
      '',
      'The gateway client module sits next to the settlement service in the same folder.',
      '',
      '## Decision',
      '',
      'We set `GatewayClient.TIMEOUT_SECONDS = 90` because the partner may take 80 seconds under load.',
      '',
      'A shorter timeout would abandon valid answers, so it must not drop below 90 seconds.',
      '',
      'It must outlast the partner limit, otherwise an accepted instruction is resubmitted.',
      '',
    ].join('\n');
    const ranked = rankSentences(candidates(doc), tieMatcher(ties));
    const texts = bestSentences(ranked, 6).map((b) => b.text);
    // The sentence that names the timeout leads. After it, the sentences are chosen by how much they explain: "A shorter timeout …"
    // (a consequence, a limit with its number) before "It must outlast …", which is tied more (it points back to the timeout) but explains less.
    assert.deepEqual(texts.map((t) => t.slice(0, 20)), ['We set `GatewayClien', 'A shorter timeout wo', 'It must outlast the '], texts.join(' | '));
    assert.equal(bestSentences(ranked, 2).length, 2);
  });

  it("past a source's first sentence, one that explains more outranks one that repeats the name; one about other code counts half", () => {
    const doc = [
      '## Decision',
      '',
      'We set `GatewayClient.TIMEOUT_SECONDS = 90` because the partner may take 80 seconds under load.',
      '',
      '`GatewayClient.TIMEOUT_SECONDS` should be read from the settings file when the client starts.',
      '',
      'The `SandboxGateway` is registered only in tests, so that production code can never construct it by accident.',
      '',
      'A shorter wait would abandon answers the partner still sends, because under load it answers after 80 seconds.',
      '',
    ].join('\n');
    const ranked = rankSentences(candidates(doc), tieMatcher(ties), { aboutIt: true, names: ties.names });
    // Ranked alone, the reason about the timeout comes last: the sentences that name the timeout again or name other code outscore it on their ties.
    assert.deepEqual(ranked.map((r) => r.text.slice(0, 12)), ['We set `Gate', '`GatewayClie', 'The `Sandbox', 'A shorter wa']);
    assert.ok(ranked[2]!.aboutOther, 'the sandbox sentence names other code and not the timeout');
    assert.ok(!ranked[3]!.aboutOther);
    // Chosen as reasons: the sentence that names it leads, then the one that explains most; the sandbox sentence, about other code, is not one of three.
    assert.deepEqual(bestSentences(ranked, 3).map((b) => b.text.slice(0, 12)), ['We set `Gate', 'A shorter wa', '`GatewayClie']);
  });

  it('a list item is not tied by the item before it; the sentence after one that names it, in its paragraph, still is', () => {
    const doc = [
      '## Consequences',
      '',
      '- `GatewayClient.TIMEOUT_SECONDS` is read when the client starts.',
      '- Nightly exports are compressed because the archive bucket is billed by size.',
      '',
      'We set `GatewayClient.TIMEOUT_SECONDS = 90` in the settings file.',
      'Operators change it without a release, since the partner moves its limit twice a year.',
      '',
    ].join('\n');
    const ranked = rankSentences(candidates(doc), tieMatcher(ties));
    const of = (start: string) => ranked.find((r) => r.text.startsWith(start))!;
    // The next item is another consequence: the item naming the timeout lends it nothing.
    assert.equal(of('- Nightly exports').signals.lent, 0);
    assert.equal(of('- Nightly exports').tiedBy, undefined);
    // A sentence after the one that names it, in its paragraph, is still about it.
    assert.ok(of('Operators change').signals.lent > 0);
    assert.equal(of('Operators change').tiedBy, 'next to a sentence that names it');
  });

  it('a subsection without a telling heading belongs to its parent section: markdown levels and reStructuredText underlines', () => {
    const md = '## Decision\n\n### Delete state entry if amount is zero\n\nIf this happens, then the state entry will be deleted, since the bank module prunes zero balances.\n\n## Notes\n\n### Later\n\nThis sentence sits under a heading that says nothing at all.\n';
    const c = candidates(md);
    assert.deepEqual(c.map((x) => x.section), ['decision', 'other']);
    const rst = 'Decision\n========\n\nSub part\n--------\n\nWe keep one topic per event type because consumers must see events in order.\n\nOther\n=====\n\nNothing in this part of the record is about the decision at all.\n';
    assert.deepEqual(candidates(rst).map((x) => x.section), ['decision', 'other']);
  });

  it('a comma before "since" is a cause ("…will be deleted, since the module prunes…"); a year after it is not', () => {
    const ranked = rankSentences(candidates('## Context\n\nThe state entry for this denomination will be deleted, since Cosmos SDK prunes empty balances.\n\nThe state entry for this denomination has existed since 2021 in every release.\n'), tieMatcher(ties));
    const byText = (re: RegExp) => ranked.find((r) => re.test(r.text))!;
    assert.ok(byText(/deleted, since/).explains > byText(/since 2021/).explains * 2, ranked.map((r) => `${r.explains.toFixed(2)} ${r.text}`).join(' | '));
  });

  it('the name of what a getter or setter is about ties sentences too: SetTotalEscrowForDenom → `totalEscrowForDenom/{denom}`', () => {
    const t = tiesOf({ sid: 's', name: 'SetTotalEscrowForDenom', qname: 'keeper.Keeper.SetTotalEscrowForDenom', kind: 'method', path: 'modules/apps/transfer/keeper/keeper.go', line: 241 } as never, [], undefined);
    assert.ok(t.names.includes('TotalEscrowForDenom') && t.names.includes('totalEscrowForDenom'), t.names.join(', '));
    const match = tieMatcher(t);
    assert.ok(match('It is stored in state in an entry keyed by the denomination: `totalEscrowForDenom/{denom}`.').tie >= 2);
    assert.equal(match('GetTotalEscrowForDenom reads it back.').tie, 0);
  });

  it('affixed names: the message, event or handler of the same operation, never a test or a longer unrelated name', () => {
    assert.equal(affixOf('RecoverClient', 'MsgRecoverClient'), 'Msg');
    assert.equal(affixOf('RecoverClient', 'RecoverClientRequest'), 'Request');
    assert.equal(affixOf('RecoverClient', 'EventTypeRecoverClient'), 'EventType');
    assert.equal(affixOf('RecoverClient', 'TestRecoverClient'), undefined);
    assert.equal(affixOf('RecoverClient', 'RecoverClientTest'), undefined);
    assert.equal(affixOf('RecoverClient', 'UnrecoverableClient'), undefined);
    assert.equal(affixOf('RecoverClient', 'RecoverClientState'), undefined);
    assert.equal(affixOf('RecoverClient', 'RecoverClient'), undefined);
  });

  it('reads literal values and their prose forms: = 3 is "three attempts", 90 * time.Second is "90 seconds"', () => {
    assert.deepEqual(literalOf('MAX_ATTEMPTS = 3'), { value: 3 });
    assert.deepEqual(literalOf('const Timeout = 90 * time.Second'), { value: 90, unit: 's' });
    assert.deepEqual(literalOf('private static final Duration WAIT = Duration.ofSeconds(90);'), { value: 90, unit: 's' });
    const three = valueForms({ value: 3 }, 'MAX_ATTEMPTS');
    for (const f of ['3', 'three', 'three attempts', '3 attempts']) assert.ok(three.includes(f), `${f} in ${three.join(', ')}`);
    const ms = valueForms({ value: 240_000 }, 'GATEWAY_TIMEOUT_MS');
    for (const f of ['240 seconds', '4 minutes', '240-second']) assert.ok(ms.includes(f), `${f} in ${ms.join(', ')}`);
  });

  it('ties a duration written the short way: time.Second * 90 is "90s" and "1m30s", not the 1990s', () => {
    const lit = literalOf('defaultACMEHTTPTimeout = time.Second * 90');
    assert.deepEqual(lit, { value: 90, unit: 's' });
    const forms = valueForms(lit!, 'defaultACMEHTTPTimeout');
    for (const f of ['90s', '1m30s', '90 seconds']) assert.ok(forms.includes(f), `${f} in ${forms.join(', ')}`);
    for (const f of ['90m', '90ms']) assert.ok(!forms.includes(f), `${f} in ${forms.join(', ')}`);
    for (const f of ['5m', '5min', '300s']) assert.ok(valueForms({ value: 300_000 }, 'POLL_INTERVAL_MS').includes(f), f);
    const match = tieMatcher({ names: [], phrases: [], values: forms, places: [], neighbours: [] });
    assert.ok(match('The proposed value for the ACME HTTP timeout is 90s.').tie > 0, 'the short form ties');
    assert.equal(match('Most of these sites were built in the 1990s.').tie, 0, 'a decade is not the value');
  });

  it('reStructuredText: headings, directives and literal blocks are structure, not sentences', () => {
    const rst = 'Decision\n--------\n\nWe keep one topic per event type because consumers must see events in order.\n\n.. code-block:: python\n\n   TOPIC = "events"\n\nExample::\n\n    configure(topic)\n';
    const c = candidates(rst);
    assert.equal(c.length, 1, c.map((x) => x.text).join(' | '));
    assert.equal(c[0]!.section, 'decision');
  });
});

describe("the code's own notes", () => {
  it('reads a JSDoc block above a method, skipping its decorators, and a TODO inside it', () => {
    const ts = ['class A {', '  /**', '   * Retries at most three times: the partner recalls duplicates for 15 minutes.', '   * @param n attempts', '   */', '  @Traced()', '  retry(n: number) {', '    // TODO: drop once the partner supports idempotency keys', '    return n;', '  }', '}'].join('\n');
    const t = symbolText(ts, 'src/a.ts', 7, 10);
    assert.equal(t.notes[0]!.kind, 'docstring');
    assert.match(t.notes[0]!.text, /^Retries at most three times/);
    assert.doesNotMatch(t.notes[0]!.text, /@param/);
    assert.equal(t.notes[0]!.line, 2);
    const todo = t.notes.find((n) => n.tag === 'TODO')!;
    assert.match(todo.text, /idempotency keys/);
    assert.equal(todo.line, 8);
  });

  it("reads Java's Markdown doc comments (`///`) without their tags, above the method and inside its class", () => {
    const java = [
      'class ResultOrderingManager {',
      '    /// Establish the last verified block if it is not yet known.',
      '    /// It is possible to create a small gap because of a race condition.',
      '    ///',
      '    /// @param lastVerifiedBlock the last successfully verified block reference',
      '    /// @see VerificationConfig',
      '    private void checkValidNextExpectedBlock(long lastVerifiedBlock) {',
      '        lastVerifiedBlock++;',
      '    }',
      '}',
    ].join('\n');
    const method = symbolText(java, 'a/ResultOrderingManager.java', 7, 9);
    assert.equal(method.notes[0]!.text, 'Establish the last verified block if it is not yet known.\nIt is possible to create a small gap because of a race condition.\n\nsee: VerificationConfig');
    const inside = symbolText(java, 'a/ResultOrderingManager.java', 1, 10).notes.find((n) => n.kind === 'comment');
    assert.ok(inside, 'the comment inside the class is read');
    assert.doesNotMatch(inside.text, /@param|lastVerifiedBlock the last/);
  });

  it('does not read comment lines that instruct a tool (code-generator markers, directives, linter switches) as prose', () => {
    const go = [
      '// BackendEndpoint describes a backend endpoint, which can be either a fully-qualified domain name or an IP address,',
      '// because a backend may live outside the cluster.',
      '// +kubebuilder:validation:XValidation:rule="(has(self.fqdn) || has(self.ip))",message="one of fqdn or ip must be specified"',
      '// +optional',
      '//nolint:revive',
      'type BackendEndpoint struct {',
      '\t// +k8s:deepcopy-gen=true',
      '\t//go:generate stringer -type=Kind',
      '\t// eslint-disable-next-line no-unused-vars',
      '\tFQDN string',
      '}',
    ].join('\n');
    const t = symbolText(go, 'api/v1/backend.go', 6, 11);
    assert.equal(t.notes[0]!.text, 'BackendEndpoint describes a backend endpoint, which can be either a fully-qualified domain name or an IP address,\nbecause a backend may live outside the cluster.');
    assert.ok(!t.notes.some((n) => /kubebuilder|deepcopy|go:generate|nolint|eslint/.test(n.text)), t.notes.map((n) => n.text).join(' | '));
    // A line that only starts with a plus sign and a number is prose.
    const plus = symbolText('// +1 retry keeps the partner within its rate limit.\nconst Retries = 1\n', 'pkg/r.go', 2, 2);
    assert.match(plus.notes[0]!.text, /\+1 retry keeps the partner within its rate limit/);
  });

  it('reads a Python docstring and Go doc comments', () => {
    const py = 'def settle(x):\n    """Settle once.\n\n    Never retried: the rail may have accepted it.\n    """\n    return x\n';
    const p = symbolText(py, 'pkg/mod.py', 1, 6);
    assert.match(p.notes[0]!.text, /Never retried: the rail may have accepted it\./);
    const go = '// Timeout outlasts the partner SLA of 80 seconds.\n// Do not lower it.\nconst Timeout = 90 * time.Second\n';
    const g = symbolText(go, 'pkg/client.go', 3, 3);
    assert.match(g.notes[0]!.text, /outlasts the partner SLA of 80 seconds\.\nDo not lower it\./);
    assert.deepEqual(literalOf(g.declaration), { value: 90, unit: 's' });
  });

  it("reads a Python docstring without its field lists, as a Javadoc comment without its tags: reST fields, Google's and numpy's sections", () => {
    const q = '"""';
    const rest = [
      'def next_component(queue, visits):',
      `    ${q}`,
      '    Returns the next runnable component.',
      '',
      '    Keeps the queue order: callers rely on it.',
      '',
      '    :param queue: Priority queue of component names,',
      '        ordered by priority.',
      '    :param visits: Current visits.',
      '    :returns: The next component.',
      '    :raises PipelineMaxComponentRuns: If it ran too often.',
      `    ${q}`,
      '    return queue',
    ].join('\n');
    const r = symbolText(rest, 'pipeline.py', 1, 13).notes[0]!;
    assert.equal(r.text, 'Returns the next runnable component.\n\nKeeps the queue order: callers rely on it.');
    assert.equal(r.line, 2);
    // A field's text continued flush with it is the field's, not a fragment of prose.
    const flush = `def f(p):\n    ${q}Create it.\n\n    :param p: The prompt. If not provided, the prompt is\n    omitted, and the default is used.\n    :param k: Other.\n\n    Kept apart because providers differ.\n    ${q}\n`;
    assert.equal(symbolText(flush, 'f.py', 1, 9).notes[0]!.text.replace(/\n+/g, ' | '), 'Create it. | Kept apart because providers differ.');
    const google = `def g(x):\n    ${q}Compute g.\n\n    Args:\n        x: the x.\n            more about x.\n\n    Returns:\n        The result.\n\n    Note:\n        Cached because the backend is slow.\n    ${q}\n    return x\n`;
    assert.equal(symbolText(google, 'g.py', 1, 14).notes[0]!.text.replace(/\n+/g, ' | '), 'Compute g. | Note: |     Cached because the backend is slow.');
    const numpy = `def h(y):\n    ${q}Compute h.\n\n    Parameters\n    ----------\n    y : int\n        The y.\n\n    Returns\n    -------\n    int\n        The value.\n\n    Notes\n    -----\n    Cached since the backend limits calls.\n    ${q}\n    return y\n`;
    assert.equal(symbolText(numpy, 'h.py', 1, 18).notes[0]!.text.replace(/\n+/g, ' | '), 'Compute h. | Notes | ----- | Cached since the backend limits calls.');
  });

  it('reads a JSDoc block a blank line above its function, as TypeScript attaches it, but not a licence header or a plain comment', () => {
    const js = ["import React from 'react';", '', '/**', ' * An svg with an "img" role must have a text alternative.', ' * - focusable is set to false on the svg in all cases as a workaround for an ie11 bug', ' */', '', 'function Icon() {', '  return null;', '}'].join('\n');
    const t = symbolText(js, 'src/Icon/index.jsx', 8, 10);
    assert.equal(t.notes[0]?.kind, 'docstring');
    assert.match(t.notes[0]!.text, /workaround for an ie11 bug/);
    assert.equal(t.notes[0]!.line, 3);
    const licensed = ['/**', ' * Copyright 2024 Acme. Licensed under the Apache License, Version 2.0.', ' */', '', 'export function settle() {}'].join('\n');
    assert.equal(symbolText(licensed, 'src/settle.ts', 5, 5).notes.length, 0);
    const plain = ['const a = 1;', '// counts the retries', '', 'function b() {}'].join('\n');
    assert.equal(symbolText(plain, 'src/b.ts', 4, 4).notes.length, 0);
    const headerOfFile = ['/**', ' * Settlement helpers.', ' */', '', 'export function settle() {}'].join('\n');
    assert.equal(symbolText(headerOfFile, 'src/settle.ts', 5, 5).notes.length, 0, "a block on the file's first line is its header");
  });

  it('names the pull request a commit came from', () => {
    assert.equal(pullRequestOf('Lower settlement max attempts to 3 (#142)\n\nbody'), 'PR #142');
    assert.equal(pullRequestOf('Merge pull request #7 from a/b'), 'PR #7');
    assert.equal(pullRequestOf('plain message'), undefined);
  });

  it('reads the pull requests a message links to by address, other than its own', () => {
    const message = 'Add tenant resolver (#3486)\n\nAs described by the [proposal].\n\n[proposal]: https://github.com/cortexproject/cortex/pull/3364\nSee also https://github.com/o/r/pull/3486 and /pull/33640.';
    assert.deepEqual(pullRequestsLinked(message, pullRequestOf(message)), ['PR #3364', 'PR #33640']);
    assert.deepEqual(pullRequestsLinked('Fix the pool (#12)\n\nNo links here, only #45.'), []);
  });
});

describe('community reports over the size limits', () => {
  it('a parent of hundreds of communities gets a report, its summary within the limit', () => {
    const children = Array.from({ length: 400 }, (_, i) => ({ title: `Community ${i} about settlement retries, gateway timeouts and the partner recall window`, summary: 's', rating: 5, findings: [{ summary: 'f', explanation: 'e', entities: [], relationships: [] }] }));
    const report = offlineReport({ level: 0, entities: [{ id: 1, name: 'RetryPolicy', type: 'component', description: 'd', degree: 3, docs: 2 }], relationships: [], children });
    const parsed = Report.safeParse(report);
    assert.ok(parsed.success, parsed.success ? '' : parsed.error.message);
    assert.ok(report.summary.length <= 6000, String(report.summary.length));
    assert.match(report.summary, /and \d+ more/);
  });

  it("a model's summary over the limit is cut, not rejected", () => {
    const parsed = Report.parse({ title: 't'.repeat(400), summary: 'word '.repeat(3000), rating: 5, findings: Array.from({ length: 20 }, () => ({ summary: 's', explanation: 'e' })) });
    assert.ok(parsed.summary.length <= 6000 && parsed.summary.endsWith('…'));
    assert.ok(parsed.title.length <= 300);
    assert.equal(parsed.findings.length, 12);
  });
});

describe('a knowledge run that stops early', () => {
  it('is not a success: exit 1, and the report says what to do', async () => {
    const { knowledgeExitCode, renderKnowledgeIndexReport } = await import('../../src/cli/commands/knowledge.js');
    const base = {
      runId: 1, mode: 'offline' as const, model: 'offline', embedder: 'hash', chunks: 0, entities: 0, relationships: 0,
      documents: { total: 0, added: 0, changed: 0, removed: 0, unchanged: 0, byKind: {}, words: 0 },
      communities: { total: 0, levels: 0, reported: 0 }, reports: { generated: 0, reused: 0, dropped: 0 },
      links: { exact: 0, strong: 0, weak: 0, unresolved: 0 }, workflows: [], ms: 1,
      spend: { calls: 0, cachedCalls: 0, retries: 0, repaired: 0, dropped: 0, inputTokens: 0, outputTokens: 0 },
    };
    assert.equal(knowledgeExitCode({ ...base, status: 'done' }), 0);
    const failed = { ...base, status: 'failed' as const, message: 'community_reports failed: boom' };
    assert.equal(knowledgeExitCode(failed), 1);
    assert.match(renderKnowledgeIndexReport(failed), /Knowledge run failed: community_reports failed: boom\nWhat to do: run `tenure knowledge index` again/);
    const stopped = { ...base, status: 'stopped' as const, message: 'Token budget reached.' };
    assert.equal(knowledgeExitCode(stopped), 1);
    assert.match(renderKnowledgeIndexReport(stopped), /What to do: run `tenure knowledge index` again with a larger --budget/);
  });
});

describe('reaching the reason in other words', () => {
  it('a name in other letter case ties a sentence (`GuEC2App` for GuEc2App), less than the name as written', () => {
    const match = tieMatcher({ names: ['GuEc2App'], phrases: proseForms('GuEc2App'), values: [], places: [], neighbours: [] });
    const other = match('For example, `GuEC2App` and `GuLambdaApp` patterns.');
    const same = match('For example, `GuEc2App` and `GuLambdaApp` patterns.');
    assert.ok(other.tie >= 2 && other.tie < same.tie, `${other.tie} < ${same.tie}`);
    assert.match(other.tiedBy ?? '', /other letter case/);
    // Short names are not matched across case: `Id` is not `ID`.
    assert.equal(tieMatcher({ names: ['Rate'], phrases: [], values: [], places: [], neighbours: [] })('The RATE is set daily by the desk.').tie, 0);
  });

  it('a fraction is a share in prose: `= 0.70` is "70%" and "70 percent"', () => {
    assert.deepEqual(literalOf('var gasPriceEstimationThreshold = 0.70'), { value: 0.7 });
    const forms = valueForms({ value: 0.7 }, 'gasPriceEstimationThreshold');
    for (const f of ['70%', '70 percent', 'seventy percent']) assert.ok(forms.includes(f), `${f} in ${forms.join(', ')}`);
    const match = tieMatcher({ names: ['gasPriceEstimationThreshold'], phrases: [], values: forms, places: [], neighbours: [] });
    assert.match(match("Otherwise, if the mempool transactions can't fill more than 70% of the max block size, the minimum gas price will be returned.").tiedBy ?? '', /its value 70%/);
    assert.equal(match('It fills 170% of the block.').tie, 0);
  });

  it('two words of the name the other way round with "of": "the state of all toggles" names ToggleStateReport\'s toggle state', () => {
    assert.equal(containsInverted(['return', 'the', 'state', 'of', 'all', 'toggl'], ['toggl', 'state']), true);
    assert.equal(containsInverted(['the', 'state', 'of', 'the', 'art', 'toggl'], ['toggl', 'state']), false);
    const match = tieMatcher({ names: ['ToggleStateReport'], phrases: proseForms('ToggleStateReport'), values: [], places: [], neighbours: [] });
    const r = match('We will expose a new REST endpoint that would return the state of all toggles in the application.');
    assert.ok(r.tie > 0, 'tied');
    assert.match(r.tiedBy ?? '', /other way round/);
  });

  it('a name\'s abbreviations meet the words prose spells out, both ways: StoredMonHostEnvVars and "environment variable", "max retries" and MAXIMUM_RETRIES', () => {
    const stored = tieMatcher({ names: ['StoredMonHostEnvVars'], phrases: proseForms('StoredMonHostEnvVars'), values: [], places: [], neighbours: [] });
    const r = stored('This can be achieved by storing the most up-to-date mon host members in a ConfigMap and setting this value as a container environment variable.');
    assert.equal(r.kinds! & (1 << TIE_KINDS.indexOf('partial')), 1 << TIE_KINDS.indexOf('partial'), 'tied by part of its name');
    assert.match(r.tiedBy ?? '', /"(?:host environment|environment variable|mon host)"/);
    const maximum = tieMatcher({ names: ['MAXIMUM_RETRIES'], phrases: proseForms('MAXIMUM_RETRIES'), values: [], places: [], neighbours: [] });
    assert.match(maximum('We cap the max retries so that a broken peer cannot hold a worker.').tiedBy ?? '', /names it as "maximum retry"/);
    // A word with two readings is left as written: "auth" is authentication or authorization.
    assert.equal(tieMatcher({ names: ['AuthConfig'], phrases: proseForms('AuthConfig'), values: [], places: [], neighbours: [] })('The authentication configuration is read once.').tie, 0);
  });

  it('the items of a list of reasons belong to the sentence that introduces it: "SettingToggle will allow …, with the following benefits:"', () => {
    const doc = [
      'Decision',
      '--------',
      '',
      'We will introduce a simple wrapping class that can be used to explicitly define a Django Setting toggle.',
      '',
      'SettingToggle will allow for explicit toggle definitions, with the following benefits:',
      '',
      '* The definition can live with the app where it will be used, rather than in a common module.',
      '* The explicit definition provides a single place to set a consistent default value.',
      '',
      'Steps to follow later:',
      '',
      '* Write the class and publish a release of the package.',
    ].join('\n');
    const list = candidates(doc);
    const item = list.find((c) => c.text.includes('single place'))!;
    assert.equal(list[item.leadIn!]!.text.includes('following benefits'), true);
    // The next list has its own lead-in ("Steps to follow later:" is too short to be a candidate sentence, so the item has none).
    assert.equal(list.find((c) => c.text.includes('publish a release'))!.leadIn, undefined);
    const ranked = rankSentences(list, tieMatcher({ names: ['SettingToggle'], phrases: proseForms('SettingToggle'), values: [], places: [], neighbours: [] }));
    const at = (s: string) => ranked.findIndex((r) => r.text.includes(s));
    assert.ok(ranked.find((r) => r.text.includes('single place'))!.tie > 0, 'the item is tied through its lead-in');
    assert.ok(at('single place') < at('publish a release'), 'a reason item ranks above an untied item of another list');
  });

  it('a section headed "Why …" explains, and its subsections too; a heading that names the symbol ties the sentences under it', () => {
    const doc = [
      '# Stateful Resources',
      '',
      'Riff-Raff protects stateful resources during a normal deployment of the stack.',
      '',
      '## Why a stateful resource might be deleted',
      '### Changes to a resource\'s Logical ID',
      '',
      'A change to a logical ID is viewed as a deletion of one resource, and creation of a new one.',
      '',
      '## Setup',
      '',
      'A change to the project layout is viewed as a new project by the build tooling.',
    ].join('\n');
    const list = candidates(doc);
    assert.equal(list.find((c) => c.text.includes('logical ID is viewed'))!.why, true);
    assert.equal(list.find((c) => c.text.includes('project layout'))!.why, undefined);
    const ranked = rankSentences(list, tieMatcher({ names: ['overrideLogicalId'], phrases: proseForms('overrideLogicalId'), values: [], places: [], neighbours: [] }));
    const under = ranked.find((r) => r.text.includes('logical ID is viewed'))!;
    const other = ranked.find((r) => r.text.includes('project layout'))!;
    assert.ok(under.tie > 0 && under.explains > other.explains, `${under.tie} ${under.explains} > ${other.explains}`);
  });

  it('a name by which a document reaches the symbol only weakly ties less than its own name', () => {
    const match = tieMatcher({ names: ['GuEc2App'], phrases: [], values: [], places: [], neighbours: [], weakNames: ['EC2App'] });
    const weak = match('For example, a `EC2App` pattern might provide an `AutoScalingGroup` and a `LoadBalancer`.');
    assert.ok(weak.tie > 0 && weak.tie < match('The `GuEc2App` pattern provides an `AutoScalingGroup`.').tie);
    assert.match(weak.tiedBy ?? '', /reaches it weakly/);
  });

  it('a document names the pull request a commit came from: "PR #6036", "pull/6036", "(#6036)", not #60361', () => {
    for (const t of ['3. **celestia-app** ([PR #6036](https://example.com)): Update the client', 'see https://github.com/o/r/pull/6036 for it', 'the signer (#6036)', 'pull request #6036 did it']) assert.equal(namesPullRequest(t, 'PR #6036'), true, t);
    for (const t of ['PR #60361 changed it', 'issue 6036 is open', 'at 6036 blocks']) assert.equal(namesPullRequest(t, 'PR #6036'), false, t);
  });

  it("a commit's subject says a record's title: every topic word, in order, in any form; a title of one topic word is said by too much", () => {
    assert.deepEqual(topicWords('RFC 0012: Time series partitioning in the compactor'), ['time', 'series', 'partitioning', 'compactor']);
    assert.equal(subjectSaysTitle('Add ingesters shuffle sharding support on the read path (#3252)', 'Shuffle sharding on the read path'), true);
    assert.equal(subjectSaysTitle('Time series partitioned in the compactors by series hash', 'Time series partitioning in compactor'), true);
    // Out of order, a word missing, or a title that is only a record's kind and one word: not said.
    assert.equal(subjectSaysTitle('Read path: shuffle sharding', 'Shuffle sharding on the read path'), false);
    assert.equal(subjectSaysTitle('Add shuffle sharding support', 'Shuffle sharding on the read path'), false);
    assert.equal(subjectSaysTitle('Scale the alertmanager', 'Design proposal: Alertmanager'), false);
  });

  it('linked sources are one band by how well they explain and how sure the link is: a decision record can come before the second commit of its lines', () => {
    const src = (kind: string, tier: 'exact' | 'strong', score: number) => ({ document: { id: score, source: kind, kind, title: kind } as never, tier, relation: 'self' as const, hops: 1 as const, reasons: [{ score } as never] });
    const commits = [src('commit', 'exact', 3), src('commit', 'exact', 2.9), src('commit', 'exact', 2.8)];
    const adr = src('adr', 'strong', 2.5);
    const w = bandWeights([...commits, adr]);
    const order = [...w.entries()].sort((a, b) => b[1] - a[1]).map(([d]) => d);
    assert.equal(order[0], commits[0], 'the best commit still leads');
    assert.equal(order.indexOf(adr), 1, 'the decision record comes next, before the second and third commits');
    // A weak source that explains well comes before a strong one that explains little; a weak one that explains as much does not.
    const strongLow = src('adr', 'strong', 1);
    const weakHigh = { ...src('design', 'strong', 2), tier: 'weak' as const };
    const strongHigh = { ...src('rfc', 'strong', 2), document: { id: 99, source: 'rfc', kind: 'rfc', title: 'rfc' } as never };
    const w2 = bandWeights([strongLow, weakHigh, strongHigh]);
    assert.ok(w2.get(weakHigh)! > w2.get(strongLow)!, 'weak 2.0 × 0.6 > strong 1.0 × 0.85');
    assert.ok(w2.get(strongHigh)! > w2.get(weakHigh)!, 'strong 2.0 > weak 2.0');
    // With the fitted ranker, its probability ranks them: a weak record whose best sentence is likely a reason
    // comes before an exact commit whose one line ties to the name and is not, whatever their hand-set scores.
    const commit = { ...src('commit', 'exact', 8), likelihood: 0.1 };
    const weakRecord = { ...src('adr', 'strong', 3.8), tier: 'weak' as const, likelihood: 0.5 };
    const w3 = bandWeights([commit, weakRecord]);
    assert.ok(w3.get(weakRecord)! > w3.get(commit)!, 'weak 0.5 × 0.6 > exact commit 0.1 × 0.85');
  });
});

describe('a string constant tied by its value', () => {
  const MADR = `# Versions in the name

In order to enable versioning, the version must be saved in a compliant way.

## Considered Options

* Version in the name
* Version in the namespace

## Decision Outcome

* Chosen Option: version in the name because it is compliant to the specification and shows the version directly in the file.

## Pros and Cons of the Options

### Version in the name

* Good, because it is consistent to the specification
* Good, because even from outside, definitions can be detected in the specific version on first sight
* Bad, because it introduces naming conventions to the naming of components: '_' are not allowed anymore

## License

Copyright (c) 2017 Contributors. This program and the accompanying materials are made available under the terms of the license.
`;

  it('reads a short string value from its declaration and writes it as prose would: quoted or as a code span, bare only when it is not a word', () => {
    assert.equal(stringLiteralOf('public static String NAME_SEPARATOR = "_";'), '_');
    assert.equal(stringLiteralOf("WIP_PREFIX = 'wip'"), 'wip');
    assert.equal(stringLiteralOf('label: "oel_publishing",'), 'oel_publishing');
    assert.equal(stringLiteralOf('MAX = 3'), undefined);
    const sep = stringValueForms('_');
    assert.ok(sep.includes("'_'") && sep.includes('`_`') && sep.includes('"_"'), sep.join(' '));
    assert.ok(!sep.includes('_'), 'a lone underscore is not a tie');
    assert.ok(!stringValueForms('wip').includes('wip'), 'a short word alone is not a tie');
    assert.ok(stringValueForms('oel_').includes('oel_'));
  });

  it("quotes the sentence that states the constant's string value ('_') for it, not the license", () => {
    const t = tieMatcher({ names: ['Version.NAME_SEPARATOR', 'NAME_SEPARATOR'], phrases: proseForms('NAME_SEPARATOR'), values: stringValueForms('_'), places: ['Version.java'], neighbours: [] });
    const best = bestSentences(rankSentences(candidates(MADR), t), 3).map((b) => b.text);
    assert.match(best[0]!, /'_' are not allowed anymore/, best.join(' | '));
  });

  it('a License or Copyright section is not prose about the decision', () => {
    assert.ok(candidates(MADR).every((c) => !/Copyright|accompanying materials/.test(c.text)), candidates(MADR).map((c) => c.text).join(' | '));
  });
});

describe('what a code comment explains', () => {
  const DOC = `Create a lower-case hex string representation of a hash digest.

The hash itself is 20-bytes by default, so 40 characters when we return it
as a hex-encoded string. We use BLAKE2b for the hashing algorithm.

DON'T JUST MODIFY THIS HASH BEHAVIOR!!! We use hashing for de-duplication
purposes. If this hash function ever changes, that deduplication will fail
because the hashing behavior won't match what's already in the database.

If we want to change this representation one day, we should create a new
function for that and do the appropriate data migration.`;

  it('the sentences after a warning say why it warns, and a stated purpose ("for de-duplication purposes") and "will fail" explain', () => {
    const t = tieMatcher({ names: ['create_hash_digest'], phrases: proseForms('create_hash_digest'), values: [], places: ['fields.py'], neighbours: [] });
    const best = bestSentences(rankSentences(candidates(DOC), t, { focused: true }), 2).map((b) => b.text.replace(/\s+/g, ' '));
    assert.deepEqual(best, ['If this hash function ever changes, that deduplication will fail because the hashing behavior won\'t match what\'s already in the database.', 'We use hashing for de-duplication purposes.']);
    const scoped = 'Note that for purposes of this ADR, an event refers to a dictionary of data that is emitted by a signal.';
    const purpose = 'We keep a hash of every file for de-duplication purposes in the store.';
    const ex = (x: string) => rankSentences(candidates(x), () => ({ tie: 0 }))[0]!.explains;
    assert.ok(ex(purpose) > ex(scoped) + 0.3, '"for purposes of this ADR" scopes, it states no purpose');
    assert.ok(isWarning("DON'T JUST MODIFY THIS HASH BEHAVIOR!!!") && isWarning('Warning: the cache is shared.') && !isWarning('We use BLAKE2b for the hashing algorithm.') && !isWarning('NOTE THIS.'));
  });

  it('a document the symbol\'s own code cites (`@ADR(19)` on it) is about it as a whole; one cited on another symbol is not', () => {
    const target = { id: 1, sid: 'java V#compareTo().', name: 'compareTo', qname: 'V.compareTo', kind: 'method' as const, path: 'V.java', line: 4 };
    const t: Ties = { names: ['V.compareTo'], phrases: [], values: [], places: [], neighbours: [] };
    const doc = { id: 9, source: 'docs/adr/0019-version-in-the-name.md', kind: 'adr' as const, title: 'Versions in the name', path: 'docs/adr/0019-version-in-the-name.md' };
    const cited = (sid: string) => {
      const r = reached(doc, 'exact', 'self', ['offline']);
      r.anchors.push({ entity: '@ADR(19)', entityType: 'citation', tier: 'exact', symbol: { sid, qname: 'V.compareTo' }, relation: 'self', reason: 'the code cites it at V.java:3' });
      return r;
    };
    assert.equal(isFocused(cited(target.sid), target, t), true);
    assert.equal(isFocused(cited('java V#other().'), target, t), false);
  });

  it('a record titled with the words of the name is about it as a whole, abbreviated or spelled out either way', () => {
    const target = { id: 1, sid: 'ts MAX_ATTEMPTS.', name: 'MAX_ATTEMPTS', qname: 'RetryPolicy.MAX_ATTEMPTS', kind: 'constant' as const, path: 'RetryPolicy.ts', line: 6 };
    const t: Ties = { names: ['RetryPolicy.MAX_ATTEMPTS'], phrases: proseForms('MAX_ATTEMPTS'), values: [], places: [], neighbours: [] };
    const titled = (title: string) => reached({ id: 9, source: 'docs/adr/0007.md', kind: 'adr' as const, title, path: 'docs/adr/0007.md' }, 'strong', 'self', ['offline']);
    assert.equal(isFocused(titled('Max attempts of a settlement'), target, t), true);
    assert.equal(isFocused(titled('The maximum number of attempts'), target, t), true);
    assert.equal(isFocused(titled('Settlement retries'), target, t), false);
  });
});

describe('searching documents by the words of a name', () => {
  it('drops the verb of a method named verb + what it is about: checkDoubleSigningRisk is searched as "double signing risk"', () => {
    assert.deepEqual(nameBody('checkDoubleSigningRisk'), ['double', 'signing', 'risk']);
    assert.deepEqual(nameBody('SetTotalEscrowForDenom'), ['total', 'escrow', 'for', 'denom']);
    assert.deepEqual(nameBody('validateBasic'), ['validate', 'basic'], 'two words keep their verb: one word alone is not what documents name');
    assert.deepEqual(nameBody('ToggleStateReport'), ['toggle', 'state', 'report']);
    assert.deepEqual(nameBody('DefaultBlocksPerEpoch'), ['blocks', 'per', 'epoch'], 'a default is named after its parameter');
  });
});

describe('a class and its constructor are one answer', () => {
  it("reads the constructor's doc comment as the class's own (exact, about it), not its other members'", () => {
    const d = tempDir('tenure-ctor-');
    try {
      const java = [
        'public class YamlReader {', // 1
        ...Array.from({ length: 250 }, (_, i) => `    private int f${i}; // field ${i}`), // 2-251: a long class, whose body comments are its members'
        '', // 3
        '    /**', // 4
        '     * Creates a new instance of the YAML reader. The reader is not thread-safe because the underlying Yaml object', // 5
        '     * is not thread safe. If you implement a singleton pattern, you get some weird exceptions.', // 6
        '     */', // 7
        '    public YamlReader() {', // 8
        '        this.yaml = new Yaml();', // 9
        '    }', // 10
        '', // 11
        '    /** Parses one file, without caching because files change. */', // 12
        '    public Object parse(String f) {', // 13
        '        return null;', // 14
        '    }', // 15
        '}', // 16
      ].join('\n');
      write(d.root, 'src/YamlReader.java', java);
      const target = { id: 1, sid: 'java YamlReader#', name: 'YamlReader', qname: 'r.YamlReader', kind: 'class' as const, path: 'src/YamlReader.java', line: 1 };
      const scope = [
        { sid: target.sid, qname: target.qname, relation: 'self' as const },
        { sid: 'java YamlReader#<init>().', qname: 'r.YamlReader.YamlReader', relation: 'member' as const },
        { sid: 'java YamlReader#parse().', qname: 'r.YamlReader.parse', relation: 'member' as const },
      ];
      const ranges = new Map([
        [target.sid, { path: target.path, line: 1, endLine: 265 }],
        ['java YamlReader#<init>().', { path: target.path, line: 257, endLine: 259 }],
        ['java YamlReader#parse().', { path: target.path, line: 262, endLine: 264 }],
      ]);
      const docs = new Map<number, Reached>();
      let n = 0;
      codeSources(d.root, target, scope, ranges, docs, () => --n);
      const notes = [...docs.values()];
      const ctor = notes.find((r) => r.text && /thread-safe/.test(r.text.body));
      assert.ok(ctor, notes.map((r) => r.document.title).join(' | '));
      assert.equal(ctor!.relation, 'self');
      assert.equal(ctor!.tier, 'exact');
      assert.match(ctor!.document.title, /doc comment of r\.YamlReader\.YamlReader/);
      assert.ok(!notes.some((r) => r.text && /without caching/.test(r.text.body)), "another member's doc comment is not the class's");
    } finally {
      d.cleanup();
    }
  });
});

describe('sentences that point back, define, or sit under a license comment', () => {
  it('a sentence opening with "These methods", "It is", "In this way" is about what the sentences before it name; "are responsible for" explains', () => {
    const rst = `Decision
--------

For example, some tags come from the settings and no Tag row exists for them. Before saving an object tag, the tagging API will use either \`\`Taxonomy.tag_for_value\`\` or \`\`Taxonomy.tag_for_external_id\`\`. These methods are responsible for both validating the tag but also auto-creating the Tag instance in case it doesn't already exist. Subclasses should override these as needed.

In this way, the system-defined taxonomies are fully dynamic and can represent tags that may exist in large numbers.

However, as of now we don't have a use case for listing them.
`;
    const t = tieMatcher({ names: ['Taxonomy.tag_for_value', 'tag_for_value'], phrases: proseForms('tag_for_value'), values: [], places: ['base.py'], neighbours: ['Taxonomy'] });
    const best = bestSentences(rankSentences(candidates(rst), t, { aboutIt: true, names: ['Taxonomy.tag_for_value', 'tag_for_value'] }), 2).map((b) => b.text.replace(/\s+/g, ' '));
    assert.deepEqual(best, ["These methods are responsible for both validating the tag but also auto-creating the Tag instance in case it doesn't already exist.", 'In this way, the system-defined taxonomies are fully dynamic and can represent tags that may exist in large numbers.']);
  });

  it('a license header in a multi-line HTML comment drawn with ~~~ is skipped, not read as a code fence; "`X` is an artificial entity." answers for X', () => {
    const md = `<!---~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
  ~ Copyright (c) 2020 Contributors to the Foundation
  ~ This program and the accompanying materials are made available under the terms of the license.
  ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~-->

# The ID System

The general idea behind the storage is that each entity comes with an id.

## GenericImportId

\`GenericImportId\` is an artificial entity.
It is used to be able to store imports of an imported archive.

## AdminId

The child \`AdminId\` is used for all administrative elements required for internal management.
`;
    const texts = candidates(md).map((c) => c.text);
    assert.ok(!texts.some((x) => /Copyright|accompanying/.test(x)), texts.join(' | '));
    const t = tieMatcher({ names: ['GenericImportId'], phrases: proseForms('GenericImportId'), values: [], places: ['GenericImportId.java'], neighbours: [] });
    const best = bestSentences(rankSentences(candidates(md), t, { aboutIt: true, names: ['GenericImportId'] }), 2).map((b) => b.text.trim());
    assert.deepEqual(best, ['It is used to be able to store imports of an imported archive.', '`GenericImportId` is an artificial entity.']);
  });

  it('a code fence right under a bold line is a fence, not a reStructuredText underline: the code is never a candidate, the prose after it is', () => {
    const md = [
      '## Considered Options',
      '',
      '**Django view**',
      '```',
      'def post(self, request):',
      '    portfolio = get_object_or_404(Portfolio, pk=portfolio_id)',
      '    request.session["portfolio"] = portfolio',
      '```',
      '',
      'This prevents the user from setting an active session portfolio by calling the URL path on their own.',
      '',
      'Short Title',
      '~~~~~~~~~~~',
      '',
      'A reStructuredText subsection keeps its underline of tildes as long as its title.',
    ].join('\n');
    const found = candidates(md);
    assert.deepEqual(
      found.map((c) => c.text),
      ['This prevents the user from setting an active session portfolio by calling the URL path on their own.', 'A reStructuredText subsection keeps its underline of tildes as long as its title.'],
    );
  });
});

describe('a condition and what follows from it', () => {
  it('"If you implement a singleton pattern, you get some weird exceptions" explains, and is quoted after the causal sentence', () => {
    const doc = 'Creates a new instance of the YAML reader. The reader is not thread-safe because the underlying Yaml object is not thread safe. If you implement a singleton pattern, you get some weird exceptions, e.g., when opening the modeler. The reader keeps a buffer per path in memory for the files.';
    const t = tieMatcher({ names: ['YamlReader'], phrases: proseForms('YamlReader'), values: [], places: ['YamlReader.java'], neighbours: [] });
    const best = bestSentences(rankSentences(candidates(doc), t, { focused: true }), 2).map((b) => b.text);
    assert.deepEqual(best, ['The reader is not thread-safe because the underlying Yaml object is not thread safe.', 'If you implement a singleton pattern, you get some weird exceptions, e.g., when opening the modeler.']);
  });
});

describe('a problem said as what went wrong', () => {
  it('the Context sentence that says what broke ("causing …", "led to …", "vulnerable to …") explains; a description beside it does not', () => {
    const doc = [
      '# Status patch retries',
      '',
      '## Context',
      '',
      'The restore controller patches the status of the restore at the end of each phase. The patch goes to the API server over the same connection as every other call.',
      'After the connection was restored, it didn\'t attempt to update, causing the restore to be stuck at "In progress" indefinitely.',
      'Sharing one store for reads and writes also led to coupling between services.',
      '',
      '## Decision',
      '',
      'Status patches go through `PatchResourceWithRetriesOnErrors`.',
    ].join('\n');
    const t = tieMatcher({ names: ['PatchResourceWithRetriesOnErrors'], phrases: proseForms('PatchResourceWithRetriesOnErrors'), values: [], places: ['patch.go'], neighbours: [] });
    const ranked = rankSentences(candidates(doc), t, { aboutIt: true });
    const explains = (start: string) => ranked.find((r) => r.text.startsWith(start))!.explains;
    assert.ok(explains('After the connection') >= 0.5, `stuck: ${explains('After the connection')}`);
    assert.ok(explains('Sharing one store') >= 0.5, `led to: ${explains('Sharing one store')}`);
    assert.ok(explains('The patch goes') < 0.5, `a description: ${explains('The patch goes')}`);
  });
});

describe('the passage quoted for a document found by name', () => {
  const chunk = (text: string) => ({ chunk_id: 1, text, start: 0, line_start: 1, doc_id: 1, source: 'docs/adr/adr-014-epochs.md', kind: 'adr' as const, title: 'Epochs', ref: null, path: 'docs/adr/adr-014-epochs.md', url: null, sections: null });

  it('is prose: never the front matter, a heading or a code block, even where only they hold the name', () => {
    const text = ['---', 'sidebar_position: 15', 'title: Epochs', '---', '# ADR 014: Epochs', '', '```go', 'if BlockHeight() % BlocksPerEpoch() == 0 { rebalance() }', '```', '', 'Validator set changes are sent once an epoch ends, which saves the relayer most of its packets.', ''].join('\n');
    const q = quoteFrom(chunk(text), ['DefaultBlocksPerEpoch', 'blocks per epoch']);
    assert.equal(q.quote, 'Validator set changes are sent once an epoch ends, which saves the relayer most of its packets.');
    assert.equal(q.line, 11);
  });

  it('is the prose sentence that names it, when one does', () => {
    const text = ['---', 'title: Epochs', '---', '', 'Epochs group blocks.', 'By default, `BlocksPerEpoch` is set to be 600 which corresponds to 1 hour.', ''].join('\n');
    assert.match(quoteFrom(chunk(text), ['BlocksPerEpoch']).quote, /^By default, `BlocksPerEpoch` is set to be 600/);
  });
});
