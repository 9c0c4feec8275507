import * as assert from 'node:assert/strict';
import { whyIsThisTool } from '../../src/core/tools/whyIsThis';
import { decisionRecord, knowledgeIndexedFiles, type FilledExample } from '../helpers/example';

/*
 * A decision record on an interface is the reason for each class that
 * implements it, and rarely names them: alfa's "Use `Result<T, E>` to model
 * errors" never writes `Err`. The type a class extends or implements is a
 * neighbour of it, as the member a method overrides is: its record is shown,
 * about that type, weak for the class, never as the class's own.
 */

describe('why_is_this: the record of the type it implements', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await knowledgeIndexedFiles({
      'src/outcome.ts': [
        'export interface Outcome<T, E> {',
        '  isFailure(): boolean;',
        '}',
        '',
        'export class Failure<E> implements Outcome<never, E> {',
        '  constructor(private readonly error: E) {}',
        '  isFailure(): boolean {',
        '    return true;',
        '  }',
        '}',
        '',
      ].join('\n'),
      'docs/adr/0001-record-architecture-decisions.md': decisionRecord(1, 'Record architecture decisions', { Decision: 'We record the architecture decisions of this project in these files, one decision a file.' }),
      'docs/adr/0002-model-errors-as-values.md': decisionRecord(2, 'Use `Outcome<T, E>` to model errors', {
        Context: 'Thrown exceptions carry no type, so a caller cannot tell which errors a function may raise, and the control flow is hard to follow because an exception may be caught far from where it was thrown.',
        Decision: 'We will implement an `Outcome<T, E>` type to model a computation that either produces a value of type `T` or an error of type `E`, because the compiler then checks that every error is handled.',
        Consequences: 'Errors become part of every signature, so a change to what a function may fail with is visible to each of its callers.',
      }),
    });
  });
  after(() => fx.close());

  it('shows the interface\'s record for the class, about the type it implements, weak for it', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'Failure' });
    const data = r.data as { documents: { where?: string; tier: string; relation: string; about?: string; quotes: { text: string }[] }[] };
    const adr = data.documents.find((d) => d.where === 'docs/adr/0002-model-errors-as-values.md');
    assert.ok(adr, r.text);
    assert.equal(adr.relation, 'supertype');
    assert.match(adr.about ?? '', /^the type it extends or implements, Outcome \(/);
    assert.ok(adr.quotes.some((q) => /because the compiler then checks that every error is handled|exceptions carry no type/.test(q.text)), r.text);
    assert.match(r.text, /About its neighbours, not Failure itself/);
    assert.match(r.text.split('\n')[0]!, /^Why: no recorded reason names Failure itself; the type it extends or implements, Outcome, has one/);
  });
});
