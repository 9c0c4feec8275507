import * as assert from 'node:assert/strict';
import { subjectWords } from '../../src/core/knowledge/why';
import { whyIsThisTool } from '../../src/core/tools/whyIsThis';
import { designDoc as design, knowledgeIndexedFiles, type FilledExample } from '../helpers/example';

/*
 * A design is often filed under the name of what it designs: rook's
 * design/ceph/ceph-exporter.md is the reason for createOrUpdateCephExporter,
 * though it never writes the function's name. A document whose file name is
 * the words of what the symbol is about (less a leading action, less a
 * record's number) is about it, strong; a file named for one word is named
 * for many things and reaches nothing by its name.
 */

/** The tool's answer, as far as these tests read it. */
type Data = { documents: { where?: string; tier: string; how: string; quotes: { text: string }[] }[] };

describe('why_is_this: a document named for the symbol', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await knowledgeIndexedFiles({
      'src/exporter.ts': [
        'export function createOrUpdateMetricsExporter(node: string): string {',
        '  return node;',
        '}',
        '',
        'export function getCache(key: string): string {',
        '  return key;',
        '}',
        '',
        'export function processPatchPolicies(policies: string[]): string[] {',
        '  return policies;',
        '}',
        '',
      ].join('\n'),
      // A record named for it in the singular, whose sentences never name it: the record is its reason all the same.
      'docs/design/patch-policy.md': [
        '# Patch Policy',
        '',
        '## Motivation',
        '',
        '* Offline - run the translate command to see the generated configuration before it is applied.',
        '* Runtime - read the status field of the resource.',
        '',
        'To alleviate this problem, and provide an interim solution for a small section of advanced users, this API is being introduced.',
        '',
      ].join('\n'),
      // A guide of the same name, and its copy for an earlier release: how to use it, not why it is so.
      'docs/guides/patch-policy.md': ['# Patch Policy', '', 'Apply the example below with kubectl and check the status of the policy afterwards.', ''].join('\n'),
      'docs/v1.2/guides/patch-policy.md': ['# Patch Policy', '', 'Apply the example below with kubectl and check the status of the policy afterwards.', ''].join('\n'),
      'docs/design/metrics-exporter.md': design(
        'A daemon per node for metrics',
        'Collecting metrics from the manager alone was too slow on large clusters, because every daemon answered through one process; a daemon on each node reads them locally instead.',
      ),
      'docs/design/0007-cache.md': design('Caching', 'Entries are kept for a minute, since the upstream rate-limits us.'),
    });
  });
  after(() => fx.close());

  it('reaches the document filed under its subject, strong, and quotes its reason', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'createOrUpdateMetricsExporter' });
    const doc = (r.data as Data).documents.find((d) => d.where === 'docs/design/metrics-exporter.md');
    assert.ok(doc, r.text);
    assert.equal(doc.tier, 'strong');
    assert.equal(doc.how, 'its file is named for it: metrics-exporter.md is metrics exporter');
    assert.ok(doc.quotes.some((q) => q.text.includes('because every daemon answered through one process')), r.text);
  });

  it('reaches the record filed under its subject in the singular and quotes it, though no sentence names it; the guide of that name is not strong', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'processPatchPolicies' });
    const docs = (r.data as Data).documents;
    const record = docs.find((d) => d.where === 'docs/design/patch-policy.md');
    assert.ok(record, r.text);
    assert.equal(record.tier, 'strong');
    assert.equal(record.how, 'its file is named for it: patch-policy.md is patch policies');
    // No sentence ties to it by the hand-set score; the fitted ranker's likeliest is its reason, and leads.
    assert.match(r.text.split('\n')[0]!, /^Why: "To alleviate this problem, .* this API is being introduced\." \(Patch Policy, docs\/design\/patch-policy\.md:\d+\) — decision, strong$/);
    assert.ok(record.quotes.length <= 2, r.text);
    assert.ok(!docs.some((d) => d.where?.endsWith('guides/patch-policy.md') && d.tier === 'strong'), r.text);
  });

  it('reaches nothing by a file named for one word', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'getCache' });
    assert.ok(!(r.data as Data).documents.some((d) => d.where === 'docs/design/0007-cache.md' && d.tier === 'strong'), r.text);
  });

  it('takes the subject of a name as its words less the actions it begins with', () => {
    assert.deepEqual(subjectWords('createOrUpdateCephExporter'), ['ceph', 'exporter']);
    assert.deepEqual(subjectWords('ADWriterFactory'), ['ad', 'writer', 'factory']);
    assert.deepEqual(subjectWords('getIdempotencyKey'), ['idempotency', 'key']);
    assert.deepEqual(subjectWords('update'), ['update']);
  });
});

/*
 * A decision record that names the symbol is about it when its title is on the
 * symbol's subject (jaeger's "Cassandra FindTraceIDs Duration Query Behavior"
 * for `durationBucketSize`): its likeliest sentence is the reason even when no
 * sentence ties to the name. A record on another subject that names it in a
 * code example shows the code in passing, and gives no reason for it.
 */
describe('why_is_this: a record that names the symbol, on its subject or not', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await knowledgeIndexedFiles({
      'src/writer.ts': ['export const durationBucketSize = 3600;', '', 'export function loadAllSignals(): void {', '  return;', '}', ''].join('\n'),
      'docs/adr/0001-duration-queries.md': [
        '# 1. Duration query behaviour',
        '',
        '## Context',
        '',
        '```ts',
        'export const durationBucketSize = 3600;',
        '```',
        '',
        'The duration index is bucketed by hour to limit partition size and improve query performance.',
        '',
      ].join('\n'),
      'docs/adr/0002-event-bus-settings.md': [
        '# 2. Enable producing to the event bus via settings',
        '',
        '## Decision',
        '',
        'The producing application is expected to create a signal handler, because events are Django signals that must be pushed into the bus.',
        '',
        '```ts',
        'loadAllSignals();',
        '```',
        '',
      ].join('\n'),
    });
  });
  after(() => fx.close());

  it('quotes the record on its subject as the reason, though no sentence names it', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'durationBucketSize' });
    assert.match(r.text.split('\n')[0]!, /^Why: "The duration index is bucketed by hour to limit partition size and improve query performance\." \(ADR-0*1, docs\/adr\/0001-duration-queries\.md:\d+\) — decision, exact$/);
  });

  it('gives no reason from a record on another subject that only shows a call of it', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'loadAllSignals' });
    assert.match(r.text.split('\n')[0]!, /^Why: no recorded reason for loadAllSignals/);
    const adr = (r.data as Data).documents.find((d) => d.where === 'docs/adr/0002-event-bus-settings.md');
    assert.ok(adr && adr.tier === 'exact', r.text);
  });
});
