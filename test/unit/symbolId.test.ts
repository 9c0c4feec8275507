import * as assert from 'node:assert/strict';
import { escapeName, formatSymbolId, looksLikeSymbolId, parseSymbolId } from '../../src/core/model/symbolId';

describe('symbol ids (SCIP descriptor grammar)', () => {
  it('formats namespaces, types, terms and methods with disambiguators', () => {
    const id = formatSymbolId({
      scheme: 'java',
      descriptors: [
        { name: 'com', suffix: 'namespace' },
        { name: 'acme', suffix: 'namespace' },
        { name: 'SettlementService', suffix: 'type' },
        { name: 'retry', suffix: 'method', disambiguator: '+1' },
      ],
    });
    assert.equal(id, 'java com/acme/SettlementService#retry(+1).');
  });

  it('escapes names outside the simple alphabet with backticks, doubling backticks', () => {
    assert.equal(escapeName('src/a.ts'), '`src/a.ts`');
    assert.equal(escapeName('we`ird'), '`we``ird`');
    assert.equal(escapeName('plain_Name$1'), 'plain_Name$1');
  });

  it('round-trips every descriptor kind, including escaped names', () => {
    for (const text of [
      'ts `src/settlement/SettlementService.ts`/SettlementService#retry().',
      'py `reconciliation.client`/SettlementClient#MAX.',
      'java com/acme/settlement/SettlementEngine#retry(+2).',
      'go `example.com/m/pay`/Gateway#Submit().',
      'ts `we``ird`/x.',
    ]) {
      assert.equal(formatSymbolId(parseSymbolId(text)), text);
    }
  });

  it('rejects malformed ids with a message that names the problem', () => {
    assert.throws(() => parseSymbolId('nospace'), /expected "<scheme> <descriptors>"/);
    assert.throws(() => parseSymbolId('ts `unterminated'), /Unterminated backtick/);
    assert.throws(() => parseSymbolId('ts a(b'), /Malformed method descriptor/);
  });

  it('tells full ids from names people type', () => {
    assert.equal(looksLikeSymbolId('ts `a.ts`/A#run().'), true);
    assert.equal(looksLikeSymbolId('SettlementService.retry'), false);
    assert.equal(looksLikeSymbolId('src/a.ts:42'), false);
  });
});
