import * as assert from 'node:assert/strict';
import { answerAbout } from '../../src/core/compose/ask.js';
import { systemClock } from '../../src/core/episodic/clock.js';
import { DEFAULT_OPTIONS } from '../../src/core/episodic/options.js';
import { isAtLine } from '../../src/core/knowledge/whyCode.js';
import { resolveOneSymbol } from '../../src/core/structural/lookup.js';
import { whyIsThisTool } from '../../src/core/tools/whyIsThis.js';
import { indexedFiles, type FilledExample } from '../helpers/example.js';

/*
 * A `path:line` question whose line is inside a symbol (a `case` of a
 * reducer, a statement) is about that line: the comment on it or just above
 * it leads the answer, before the symbol's other comments and commits.
 */

const REDUCER = [
  'export function tableReducer(state, action) {',
  '  // Keeps the table state as react-table returns it.',
  '  switch (action.type) {',
  '    // Note: we override toggleAllRowsSelected because react-table only clears',
  '    // the selections on the visible page, so selections on other pages would stay.',
  "    case 'toggleAllRowsSelected': {",
  '      return { ...state, selectedRowIds: {} };',
  '    }',
  "    case 'toggleRowSelected': {",
  '      return state;',
  '    }',
  '    default:',
  '      return state;',
  '  }',
  '}',
  '',
].join('\n');

/** A reconcile loop longer than the 200 lines whose comments are read whole, with a NOTE over one statement deep inside it. */
const FILLER = Array.from({ length: 230 }, (_, i) => `\tsteps = append(steps, ${i})`);
const RECONCILE = [
  'package controller',
  '',
  'import "reflect"',
  '',
  'type Reconciler struct{}',
  '',
  'func (r *Reconciler) Reconcile(status *Status) (changed bool) {',
  '\tsteps := []int{}',
  ...FILLER,
  '\t// update the status when this function returns, if needed.',
  '\t// NOTE: we dereference the copy of the status because status fields are NOT pointers,',
  '\t//       so otherwise the deep comparison would always return false.',
  '\tcurrent := *status.DeepCopy()',
  '\tdefer func() {',
  '\t\tchanged = !reflect.DeepEqual(current, *status)',
  '\t}()',
  '\t// A comment far from the asked line, about something else entirely in this loop.',
  '\tsteps = append(steps, len(steps))',
  '\treturn false',
  '}',
  '',
].join('\n');
const NOTE_LINE = RECONCILE.split('\n').findIndex((l) => l.includes('current := *status')) + 1;

describe('why_is_this on a line inside a symbol', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await indexedFiles({ 'src/table.js': REDUCER, 'controller/reconcile.go': RECONCILE });
  });
  after(() => fx?.close());

  it('a comment is about a line when it is on it or ends at most two lines above it', () => {
    assert.ok(isAtLine({ line: 4, endLine: 5 }, 6));
    assert.ok(isAtLine({ line: 4, endLine: 5 }, 7));
    assert.ok(isAtLine({ line: 4, endLine: 6 }, 5));
    assert.ok(!isAtLine({ line: 4, endLine: 5 }, 8));
    assert.ok(!isAtLine({ line: 4, endLine: 5 }, 3));
  });

  it('the comment above the asked line leads, exact, and the answer says which line it is about', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'src/table.js:6' });
    const first = r.text.split('\n')[0]!;
    assert.match(first, /^Why: "Note: we override toggleAllRowsSelected because react-table only clears/, r.text);
    assert.match(first, /comment above line 6 of tableReducer/);
    assert.match(r.text, /line 6 is inside it, and a comment there comes first/);
    const data = r.data as { documents: { title: string; tier: string; relation: string }[] };
    assert.equal(data.documents[0]?.title, 'comment above line 6 of tableReducer');
    assert.equal(data.documents[0]?.tier, 'exact');
    assert.equal(data.documents[0]?.relation, 'self');
  });

  it('in a function too long to read whole, the NOTE over the asked statement still leads, and no other comment of the body is read', async () => {
    const r = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: `controller/reconcile.go:${NOTE_LINE}` });
    const first = r.text.split('\n')[0]!;
    assert.match(first, /^Why: "NOTE: we dereference the copy of the status because status fields are NOT pointers/, r.text);
    assert.match(first, new RegExp(`NOTE comment above line ${NOTE_LINE} of controller\\.Reconciler\\.Reconcile`));
    assert.doesNotMatch(r.text, /something else entirely/);
    const data = r.data as { documents: { title: string; tier: string; relation: string }[] };
    assert.equal(data.documents[0]?.tier, 'exact');
    assert.equal(data.documents[0]?.relation, 'self');
    const byName = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'Reconciler.Reconcile' });
    assert.doesNotMatch(byName.text, /we dereference the copy/, 'asked about the whole function, its long body is not read');
  });

  it('a line with no comment on or above it says so, and the declaration line asks about the whole symbol', async () => {
    const bare = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'src/table.js:10' });
    assert.match(bare.text, /line 10 is inside it, with no comment on or just above it/);
    assert.doesNotMatch(bare.text, /comment above line/);
    const whole = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'src/table.js:1' });
    assert.doesNotMatch(whole.text, /line 1 is inside it|comment above line/);
    const byName = await whyIsThisTool.invoke({ workspace: fx.ws }, { symbol: 'tableReducer' });
    assert.doesNotMatch(byName.text, /is inside it|comment above line/);
  });

  it('the editor\'s "Why is this?" at a line asks the knowledge memory about that line', async () => {
    const target = await resolveOneSymbol(fx.ws.db, 'src/table.js:6', { root: fx.ws.root });
    assert.equal(target.qname.split('.').pop(), 'tableReducer');
    const v = await answerAbout(fx.ws, target, { clock: systemClock, options: DEFAULT_OPTIONS, line: 6 });
    const k = v.knowledge.data!;
    assert.equal(k.items[0]?.atLine, 6);
    assert.match(k.lead?.quote.quote ?? '', /^Note: we override toggleAllRowsSelected/);
    const whole = await answerAbout(fx.ws, target, { clock: systemClock, options: DEFAULT_OPTIONS });
    assert.ok(!whole.knowledge.data!.items.some((i) => i.atLine !== undefined));
  });
});
