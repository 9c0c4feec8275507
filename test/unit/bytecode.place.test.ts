import * as assert from 'node:assert/strict';
import { SourceText } from '../../src/core/structural/sources/bytecode/sourceText';
import type { CallFact } from '../../src/core/structural/sources/bytecode/analysis';
import { derivedQueryProperties } from '../../src/core/structural/sources/bytecode/springData';
import { placeSites } from '../../src/core/structural/sources/bytecode/resolver';
import { tempDir, write } from '../helpers/fixtures';

const SRC = [
  'class A extends B {',
  '  void m() { a.f(b.f(x)); g("f()"); } // f again in a comment',
  '  A() { super(1); }',
  '  void n() { for (String s : list) { use(s); } }',
  '  Object k() { return builder',
  '      .build(); }',
  '  void r() { list.forEach(this::use); }',
].join('\n');

function fact(line: number, name: string, target: string, extra: Partial<CallFact> = {}): CallFact {
  return { kind: 'call', name, site: { path: 'A.java', line }, inSource: true, from: 'java A#m().', targets: [{ sid: target }], op: 'invokevirtual', reason: `invokevirtual ${target}`, ...extra };
}

describe('placing class-file call sites (lines only) on the columns the inventory records', () => {
  let d: { root: string; cleanup: () => void };
  let text: SourceText;
  before(() => {
    d = tempDir();
    write(d.root, 'A.java', SRC);
    text = new SourceText(d.root);
  });
  after(() => d.cleanup());

  it('puts each call on its name, skipping strings and comments, and marks it complete', () => {
    const v = placeSites([fact(2, 'g', 'java A#g().')], undefined, text);
    assert.deepEqual(v.map((x) => [x.site.line, x.site.col, x.complete]), [[2, 26, true]]);
  });

  it('does not pair two same-named calls with different targets to columns it cannot tell apart', () => {
    const v = placeSites([fact(2, 'f', 'java B#f().'), fact(2, 'f', 'java C#f().')], undefined, text);
    assert.equal(v.length, 2);
    assert.deepEqual(v.map((x) => x.site.col), [15, 19]);
    for (const x of v) {
      assert.equal(x.complete, false, 'refutes nothing');
      assert.deepEqual(x.targets, [{ sid: 'java B#f().' }, { sid: 'java C#f().' }]);
    }
  });

  it('prefers the inventory\'s own site columns when it has them', () => {
    const v = placeSites([fact(2, 'g', 'java A#g().')], [{ at: { path: 'A.java', line: 2, col: 26 }, kind: 'call', name: 'g', receiver: null, candidates: [], dynamic: false }], text);
    assert.equal(v[0]!.site.col, 26);
  });

  it('finds super(…), a name written on the next line, and method references', () => {
    const sup = placeSites([fact(3, 'B', 'java B#B().', { reason: 'super(…) → B(I)V (invokespecial)' })], undefined, text);
    assert.deepEqual([sup[0]!.site.line, sup[0]!.site.col], [3, 8]);
    const chained = placeSites([fact(5, 'build', 'java Builder#build().')], undefined, text);
    assert.deepEqual([chained[0]!.site.line, chained[0]!.site.col], [6, 7]);
    const ref = placeSites([fact(7, 'use', 'java A#use().', { kind: 'call', reason: 'method reference `::use`' })], undefined, text);
    assert.deepEqual([ref[0]!.site.line, ref[0]!.site.col], [7, 32]);
  });

  it('keeps a call the compiler inserted (no name written) at the statement, without refuting anything', () => {
    const v = placeSites([fact(4, 'iterator', 'java L#iterator().')], undefined, text);
    assert.equal(v[0]!.complete, false);
    assert.equal(v[0]!.site.col, 2);
    assert.match(v[0]!.reason, /^implicit call: /);
  });

  it('numbers sites in generated code along each line of its class file', () => {
    const gen = (name: string) => fact(11, name, `java Impl#${name}().`, { inSource: false, site: { path: 'target/classes/Impl.class', line: 11 }, from: 'java Impl#toDto().' });
    const v = placeSites([gen('id'), gen('currency'), gen('amount')], undefined, text);
    assert.deepEqual(v.map((x) => `${x.site.path}:${x.site.line}:${x.site.col}`), ['target/classes/Impl.class:11:0', 'target/classes/Impl.class:11:1', 'target/classes/Impl.class:11:2']);
  });
});

describe('Spring Data derived query names', () => {
  it('reads the property paths a query method name refers to, operators and ordering included', () => {
    assert.deepEqual(derivedQueryProperties('findByStatusAndRailOrderByCreatedAtDesc'), ['Status', 'Rail', 'CreatedAt']);
    assert.deepEqual(derivedQueryProperties('findDistinctTop3ByCustomerNameIgnoreCaseOrLastNameNotNull'), ['CustomerName', 'LastName']);
    assert.deepEqual(derivedQueryProperties('deleteByCreatedAtBefore'), ['CreatedAt']);
    assert.deepEqual(derivedQueryProperties('existsByIdIn'), ['Id']);
    assert.deepEqual(derivedQueryProperties('findAllByOrderByNameAscAgeDesc'), ['Name', 'Age']);
    assert.equal(derivedQueryProperties('save'), undefined);
    assert.equal(derivedQueryProperties('byStatus'), undefined);
  });
});
