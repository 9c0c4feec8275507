import * as assert from 'node:assert/strict';
import { documentsSharingRareWords } from '../../src/core/knowledge/why';
import { decisionRecords } from '../../src/core/knowledge/store/documents';
import type { Reached } from '../../src/core/knowledge/whyScope';
import { resolveOneSymbol } from '../../src/core/structural/lookup';
import { whyIsThisTool } from '../../src/core/tools/whyIsThis';
import { decisionRecord, knowledgeIndexedFiles, type FilledExample } from '../helpers/example';

/*
 * A record may speak of code in the code's own rare words without naming it:
 * ris-backend-service's record on WebFlux says "JPA" eleven times and never
 * names PostgresJPAConfig; weave-gitops' record on the client's rate limits
 * says "QPS" and "Burst", the names WithFlowControl reads (ClientQPS,
 * ClientBurst). A word few of the records say, said there often, or two such
 * words of the code it uses, put the record on its subject: weak, to verify,
 * and its sentences with those words are quoted. A word said in passing links
 * nothing.
 */

const record = (n: number, title: string, ...body: string[]) => decisionRecord(n, title, { Decision: body.join('\n') });

describe("why_is_this: a record that shares the symbol's rare words", function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await knowledgeIndexedFiles({
      'src/config/postgresJpaConfig.ts': ['export class PostgresJpaConfig {', '  readonly dialect = "postgres";', '}', ''].join('\n'),
      'src/cluster/flow.ts': [
        'export const DEFAULT_QPS = 50;',
        'export const DEFAULT_BURST = 100;',
        '',
        'export function withFlowControl(config: { qps: number; burst: number }): { qps: number; burst: number } {',
        '  config.qps = DEFAULT_QPS;',
        '  config.burst = DEFAULT_BURST;',
        '  return config;',
        '}',
        '',
      ].join('\n'),
      'src/ledger/totals.ts': ['export function ledgerTotals(amounts: number[]): number {', '  return amounts.reduce((a, b) => a + b, 0);', '}', ''].join('\n'),
      'docs/adr/0001-record-architecture-decisions.md': record(1, 'Record architecture decisions', 'We record the architecture decisions of this project in these files, one decision a file.'),
      'docs/adr/0002-reactive-stack-is-debt.md': record(
        2,
        'The reactive stack is technical debt',
        'The reactive database adapters could not express our joins, so JPA had to be used beside them.',
        '',
        'We move every repository to JPA, because two persistence stacks made each change twice as costly.',
        '',
        'New entities use JPA only.',
      ),
      'docs/adr/0003-client-rate-limits.md': record(
        3,
        'Client rate limits',
        'The dashboard set its QPS to 1000 and its Burst to 2000, and the API server throttled every other client of the cluster.',
        '',
        'QPS is capped at 50 and Burst at 100, because higher rates starved the controllers that share the API server.',
      ),
      'docs/adr/0004-use-postgres.md': record(4, 'Use PostgreSQL', 'Tenants are stored in PostgreSQL, because the team already runs it and its backups are tested.'),
      'docs/adr/0005-monthly-statements.md': record(5, 'Monthly statements', 'Statements are cut monthly, because the ledger closes on the last day of the month and the ledger is read-only after it.'),
      'docs/adr/0006-one-repository.md': record(6, 'One repository', 'The services live in one repository, so that a change that spans them is one review.'),
      'docs/adr/0007-typescript.md': record(7, 'TypeScript everywhere', 'All services are written in TypeScript, because one language lets anyone review any change.'),
      'docs/adr/0008-feature-flags.md': record(8, 'Feature flags', 'Unfinished features ship behind flags, so that main is always releasable.'),
    });
  });
  after(() => fx.close());

  /** What the rule adds, on its own, for a symbol no record is yet linked to. */
  async function shared(name: string): Promise<Reached[]> {
    const db = fx.ws.db;
    const target = await resolveOneSymbol(db, name, { root: fx.root });
    const docs = new Map<number, Reached>();
    await documentsSharingRareWords(db, target, [{ sid: target.sid, qname: target.qname, relation: 'self' }], () => decisionRecords(db), docs);
    return [...docs.values()];
  }

  it('links the one record that says a rare word of its name often, weakly, to verify', async () => {
    const found = await shared('PostgresJpaConfig');
    assert.deepEqual(
      found.map((r) => [r.document.path, r.tier, r.relation, r.anchors.map((a) => a.reason)]),
      [['docs/adr/0002-reactive-stack-is-debt.md', 'weak', 'self', ['on its subject: says a word of its name few records say ("jpa") — verify']]],
    );
    // "postgres" is a word of its name too, but the record on PostgreSQL says it once: a word in passing.
  });

  it('links the record that says two rare words of the names its code reads, and the answer quotes the sentence with them', async () => {
    const found = await shared('withFlowControl');
    assert.deepEqual(
      found.map((r) => [r.document.path, r.tier, r.anchors.map((a) => a.entity).sort()]),
      [['docs/adr/0003-client-rate-limits.md', 'weak', ['burst', 'qps']]],
    );
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'withFlowControl' });
    const data = r.data as { documents: { where?: string; quotes: { text: string }[] }[] };
    const adr = data.documents.find((d) => d.where === 'docs/adr/0003-client-rate-limits.md');
    assert.ok(adr?.quotes.some((q) => q.text.startsWith('QPS is capped at 50 and Burst at 100, because')), r.text);
  });

  it('links no record for a word of its name said in passing', async () => {
    assert.deepEqual(await shared('ledgerTotals'), []);
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'ledgerTotals' });
    assert.ok(!(r.data as { documents: { where?: string }[] }).documents.some((d) => d.where?.startsWith('docs/adr/')), r.text);
    assert.match(r.text.split('\n')[0]!, /no recorded reason/);
  });
});
