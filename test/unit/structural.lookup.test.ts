import * as assert from 'node:assert/strict';
import { goReceiverType, linkableSymbolCount, linkableSymbolsNamed, reachedSymbolIndex, resolveOneSymbol, resolveSymbols, symbolBySid, symbolIdsFingerprint, symbolSource, symbolsBySid, symbolsNamedLike } from '../../src/core/structural/lookup.js';
import { LinkReach, linkEntity } from '../../src/core/linking/link.js';
import type { Reach } from '../../src/core/linking/symbolIndex.js';
import { StructuralIndexer } from '../../src/core/structural/index/indexer.js';
import { isIndexed } from '../../src/core/structural/lookup.js';
import { hasSourceSymbols } from '../../src/core/structural/status.js';
import type { Workspace } from '../../src/core/store/workspace.js';
import { openWorkspace } from '../../src/core/workspace.js';
import { askTool } from '../../src/core/tools/ask.js';
import { indexedFiles, type FilledExample } from '../helpers/example.js';
import { copyExample, tempDir, write } from '../helpers/fixtures.js';

/* The symbol namespace, the seam the other memories use: symbols by id and by words, and the rows the linker indexes. */

describe('the symbol namespace (examples/settlement)', function () {
  this.timeout(120_000);
  let ws: Workspace;
  let indexer: StructuralIndexer;
  let cleanup: () => void;

  before(async () => {
    const ex = copyExample();
    cleanup = ex.cleanup;
    ws = await openWorkspace(ex.root);
    indexer = await StructuralIndexer.create(ws);
    await indexer.indexAll();
  });
  after(async () => {
    await indexer.dispose();
    await ws.close();
    cleanup();
  });

  it('finds a symbol by its id, and none for an id it does not have', async () => {
    const retry = await resolveOneSymbol(ws.db, 'SettlementService.retry', { root: ws.root });
    assert.deepEqual(await symbolBySid(ws.db, retry.sid), retry);
    assert.equal(await symbolBySid(ws.db, 'ts `nowhere.ts`/Nothing#'), undefined);
  });

  it('a file name or the end of a path resolves to that file\'s module; a name whose last part is no extension stays a name', async () => {
    const byName = await resolveSymbols(ws.db, 'RetryPolicy.ts', { root: ws.root });
    assert.deepEqual(byName.map((s) => [s.kind, s.path]), [['module', 'src/settlement/RetryPolicy.ts']]);
    const byTail = await resolveSymbols(ws.db, 'settlement/SettlementService.ts', { root: ws.root });
    assert.deepEqual(byTail.map((s) => [s.kind, s.path]), [['module', 'src/settlement/SettlementService.ts']]);
    // A tail matches at a folder boundary only: `lementService.ts` is no file.
    await assert.rejects(resolveSymbols(ws.db, 'lementService.ts', { root: ws.root }), /No symbol matches/);
    assert.ok((await resolveSymbols(ws.db, 'SettlementService.retry', { root: ws.root })).every((s) => s.kind === 'method'));
  });

  it('lists the symbols whose names hold a word, with the type they belong to', async () => {
    const hits = await symbolsNamedLike(ws.db, ['RETRY']);
    const retry = hits.find((h) => h.qname === 'SettlementService.retry');
    assert.equal(retry?.container, 'SettlementService');
    assert.ok(hits.every((h) => h.name.toLowerCase().includes('retry') && h.kind !== 'module' && h.kind !== 'constructor'));
    assert.deepEqual(await symbolsNamedLike(ws.db, []), []);
  });

  it('supplies the linker the symbols a set of names reaches, with every symbol counted', async () => {
    const source = symbolSource(ws.db, 50);
    const pages: number[] = [];
    const names: string[] = [];
    let counted = 0;
    for await (const page of source.names()) {
      pages.push(page.length);
      for (const { name, n } of page) {
        names.push(name);
        counted += n;
      }
    }
    assert.ok(pages.length > 1 && pages.slice(0, -1).every((n) => n === 50), `a page of names at a time (${pages.join(', ')})`);
    assert.equal(names.length, new Set(names).size, 'each name once');
    assert.equal(counted, await linkableSymbolCount(ws.db), 'every linkable symbol counted');
    const subjects = [
      { name: 'SettlementService.retry', type: 'component' },
      { name: 'settlement/RetryPolicy.ts', type: 'component' },
    ];
    const index = await reachedSymbolIndex(ws.db, new LinkReach(subjects));
    const retry = index.byName.get('retry')?.find((s) => s.qname === 'SettlementService.retry');
    assert.equal(retry?.parentName, 'SettlementService');
    assert.ok(retry!.endLine >= retry!.line);
    assert.equal(index.moduleAt('settlement/RetryPolicy.ts')?.path, 'src/settlement/RetryPolicy.ts');
    assert.equal(index.size, counted, 'the whole count, though it holds only what the names reach');
    // The names found by text (SQLite's LIKE) are those a pass over every name finds.
    const reach = new LinkReach([{ name: 'settlement retries', type: 'concept' }, { name: 'RetryPolicy.maxAttempts', type: 'component' }]);
    const everyName: Reach = { words: reach.words, paths: reach.paths, nameFilter: () => undefined, mayReach: (n, w) => reach.mayReach(n, w), reaches: (s) => reach.reaches(s) };
    const byText = await reachedSymbolIndex(ws.db, reach);
    const byPass = await reachedSymbolIndex(ws.db, everyName);
    assert.deepEqual(byText.all.map((s) => s.sid).sort(), byPass.all.map((s) => s.sid).sort());
    assert.ok(byText.all.length > 0);
    for (const w of reach.words) assert.equal(byText.idf(w), byPass.idf(w), `the weight of "${w}"`);
    assert.ok(index.all.length < counted / 4, `${index.all.length} of ${counted} symbols held`);
    assert.deepEqual(linkEntity(index, subjects[0]!).symbols.map((s) => s.qname), ['SettlementService.retry']);
    assert.equal(await linkableSymbolsNamed(ws.db, 'SettlementService'), 1);
    const bySid = await symbolsBySid(ws.db, [retry!.sid, 'ts `nowhere.ts`/Nothing#']);
    assert.deepEqual([...bySid.keys()], [retry!.sid]);
    assert.equal(bySid.get(retry!.sid)?.endLine, retry!.endLine);
  });

  it('fingerprints the symbol ids and counts the linkable ones: the same while nothing changes, moved when a symbol is added', async () => {
    const first = await symbolIdsFingerprint(ws.db, 40);
    const linkable = await linkableSymbolCount(ws.db);
    assert.equal(await symbolIdsFingerprint(ws.db), first, 'pages of any size read the same ids');
    await indexer.updateFiles([write(ws.root, 'src/ops/Replay.ts', 'export function replayAll(): void {}\n')]);
    assert.notEqual(await symbolIdsFingerprint(ws.db), first);
    assert.equal(await linkableSymbolCount(ws.db), linkable + 1, 'the count kept for questions moves with the write');
  });

  it('says whether anything is indexed, and whether the source declares symbols', async () => {
    assert.equal(await isIndexed(ws.db), true);
    assert.equal(await hasSourceSymbols(ws.db), true);
    const t = tempDir();
    try {
      const empty = await openWorkspace(t.root);
      try {
        assert.equal(await isIndexed(empty.db), false);
        assert.equal(await hasSourceSymbols(empty.db), false);
      } finally {
        await empty.close();
      }
    } finally {
      t.cleanup();
    }
  });
});

describe('Go methods named with their receiver type', function () {
  this.timeout(120_000);

  it('`Minter.CalculateBlockProvision` resolves the method Go indexes as `types.CalculateBlockProvision`; another receiver or package does not', async () => {
    assert.equal(goReceiverType('func (m Minter) CalculateBlockProvision(current, previous time.Time) (sdk.Coin, error) {'), 'Minter');
    assert.equal(goReceiverType('func (k *Keeper) SetTotalEscrowForDenom(ctx sdk.Context, coin sdk.Coin) {'), 'Keeper');
    assert.equal(goReceiverType('func (s Set[T]) Has(v T) bool {'), 'Set');
    assert.equal(goReceiverType('func CalculateBlockProvision() {}'), undefined);
    const t = tempDir();
    try {
      write(t.root, 'go.mod', 'module example.com/mint\n\ngo 1.21\n');
      // The type declared in another file of the package (generated code), its methods here: Go's index places them under the package.
      write(t.root, 'types/mint.pb.go', 'package types\n\ntype Minter struct{ Rate int }\n\ntype Other struct{}\n');
      write(t.root, 'types/minter.go', 'package types\n\n// CalculateBlockProvision returns the coins to mint.\nfunc (m Minter) CalculateBlockProvision() int {\n\treturn m.Rate\n}\n\nfunc (o *Other) Reset() {}\n');
      const ws = await openWorkspace(t.root);
      const indexer = await StructuralIndexer.create(ws);
      try {
        await indexer.indexAll();
        const byReceiver = await resolveOneSymbol(ws.db, 'Minter.CalculateBlockProvision', { root: ws.root });
        assert.equal(byReceiver.name, 'CalculateBlockProvision');
        assert.equal(byReceiver.path, 'types/minter.go');
        assert.deepEqual(await resolveOneSymbol(ws.db, 'types.Minter.CalculateBlockProvision', { root: ws.root }), byReceiver);
        // The structural id stays the package-qualified one.
        assert.deepEqual(await resolveOneSymbol(ws.db, 'types.CalculateBlockProvision', { root: ws.root }), byReceiver);
        await assert.rejects(resolveOneSymbol(ws.db, 'Other.CalculateBlockProvision', { root: ws.root }), /No symbol matches/);
        await assert.rejects(resolveOneSymbol(ws.db, 'billing.Minter.CalculateBlockProvision', { root: ws.root }), /No symbol matches/);
        assert.equal((await resolveOneSymbol(ws.db, 'Other.Reset', { root: ws.root })).name, 'Reset');
      } finally {
        await indexer.dispose();
        await ws.close();
      }
    } finally {
      t.cleanup();
    }
  });
});

describe("a declaration file's typing and the implementation it types are one answer", function () {
  this.timeout(120_000);
  let fx: FilledExample;
  let ws: Workspace;

  before(async () => {
    fx = await indexedFiles({
      'package.json': '{"name":"ui","main":"src/index.js","types":"src/index.d.ts"}\n',
      // A component that wraps a function of its own name, exported from the package's index, whose .d.ts beside it types it as `any`.
      'src/Dropdown/index.jsx': "import React from 'react';\n\nconst DropdownToggle = React.forwardRef(\n  function DropdownToggle({ as, ...props }, ref) {\n    return <button ref={ref} {...props} />;\n  },\n);\n\nconst Plain = function Plain() { return null; };\n\nexport { DropdownToggle, Plain };\n",
      'src/index.js': "export { DropdownToggle, Plain } from './Dropdown';\nexport { Menu } from './menus';\n",
      'src/menus.js': "export { Menu } from './Menu/Menu';\n",
      'src/Menu/Menu.jsx': 'export function Menu() { return null; }\n',
      'src/index.d.ts': 'export const\n  DropdownToggle: any,\n  Plain: any,\n  Menu: any;\n',
      // Same names with no tie: a vendor typing nobody re-exports, and a second Toggle implementation.
      'types/vendor.d.ts': 'export const Sidebar: any;\n',
      'src/Sidebar.jsx': 'export const Sidebar = () => null;\n',
      'src/Toggle/index.jsx': 'export const Toggle = () => null;\n',
      'src/Toggle/index.d.ts': 'export const Toggle: any;\n',
      'src/legacy/Toggle.jsx': 'export const Toggle = () => 1;\n',
    });
    ws = fx.ws;
  });
  after(() => fx.close());

  it('resolves a name declared in index.d.ts and re-exported by index.js to the implementation, a re-export or two deep', async () => {
    const toggle = await resolveOneSymbol(ws.db, 'DropdownToggle', { root: ws.root });
    assert.equal(`${toggle.path}:${toggle.line}`, 'src/Dropdown/index.jsx:3');
    assert.equal((await resolveOneSymbol(ws.db, 'Plain', { root: ws.root })).path, 'src/Dropdown/index.jsx');
    assert.equal((await resolveOneSymbol(ws.db, 'Menu', { root: ws.root })).path, 'src/Menu/Menu.jsx');
    // The typing beside its own implementation file is the same symbol too.
    const toggles = await resolveSymbols(ws.db, 'Toggle', { root: ws.root });
    assert.deepEqual(toggles.map((s) => s.path).sort(), ['src/Toggle/index.jsx', 'src/legacy/Toggle.jsx'], 'the typing merged into its implementation; the unrelated Toggle stays');
  });

  it('keeps same-named symbols with no tie apart: Tenure does not pick one', async () => {
    await assert.rejects(resolveOneSymbol(ws.db, 'Sidebar', { root: ws.root }), /matches 2 symbols/);
    await assert.rejects(resolveOneSymbol(ws.db, 'Toggle', { root: ws.root }), /matches 2 symbols/);
  });

  it('ask about the component has it as its subject, an exact link', async () => {
    const r = await askTool.invoke({ workspace: ws }, { question: 'Why does DropdownToggle work this way?' });
    const data = r.data as { focus: { qname: string; tier: string }[]; links: { qname: string; at: string; tier: string }[] };
    assert.equal(data.focus[0]?.qname, 'DropdownToggle');
    assert.equal(data.focus[0]?.tier, 'exact');
    assert.equal(data.links.find((l) => l.tier === 'exact')?.at, 'src/Dropdown/index.jsx:3');
  });
});

describe('a TypeScript namespace merged into the class or type of its name is one answer', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await indexedFiles({
      // The shape of functional libraries: a class or type with its statics in a namespace of the same name, in one file.
      'src/err.ts': 'export class Err<E> {\n  constructor(private readonly error: E) {}\n  getErr(): E {\n    return this.error;\n  }\n}\n\nexport namespace Err {\n  export function of<E>(error: E): Err<E> {\n    return new Err(error);\n  }\n}\n',
      'src/trilean.ts': 'export type Trilean = boolean | undefined;\n\nexport namespace Trilean {\n  export function and(a: Trilean, b: Trilean): Trilean {\n    return a === false || b === false ? false : a && b;\n  }\n}\n',
      // Same names with no merge: a class in one package and a namespace of its name in another.
      'src/act/diagnostic.ts': 'export class Diagnostic {\n  message = "";\n}\n',
      'src/rules/diagnostic.ts': 'export namespace Diagnostic {\n  export const empty = 0;\n}\n',
    });
  });
  after(() => fx.close());

  it('resolves the name to the declaration the namespace extends: the class, the type', async () => {
    const err = await resolveOneSymbol(fx.ws.db, 'Err', { root: fx.root });
    assert.deepEqual([err.kind, `${err.path}:${err.line}`], ['class', 'src/err.ts:1']);
    const trilean = await resolveOneSymbol(fx.ws.db, 'Trilean', { root: fx.root });
    assert.deepEqual([trilean.kind, `${trilean.path}:${trilean.line}`], ['type', 'src/trilean.ts:1']);
    // The namespace's own members are still reached through it.
    assert.equal((await resolveOneSymbol(fx.ws.db, 'Trilean.and', { root: fx.root })).kind, 'function');
  });

  it('the linker counts them as one symbol: a document or a question naming `Err` links the class, exactly', async () => {
    assert.equal(await linkableSymbolsNamed(fx.ws.db, 'Err'), 1);
    assert.equal(await linkableSymbolsNamed(fx.ws.db, 'Diagnostic'), 2, 'a namespace of another file is another symbol');
    const r = await askTool.invoke({ workspace: fx.ws }, { question: 'Why does Trilean work this way?' });
    const data = r.data as { focus: { qname: string; tier: string }[]; links: { qname: string; at: string; tier: string }[] };
    assert.deepEqual([data.focus[0]?.qname, data.focus[0]?.tier], ['Trilean', 'exact']);
    assert.equal(data.links.find((l) => l.tier === 'exact')?.at, 'src/trilean.ts:1');
  });

  it('keeps a namespace of another file apart, and does not ask for parameters that cannot tell a class from a namespace', async () => {
    await assert.rejects(resolveOneSymbol(fx.ws.db, 'Diagnostic', { root: fx.root }), (e: Error) => {
      assert.match(e.message, /matches 2 symbols; Tenure will not pick one\. Ask again with a qualified name, a path:line, or one of these ids/);
      assert.doesNotMatch(e.message, /parameters of the overload/);
      return true;
    });
  });
});

describe('an overload named with its parameters', function () {
  this.timeout(120_000);
  let fx: FilledExample;

  before(async () => {
    fx = await indexedFiles({
      'src/main/java/com/acme/PipelineService.java': [
        'package com.acme;',
        '',
        'public class PipelineService {',
        '    public Result transfer(StartMessage request) {',
        '        return transfer(request, new OutputSink());',
        '    }',
        '',
        '    @Override',
        '    public Result transfer(final StartMessage request,',
        '                           @NonNull DataSink sink) {',
        '        return sink.write(request);',
        '    }',
        '',
        '    public Result transfer(Map<String, List<Integer>> parts, DataSink sink, int retries) {',
        '        return null;',
        '    }',
        '}',
        '',
      ].join('\n'),
      'src/store.py': ['class Store:', '    def put(self, key):', '        pass', '', '    def get(self, key, default=None):', '        return default', ''].join('\n'),
    });
  });
  after(() => fx.close());

  const lines = async (text: string) => (await resolveSymbols(fx.ws.db, text, { root: fx.root })).map((s) => s.line);

  it('resolves the overload whose declaration takes the parameters written, by type, by name or both; wrapped and annotated declarations included', async () => {
    assert.deepEqual(await lines('PipelineService.transfer'), [4, 9, 14]);
    assert.deepEqual(await lines('PipelineService.transfer(StartMessage)'), [4]);
    assert.deepEqual(await lines('PipelineService.transfer(StartMessage request, DataSink sink)'), [9]);
    assert.deepEqual(await lines('transfer(StartMessage, DataSink)'), [9]);
    assert.deepEqual(await lines('PipelineService.transfer(request, sink)'), [9]);
    assert.deepEqual(await lines('PipelineService.transfer(Map<String, List<Integer>> parts, DataSink, int)'), [14]);
  });

  it('keeps every overload when no declaration takes the parameters written, and a single symbol whatever they are', async () => {
    await assert.rejects(resolveOneSymbol(fx.ws.db, 'PipelineService.transfer(String)', { root: fx.root }), /matches 3 symbols; Tenure will not pick one. Ask again with the parameters of the overload you mean \(`transfer\(String, int\)`\)/);
    // One symbol of that name: the parameters written do not hide it (`get()` for a method that takes a key).
    assert.deepEqual((await resolveSymbols(fx.ws.db, 'Store.get()', { root: fx.root })).map((s) => s.qname), ['store.Store.get']);
  });

  it('ask takes a name with its parameters as one identifier and answers about that overload, exactly', async () => {
    const r = await askTool.invoke({ workspace: fx.ws }, { question: 'Why does PipelineService.transfer(StartMessage request, DataSink sink) work this way?' });
    const data = r.data as { focus: { qname: string; tier: string }[]; links: { qname: string; at: string; tier: string }[] };
    assert.equal(data.focus[0]?.qname, 'com.acme.PipelineService.transfer');
    assert.equal(data.focus[0]?.tier, 'exact');
    assert.equal(data.links.find((l) => l.tier === 'exact')?.at, 'src/main/java/com/acme/PipelineService.java:9');
  });
});
