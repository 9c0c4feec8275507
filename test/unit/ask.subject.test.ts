import * as assert from 'node:assert/strict';
import { identifiers, namesBeforeFiles, subjectWord, writtenFiles } from '../../src/core/compose/link.js';
import { askTool } from '../../src/core/tools/ask.js';
import { indexedFiles, knowledgeIndexedFiles, type FilledExample } from '../helpers/example.js';

/* A question whose subject is a plain lower-case word that is a symbol's whole name (`messages`): ask tries it as that symbol before linking phrases. */

describe('ask: a lower-case subject word', () => {
  it('is the first content word of the question when it stands alone and is not code-like already', () => {
    assert.equal(subjectWord('Why does messages work this way?'), 'messages');
    assert.equal(subjectWord('what is capitalize for'), 'capitalize');
    // The start of a phrase is not a name: "retry policy" is linked as a phrase.
    assert.equal(subjectWord('Why is the retry policy three attempts?'), undefined);
    // Code-like words are identifiers already; capitalised words are not plain words.
    assert.equal(subjectWord('Why does merge_configs work this way?'), undefined);
    assert.equal(subjectWord('Why does Settlement work this way?'), undefined);
    assert.equal(subjectWord('Why does it work?'), undefined);
    // A dotted name is one name: its first part is not the subject.
    assert.equal(subjectWord('Why does state.starting work this way?'), undefined);
    assert.equal(subjectWord('Why does messages work this way. It is odd'), 'messages');
  });

  describe('on an indexed fixture', function () {
    this.timeout(120_000);
    let fx: FilledExample;

    before(async () => {
      fx = await indexedFiles({
        'package.json': '{"name":"ui","main":"src/index.js"}\n',
        'src/i18n/index.js': 'const messages = {\n  ar: {},\n  fr: {},\n};\n\nexport default messages;\n',
        // A component whose name holds the word: the phrase linker's candidate for "messages".
        'src/Form/ValidationMessage.jsx': 'export function ValidationMessage({ children }) {\n  return children;\n}\n',
        'src/retry.js': 'export function retryPolicy() {\n  return 3;\n}\n',
      });
    });
    after(() => fx.close());

    it('the word that is one symbol\'s whole name is the subject, an exact link, before what its phrase links', async () => {
      const r = await askTool.invoke({ workspace: fx.ws }, { question: 'Why does messages work this way?' });
      const data = r.data as { focus: { qname: string; tier: string }[]; links: { qname: string; at: string; tier: string; why: string }[] };
      assert.equal(data.focus[0]?.qname.split('.').pop(), 'messages');
      assert.equal(data.focus[0]?.tier, 'exact');
      assert.match(data.links.find((l) => l.tier === 'exact')?.at ?? '', /^src\/i18n\/index\.js:1$/);
    });

    it('a word that names no symbol stays a word: nothing is reported missing and phrases still link', async () => {
      const r = await askTool.invoke({ workspace: fx.ws }, { question: 'Why does validation work this way?' });
      const data = r.data as { focus: { qname: string }[]; missing?: string[] };
      assert.ok(!(data.missing ?? []).includes('validation'));
      assert.ok(!data.focus.some((f) => f.qname.endsWith('messages')));
    });
  });
});

describe('ask: identifiers written in the question', () => {
  it('reads a leading underscore and UPPER_SNAKE as part of the name, not as prose', () => {
    assert.deepEqual(identifiers('Why does _all_updates work this way?'), ['_all_updates']);
    assert.deepEqual(identifiers('Why does __init__ take no arguments?'), ['__init__']);
    assert.deepEqual(identifiers('Why is _private a module?'), ['_private']);
    assert.deepEqual(identifiers('Why is MAX_RETRIES three and A_BIT so small?'), ['MAX_RETRIES', 'A_BIT']);
    assert.deepEqual(identifiers('Why does Poller._all_updates loop?'), ['Poller._all_updates']);
    // Words of prose stay words; a path keeps its line.
    assert.deepEqual(identifiers('Why is the API slow?'), []);
    assert.deepEqual(identifiers('Why is src/poll_utils.py:12 so?'), ['src/poll_utils.py:12']);
  });

  describe('on an indexed Python fixture', function () {
    this.timeout(120_000);
    let fx: FilledExample;

    before(async () => {
      fx = await indexedFiles({
        'pkg/__init__.py': '',
        'pkg/poll.py': [
          'A_BIT = 0.05',
          '',
          '',
          'async def _all_updates(signal):',
          '    """Yields every update, the first one included."""',
          '    while True:',
          '        yield await signal.next()',
          '',
          '',
          'async def all_updates(signal):',
          '    async for u in _all_updates(signal):',
          '        yield u',
          '',
        ].join('\n'),
      });
    });
    after(() => fx.close());

    it('the private function the question names is its subject, not its public namesake', async () => {
      const r = await askTool.invoke({ workspace: fx.ws }, { question: 'Why does _all_updates work this way?' });
      const data = r.data as { focus: { qname: string; tier: string }[] };
      assert.match(data.focus[0]?.qname ?? '', /(^|\.)poll\._all_updates$/);
      assert.equal(data.focus[0]?.tier, 'exact');
    });

    it('an UPPER_SNAKE constant the question names is its subject', async () => {
      const r = await askTool.invoke({ workspace: fx.ws }, { question: 'Why does A_BIT work this way?' });
      const data = r.data as { focus: { qname: string; tier: string }[] };
      assert.match(data.focus[0]?.qname ?? '', /(^|\.)poll\.A_BIT$/);
      assert.equal(data.focus[0]?.tier, 'exact');
    });
  });
});

describe('ask: an identifier that names several symbols', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await indexedFiles({
      'src/storage/v1/capabilities.ts': 'export class SearchCapabilities {\n  duration = true;\n}\n',
      'src/storage/v2/capabilities.ts': 'export class SearchCapabilities {\n  attributes = true;\n}\n',
      // Its words as another name: what the question's phrase reaches, not what it names.
      'src/ui/search.ts': 'export function searchCapabilities(): string[] {\n  return [];\n}\n',
    });
  });
  after(() => fx.close());

  it('lists every symbol of that name first, each weak, before what the words of the name reach', async () => {
    const r = await askTool.invoke({ workspace: fx.ws }, { question: 'Why does SearchCapabilities work this way?' });
    const data = r.data as { links: { qname: string; at: string; tier: string; why: string }[]; linkedBy: string[]; unresolved: string[] };
    assert.deepEqual(
      data.links.slice(0, 2).map((l) => [l.at, l.tier, l.why]),
      [
        ['src/storage/v1/capabilities.ts:1', 'weak', '`SearchCapabilities` names 2 symbols; all are returned'],
        ['src/storage/v2/capabilities.ts:1', 'weak', '`SearchCapabilities` names 2 symbols; all are returned'],
      ],
    );
    assert.ok(data.linkedBy.includes('identifiers in the question'), data.linkedBy.join(', '));
    assert.ok(!data.unresolved.includes('SearchCapabilities'));
  });
});

describe('ask: an identifier the documents name too broadly to link', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    // Fourteen symbols share the name, more than the knowledge memory links weakly (twelve): it keeps the documents' `SearchCapabilities` unresolved, the question's identifier lists them.
    const files: Record<string, string> = { 'docs/adr/0013-capabilities.md': '# 13. Storage capability declaration\n\n## Decision\n\nA backend declares what it can search through `SearchCapabilities`, because the query service must refuse a search the backend cannot run.\n' };
    for (let i = 0; i < 14; i++) files[`src/backend${i}/reader.ts`] = `export class Reader${i} {\n  SearchCapabilities(): string[] {\n    return [];\n  }\n}\n`;
    fx = await knowledgeIndexedFiles(files);
  });
  after(() => fx.close());

  it('does not call the name unresolved when the question found it by name', async () => {
    const r = await askTool.invoke({ workspace: fx.ws }, { question: 'Why does SearchCapabilities work this way?' });
    const data = r.data as { links: { tier: string; why: string }[]; unresolved: string[] };
    assert.ok(data.links[0]?.why.startsWith('`SearchCapabilities` names 14 symbols'), data.links[0]?.why);
    assert.ok(!data.unresolved.includes('SearchCapabilities'), r.text);
  });
});

/* A name several files declare, asked with the file it is in ("execute in sessions.handler.js"): the file narrows the name. */

describe('ask: a file written in the question', () => {
  it('reads file names and paths as files, not as dotted names, and leaves path:line alone', () => {
    assert.deepEqual(writtenFiles('Why does execute in sessions-request.handler.js work this way?'), ['sessions-request.handler.js']);
    assert.deepEqual(writtenFiles('What is `src/i18n/index.js` for.'), ['src/i18n/index.js']);
    assert.deepEqual(writtenFiles('Why is src/poll_utils.py:12 so?'), []);
    // A dotted name whose last part is no language's extension is a name.
    assert.deepEqual(writtenFiles('Why does Settlement.retry wait?'), []);
    assert.deepEqual(identifiers('Why does execute in sessions-request.handler.js work this way?'), []);
    assert.deepEqual(identifiers('Why does runPayment in payment.handler.js retry?'), ['runPayment']);
    assert.equal(subjectWord('Why does execute in sessions-request.handler.js work this way?'), 'execute');
    // The word just before the file is a name to look for there, capitalised or not.
    assert.deepEqual(namesBeforeFiles('Why does Document in Document.ts work this way?'), ['Document']);
    assert.deepEqual(namesBeforeFiles('Why does execute in sessions-request.handler.js work this way?'), ['execute']);
    assert.deepEqual(namesBeforeFiles('What is in sessions-request.handler.js?'), []);
  });

  describe('on an indexed fixture with one name in three files', function () {
    this.timeout(120_000);
    let fx: FilledExample;

    before(async () => {
      fx = await knowledgeIndexedFiles({
        'package.json': '{"name":"handlers","main":"src/index.js"}\n',
        'docs/adr/0001-handlers.md': '# 1. Handlers\n\n## Decision\n\nEvery payment handler returns the request it was given, because the gateway retries a request it gets back.\n',
        'src/handlers/sessions-request.handler.js': 'export function execute(request) {\n  return request;\n}\n',
        'src/handlers/cancel.handler.js': 'export function execute(request) {\n  return null;\n}\n',
        'src/other/sessions-request.handler.js': 'export function prepare(request) {\n  return request;\n}\n',
        'src/handlers/refund.handler.js': 'export function runRefund(request) {\n  return request;\n}\nexport function execute(request) {\n  return runRefund(request);\n}\n',
        // A capitalised name two files declare, one of them a file of its name.
        'src/collections/Document.ts': 'export class Document {\n  nodes: unknown[] = [];\n}\n',
        'src/pages/page.ts': 'export class Document {\n  title = "";\n}\n',
      });
    });
    after(() => fx.close());

    type Data = { focus: { qname: string; at?: string; tier: string }[]; links: { qname: string; at: string; tier: string; why: string }[]; missing?: string[] };

    it('the name in the file the question names is the subject, an exact link; the others stay weak', async () => {
      const r = await askTool.invoke({ workspace: fx.ws }, { question: 'Why does execute in sessions-request.handler.js work this way?' });
      const data = r.data as Data;
      const exact = data.links.filter((l) => l.tier === 'exact');
      assert.deepEqual(exact.map((l) => l.at), ['src/handlers/sessions-request.handler.js:1']);
      assert.match(exact[0]!.why, /in sessions-request\.handler\.js/);
      assert.equal(data.focus[0]?.tier, 'exact');
      assert.ok(data.links.filter((l) => l.qname.endsWith('execute') && l.tier === 'weak').length >= 1, 'the other executes are listed, weak');
    });

    it('a capitalised name written before the file is looked for in it: the class, not the file\'s module', async () => {
      const r = await askTool.invoke({ workspace: fx.ws }, { question: 'Why does Document in Document.ts work this way?' });
      const data = r.data as Data;
      assert.equal(data.focus[0]?.qname.split('.').pop(), 'Document');
      assert.equal(data.focus[0]?.tier, 'exact');
      assert.deepEqual(data.links.filter((l) => l.tier === 'exact').map((l) => l.at), ['src/collections/Document.ts:1']);
    });

    it('a path narrows as its file name does, and an identifier keeps its own match', async () => {
      const r = await askTool.invoke({ workspace: fx.ws }, { question: 'Why does runRefund in src/handlers/refund.handler.js exist?' });
      const exact = (r.data as Data).links.filter((l) => l.tier === 'exact');
      assert.deepEqual(exact.map((l) => l.at), ['src/handlers/refund.handler.js:1']);
    });

    it('a file asked about with no name in it is the subject itself, as its module', async () => {
      const r = await askTool.invoke({ workspace: fx.ws }, { question: 'What depends on src/handlers/cancel.handler.js?' });
      const data = r.data as Data;
      assert.equal(data.focus.length, 1);
      assert.equal(data.focus[0]?.tier, 'exact');
      assert.match(data.links[0]!.why, /is its file/);
      // The question has no phrase for the knowledge memory to link; it is indexed all the same, and not called empty.
      assert.doesNotMatch(r.text, /knowledge memory empty/);
    });

    it('a file name two folders hold gives both files, weak: none is chosen', async () => {
      const r = await askTool.invoke({ workspace: fx.ws }, { question: 'What is in sessions-request.handler.js?' });
      const data = r.data as Data;
      assert.deepEqual(data.links.filter((l) => l.tier === 'weak').map((l) => l.at).sort(), ['src/handlers/sessions-request.handler.js:1', 'src/other/sessions-request.handler.js:1']);
      assert.match(data.links[0]!.why, /ends the paths of 2 files/);
    });

    it('a file that is not indexed is said to be missing, and nothing weak is answered about in its place', async () => {
      const r = await askTool.invoke({ workspace: fx.ws }, { question: 'Why does execute in payments.handler.js work this way?' });
      const data = r.data as Data;
      assert.deepEqual(data.focus, []);
      assert.match(r.text, /`payments\.handler\.js` names no indexed file/);
    });
  });
});
