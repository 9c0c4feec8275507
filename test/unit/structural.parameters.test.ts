import * as assert from 'node:assert/strict';
import { declaredParameters, sameParameters, writtenParameters } from '../../src/core/structural/parameters.js';

/* A parameter list written after a name says which overload; a declaration's own list is read to compare. */

describe('parameter lists, written and declared', () => {
  it('reads the name and the words of each parameter written after it', () => {
    assert.deepEqual(writtenParameters('Service.transfer(DataFlowStartMessage request, DataSink sink)'), { name: 'Service.transfer', parameters: [['DataFlowStartMessage', 'request'], ['DataSink', 'sink']] });
    assert.deepEqual(writtenParameters('parse()'), { name: 'parse', parameters: [] });
    assert.deepEqual(writtenParameters('merge(Map<String, Integer>, int)'), { name: 'merge', parameters: [['Map', 'String', 'Integer'], ['int']] });
    assert.equal(writtenParameters('SettlementService.retry'), undefined);
    assert.equal(writtenParameters('(a, b)'), undefined);
  });

  it("reads a declaration's parameters in Java, TypeScript, Python and Go, without annotations, modifiers, defaults or self", () => {
    assert.deepEqual(declaredParameters('    @Override\n    public Result transfer(final StartMessage request,\n            @NonNull DataSink sink) {', 'transfer'), [['StartMessage', 'request'], ['DataSink', 'sink']]);
    assert.deepEqual(declaredParameters('  constructor(private readonly clock: Clock, retries = 3) {', 'constructor'), [['clock', 'Clock'], ['retries']]);
    assert.deepEqual(declaredParameters('    def get(self, key, default=None):', 'get'), [['key'], ['default']]);
    assert.deepEqual(declaredParameters('func (s *Store) Put(ctx context.Context, key string) error {', 'Put'), [['ctx', 'context', 'Context'], ['key', 'string']]);
    assert.deepEqual(declaredParameters('public <T> List<T> copy(List<? extends T> from) {', 'copy'), [['List', 'extends', 'T', 'from']]);
    assert.deepEqual(declaredParameters('void run() {', 'run'), []);
    assert.equal(declaredParameters('int run = 3;', 'run'), undefined);
  });

  it('matches when as many parameters are written and each written word is in its place', () => {
    const declared = [['StartMessage', 'request'], ['DataSink', 'sink']];
    assert.ok(sameParameters([['StartMessage'], ['DataSink']], declared));
    assert.ok(sameParameters([['request'], ['sink']], declared));
    assert.ok(!sameParameters([['StartMessage']], declared));
    assert.ok(!sameParameters([['DataSink'], ['StartMessage']], declared));
  });
});
