import * as assert from 'node:assert/strict';
import { LinkReach, linkEntity, type Link, type LinkSubject } from '../../src/core/linking/link';
import { LINKABLE_KINDS, SymbolIndex, type SymbolSource } from '../../src/core/linking/symbolIndex';
import { phraseTokens } from '../../src/core/linking/names';
import type { SymbolKind } from '../../src/core/model/structural';
import { isTestPath } from '../../src/shared/paths';

/*
 * Link tiers on crafted phrases, against a symbol table shaped like the
 * settlement example's: exact (verbatim, one symbol), strong (a normalised
 * phrase, one symbol), weak (a concept over several: the set), unresolved
 * (kept, never forced).
 */

type Row = { sid: string; name: string; qname: string; kind: SymbolKind; path: string; line: number; end_line: number; parent_name: string | null; parent_sid: string | null };

function sym(qname: string, kind: SymbolKind, path: string, parent?: string): Row {
  const name = qname.split('.').pop()!;
  const sid = `ts \`${path}\`/${qname.replace(/\./g, '#')}${kind === 'method' || kind === 'function' ? '().' : kind === 'field' || kind === 'constant' ? '.' : '#'}`;
  const parentQ = parent ?? (qname.includes('.') ? qname.split('.').slice(0, -1).join('.') : undefined);
  return { sid, name, qname, kind, path, line: 1, end_line: 10, parent_name: parentQ ? parentQ.split('.').pop()! : null, parent_sid: parentQ ? `ts \`${path}\`/${parentQ}#` : null };
}

const ROWS: Row[] = [
  { ...sym('src/settlement/RetryPolicy.ts', 'module', 'src/settlement/RetryPolicy.ts'), name: 'RetryPolicy', qname: 'src/settlement/RetryPolicy.ts', sid: 'ts `src/settlement/RetryPolicy.ts`/', parent_name: null, parent_sid: null },
  sym('RetryPolicy', 'class', 'src/settlement/RetryPolicy.ts'),
  sym('RetryPolicy.MAX_ATTEMPTS', 'field', 'src/settlement/RetryPolicy.ts'),
  sym('RetryPolicy.shouldRetry', 'method', 'src/settlement/RetryPolicy.ts'),
  sym('SettlementService', 'class', 'src/settlement/SettlementService.ts'),
  sym('SettlementService.retry', 'method', 'src/settlement/SettlementService.ts'),
  sym('SettlementService.settle', 'method', 'src/settlement/SettlementService.ts'),
  sym('SettlementClient', 'class', 'reconciliation/client.py'),
  sym('SettlementClient.retry', 'method', 'reconciliation/client.py'),
  sym('MAX_ATTEMPTS', 'constant', 'reconciliation/client.py'),
  sym('SettlementEngine', 'interface', 'java/com/acme/settlement/SettlementEngine.java'),
  sym('SettlementEngine.retry', 'method', 'java/com/acme/settlement/SettlementEngine.java'),
  sym('SettlementEngine.MAX_ATTEMPTS', 'field', 'java/com/acme/settlement/SettlementEngine.java'),
  sym('SettlementRetryJob', 'class', 'java/com/acme/settlement/SettlementRetryJob.java'),
  sym('SettlementRetryJob.retryParked', 'method', 'java/com/acme/settlement/SettlementRetryJob.java'),
  sym('SwiftGateway', 'class', 'src/gateways/SwiftGateway.ts'),
  sym('PaymentGateway', 'interface', 'src/gateways/PaymentGateway.ts'),
  sym('Instruction', 'interface', 'src/settlement/Instruction.ts'),
  sym('AuditLog', 'class', 'src/settlement/AuditLog.ts'),
  sym('AuditLog.record', 'method', 'src/settlement/AuditLog.ts'),
  ...Array.from({ length: 20 }, (_, i) => sym(`Handler${i}.get`, 'method', `src/handlers/Handler${i}.ts`)),
  sym('LedgerSuite', 'class', 'test/e2e/LedgerSuite.ts'),
  sym('ReplayBuffer', 'class', 'src/settlement/replay_buffer_test.go'),
];

const index = new SymbolIndex(ROWS);

function link(name: string, type = 'component', context?: string[]): Link {
  return linkEntity(index, { name, type, ...(context ? { context } : {}) });
}

function qnames(l: Link): string[] {
  return l.symbols.map((s) => s.qname).sort();
}

describe('knowledge: linking entities to symbols', () => {
  describe('exact: the name appears verbatim and denotes exactly one symbol', () => {
    it('qualified identifiers', () => {
      const l = link('RetryPolicy.MAX_ATTEMPTS');
      assert.equal(l.tier, 'exact');
      assert.deepEqual(qnames(l), ['RetryPolicy.MAX_ATTEMPTS']);
      assert.equal(link('SettlementService.retry()').tier, 'exact');
    });
    it('a unique identifier on its own, and a one-word name written as code', () => {
      assert.deepEqual([link('SwiftGateway').tier, ...qnames(link('SwiftGateway'))], ['exact', 'SwiftGateway']);
      assert.equal(link('AuditLog').tier, 'exact');
      assert.equal(link('Instruction', 'component').tier, 'exact');
    });
    it('a file path names its module', () => {
      const l = link('src/settlement/RetryPolicy.ts');
      assert.equal(l.tier, 'exact');
      assert.equal(l.symbols[0]!.sid, 'ts `src/settlement/RetryPolicy.ts`/');
    });
    it('a tail of a file path names its module; a tail that is no file names nothing', () => {
      assert.equal(link('settlement/RetryPolicy.ts').symbols[0]?.sid, 'ts `src/settlement/RetryPolicy.ts`/');
      assert.equal(link('other/RetryPolicy.ts').tier, 'unresolved');
    });
  });

  describe('strong: a normalised phrase clearly denotes one symbol', () => {
    it('a qualified name written in another letter case', () => {
      const l = link('retrypolicy.max_attempts');
      assert.equal(l.tier, 'strong');
      assert.deepEqual(qnames(l), ['RetryPolicy.MAX_ATTEMPTS']);
    });
    it('a type written as prose in three words or more', () => {
      for (const p of ['the settlement retry job', 'Settlement Retry Job', "the settlement retry job's"]) {
        const l = link(p);
        assert.equal(l.tier, 'strong', p);
        assert.deepEqual(qnames(l), ['SettlementRetryJob'], p);
      }
    });
    it('with a qualifier its place supplies: "settlement retry policy" → RetryPolicy in src/settlement', () => {
      const l = link('settlement retry policy');
      assert.equal(l.tier, 'strong');
      assert.deepEqual(qnames(l), ['RetryPolicy']);
      assert.match(l.reason, /supplies "settlement"/);
    });
    it('a shared name narrowed to one by the passage naming its class', () => {
      const l = link('retry', 'component', ['SettlementService.settle', 'RetryPolicy']);
      assert.equal(l.tier, 'strong');
      assert.deepEqual(qnames(l), ['SettlementService.retry']);
    });
    it('an identifier matching up to letter case', () => {
      const l = link('RetryPolicy.max_attempts');
      assert.equal(l.tier, 'strong');
      assert.deepEqual(qnames(l), ['RetryPolicy.MAX_ATTEMPTS']);
      assert.match(l.reason, /up to letter case/);
    });
  });

  describe('weak: a link the words alone do not make clear', () => {
    it('a symbol written as prose in two words: as often plain prose, so weak with the reason', () => {
      for (const p of ['the settlement service', 'Settlement Service', "the settlement service's"]) {
        const l = link(p);
        assert.equal(l.tier, 'weak', p);
        assert.deepEqual(qnames(l), ['SettlementService'], p);
        assert.match(l.reason, /two words are as often plain prose/, p);
      }
      assert.deepEqual([link('retry policy').tier, ...qnames(link('retry policy'))], ['weak', 'RetryPolicy']);
      assert.deepEqual([link('the SWIFT gateway').tier, ...qnames(link('the SWIFT gateway'))], ['weak', 'SwiftGateway']);
    });
    it("a qualified name whose qualifier is neither the symbol's class nor its place: another library's type, a path", () => {
      for (const p of ['React.shouldRetry', 'docs/shouldRetry', 'sdk.shouldRetry']) {
        const l = link(p);
        assert.equal(l.tier, 'weak', p);
        assert.deepEqual(qnames(l), ['RetryPolicy.shouldRetry'], p);
        assert.match(l.reason, /neither its class nor its place — verify/, p);
      }
      // A variable named after the class, a subclass, a folder of its path: still strong.
      for (const p of ['retryPolicy.shouldRetry', 'ExponentialRetryPolicy.shouldRetry', 'settlement/shouldRetry']) assert.equal(link(p).tier, 'strong', p);
    });
    it('a piece of JSON or a path expression is no name', () => {
      for (const p of ['"status": "retry', 'conditions[?(@.type', '"Settlement": { "service']) assert.equal(link(p).tier, 'unresolved', p);
    });
  });

  describe('weak: a phrase whose one symbol is test code', () => {
    it('"the ledger suite" and "replay buffer" reach the test helpers weakly, saying so; code names them exactly as ever', () => {
      for (const [phrase, qname, path] of [
        ['the ledger suite', 'LedgerSuite', 'test/e2e/LedgerSuite.ts'],
        ['replay buffer', 'ReplayBuffer', 'src/settlement/replay_buffer_test.go'],
      ] as const) {
        const l = link(phrase);
        assert.equal(l.tier, 'weak', phrase);
        assert.deepEqual(qnames(l), [qname], phrase);
        assert.match(l.reason, new RegExp(`written as prose, but ${path.replace(/\./g, '\\.')} is test code, which prose rarely means — verify$`), phrase);
      }
      assert.equal(link('LedgerSuite').tier, 'exact');
    });
    it('reads test code by the conventions of each language, and nothing else as test code', () => {
      for (const p of ['tests/unit/test_api.py', 'pkg/api/server_test.go', 'src/__tests__/Card.tsx', 'src/Card.test.tsx', 'lib/x.spec.js', 'src/test/java/a/LoadTest.java', 'conftest.py', 'automation/tests.py', 'internal/testutil/fake.go', 'test/e2e/suite.ts', 'spec/helpers/fixture.js'])
        assert.equal(isTestPath(p), true, p);
      for (const p of ['src/contest/Result.ts', 'src/latest.py', 'pkg/attestation/Attest.java', 'src/testimonials.ts', 'app/contests.py', 'docs/testing-guide.md', 'src/settlement/RetryPolicy.ts', 'src/lib/openapi/spec/addon-schema.ts'])
        assert.equal(isTestPath(p), false, p);
    });
  });

  describe('weak: a concept spanning several symbols returns the whole set', () => {
    it('"max attempts": the constant in three languages', () => {
      const l = link('max attempts');
      assert.equal(l.tier, 'weak');
      assert.deepEqual(qnames(l), ['MAX_ATTEMPTS', 'RetryPolicy.MAX_ATTEMPTS', 'SettlementEngine.MAX_ATTEMPTS']);
    });
    it('a verbatim name shared by several symbols, without context', () => {
      const l = link('retry');
      assert.equal(l.tier, 'weak');
      assert.deepEqual(qnames(l), ['SettlementClient.retry', 'SettlementEngine.retry', 'SettlementService.retry']);
    });
    it('"settlement retries": types whose names and places hold the words, members of listed types folded in', () => {
      const l = link('settlement retries', 'concept');
      assert.equal(l.tier, 'weak');
      const q = qnames(l);
      for (const s of ['RetryPolicy', 'SettlementRetryJob', 'SettlementService.retry', 'SettlementClient.retry', 'SettlementEngine.retry']) assert.ok(q.includes(s), `${s} in ${q.join(', ')}`);
      assert.ok(!q.includes('RetryPolicy.shouldRetry'), 'a member of a type in the set is not listed apart');
      assert.ok(!q.includes('SettlementRetryJob.retryParked'));
      assert.ok(!q.includes('AuditLog.record'));
    });
    it('an identifier that is not in the code but whose words are is never better than weak', () => {
      const l = link('PAYMENT_GATEWAY');
      assert.equal(l.tier, 'weak');
      assert.deepEqual(qnames(l), ['PaymentGateway']);
    });
  });

  describe('unresolved: kept, never forced', () => {
    it('a constraint no symbol names', () => {
      for (const p of ['the partner SLA', 'Northwind Clearing recall SLA', '15-minute window']) {
        const l = link(p, 'constraint');
        assert.equal(l.tier, 'unresolved', p);
        assert.equal(l.symbols.length, 0);
      }
      assert.match(link('the partner SLA', 'constraint').reason, /constraint that no symbol names/);
    });
    it('organisations, people, decisions and incidents are not matched to code by resemblance', () => {
      // "Settlement Service" the team vs the class: an organization is never linked by its words.
      assert.equal(link('Settlement Service', 'organization').tier, 'unresolved');
      assert.equal(link('ADR-0007', 'decision').tier, 'unresolved');
      assert.equal(link('INC-2041', 'incident').tier, 'unresolved');
      assert.equal(link('Dana Okafor', 'person').tier, 'unresolved');
    });
    it('one common word, or a name shared by too many symbols to be a link', () => {
      assert.equal(link('settlement', 'concept').tier, 'unresolved');
      const get = link('get');
      assert.equal(get.tier, 'unresolved');
      assert.match(get.reason, /20 symbols is too broad/);
    });
    it('a qualified name that is not in the index', () => {
      assert.equal(link('LedgerService.post').tier, 'unresolved');
    });
    it('anything, when there is no structural index', () => {
      assert.match(linkEntity(new SymbolIndex([]), { name: 'RetryPolicy', type: 'component' }).reason, /structural index is empty/);
    });
  });

  describe('an index of only the symbols the subjects reach links them as the whole index does', () => {
    /** ROWS as the structural memory supplies them (structural/lookup.ts's symbolSource reads the same from SQLite). */
    const linkable = ROWS.filter((r) => LINKABLE_KINDS.includes(r.kind));
    const source: SymbolSource = {
      count: async () => linkable.length,
      async *names(filter) {
        const counts = new Map<string, number>();
        const passes = (name: string) => !filter || filter.names.includes(name) || filter.lowerNames.includes(name.toLowerCase()) || filter.fragments.some((f) => name.toLowerCase().includes(f));
        for (const r of linkable) if (passes(r.name)) counts.set(r.name, (counts.get(r.name) ?? 0) + 1);
        yield [...counts].map(([name, n]) => ({ name, n }));
      },
      async *rowsNamed(names) {
        yield ROWS.filter((r) => names.includes(r.name) && LINKABLE_KINDS.includes(r.kind));
      },
      async modulesAt(paths) {
        return ROWS.filter((r) => r.kind === 'module' && paths.some((p) => r.path === p || r.path.endsWith('/' + p)));
      },
    };
    // Every rule's subjects: verbatim names, letter case, qualifiers, prose, places, concepts, paths, non-code types, common words.
    const SUBJECTS: LinkSubject[] = [
      ...['RetryPolicy.MAX_ATTEMPTS', 'RetryPolicy.max_attempts', 'retrypolicy.max_attempts', 'RetryPolicy.Shouldretry', 'SettlementService.retry()', 'LedgerService.post', 'AuditLog', 'SwiftGateway', 'PAYMENT_GATEWAY', 'Instruction', 'get', 'retry', 'max attempts', 'retry policy', 'the SWIFT gateway', 'settlement retry policy', 'src/settlement/RetryPolicy.ts', 'settlement/RetryPolicy.ts', 'other/RetryPolicy.ts'].map((name) => ({ name, type: 'component' })),
      { name: 'retry', type: 'component', context: ['SettlementService.settle', 'RetryPolicy'] },
      { name: 'settlement retries', type: 'concept' },
      { name: 'settlement', type: 'concept' },
      { name: 'the partner SLA', type: 'constraint' },
      { name: 'Settlement Service', type: 'organization' },
      { name: 'Dana Okafor', type: 'person' },
    ];

    it('each subject alone (its names found by text), and all of them together (every name read)', async () => {
      const together = await SymbolIndex.reachedBy(new LinkReach(SUBJECTS), source);
      assert.equal(new LinkReach(SUBJECTS).nameFilter(), undefined, 'many words: every name is read');
      for (const subject of SUBJECTS) {
        const reach = new LinkReach([subject]);
        assert.ok(reach.nameFilter(), `${subject.name}: found by text`);
        const alone = await SymbolIndex.reachedBy(reach, source);
        const whole = linkEntity(index, subject);
        assert.deepEqual(linkEntity(alone, subject), whole, `${subject.name} (${subject.type}) alone`);
        assert.deepEqual(linkEntity(together, subject), whole, `${subject.name} (${subject.type}) among the others`);
      }
    });

    it('finds by text every name holding a word of the subject, whatever the word\'s ending', () => {
      // Words ending as the stemmer takes off (retries → retry, boxes → box, classes → class), and one it leaves (status).
      const written = ['RetriesLeft', 'POLICIES', 'boxes', 'subclasses', 'HttpStatus'];
      const { fragments } = new LinkReach([{ name: 'retries policies boxes classes status', type: 'concept' }]).nameFilter()!;
      for (const name of written) assert.ok(fragments.some((f) => name.toLowerCase().includes(f)), `${name} holds one of ${fragments.join(', ')}`);
    });

    it('holds only what they reach, with the whole index\'s counts', async () => {
      const swift = await SymbolIndex.reachedBy(new LinkReach([{ name: 'SwiftGateway', type: 'component' }]), source);
      assert.deepEqual(swift.all.map((s) => s.qname), ['SwiftGateway']);
      assert.equal(swift.size, index.size, 'the whole index\'s symbol count');
      const concept = await SymbolIndex.reachedBy(new LinkReach([{ name: 'settlement retries', type: 'concept' }]), source);
      for (const w of phraseTokens('settlement retries')) assert.equal(concept.idf(w), index.idf(w), `the weight of "${w}"`);
      assert.ok(concept.all.length < index.all.length / 2, `${concept.all.length} of ${index.all.length} symbols`);
      const person = await SymbolIndex.reachedBy(new LinkReach([{ name: 'Dana Okafor', type: 'person' }]), source);
      assert.equal(person.all.length, 0, 'a person reaches no symbol');
    });
  });
});
