import * as assert from 'node:assert/strict';
import type { SiteTuple } from '../../src/core/structural/schema';
import { StructuralState, type Sym } from '../../src/core/structural/index/state';

/** A call site of `name` in a file, as the store keeps it. */
const call = (id: number, name: string): SiteTuple => [id, 1, 'call', name, null, null, 1, 0, null];
/** A read of a configuration key by its string. */
const keyRead = (id: number, name: string): SiteTuple => [id, 1, 'read', name, null, null, 1, 0, null, 'env-var'];

/*
 * Which files use a name is what a change's re-resolution reads: a definition
 * of `save` that comes or goes reaches every file with a site named `save`.
 * The index keeps one file as its id, a few as a list, many as a set; the
 * answer must be the same through every form, and a file that leaves must
 * leave every form.
 */
describe('working set: the files that use a site name', () => {
  const files = (state: StructuralState, name: string) => [...state.filesWithSite(name)].sort((a, b) => a - b);

  it('lists each file once, however many of its sites use the name', () => {
    const state = new StructuralState();
    state.indexSites(7, [call(1, 'save'), call(2, 'save'), call(3, 'load')]);
    assert.deepEqual(files(state, 'save'), [7]);
    assert.deepEqual(files(state, 'load'), [7]);
    assert.deepEqual(files(state, 'missing'), []);
    assert.equal(state.siteCount, 3);
  });

  it('keeps the answer as a name goes from one file to a list to a set and back', () => {
    const state = new StructuralState();
    const ids = Array.from({ length: 40 }, (_, i) => i + 1);
    for (const id of ids) state.indexSites(id, [call(id, 'save')]);
    assert.deepEqual(files(state, 'save'), ids);
    for (const id of ids.slice(0, 39)) state.removeFile(id);
    assert.deepEqual(files(state, 'save'), [40]);
    state.removeFile(40);
    assert.deepEqual(files(state, 'save'), []);
    assert.equal(state.siteCount, 0);
  });

  it('a file indexed again replaces its names instead of adding to them', () => {
    const state = new StructuralState();
    state.indexSites(1, [call(1, 'save')]);
    state.indexSites(2, [call(2, 'save')]);
    state.indexSites(1, [call(3, 'load')]);
    assert.deepEqual(files(state, 'save'), [2]);
    assert.deepEqual(files(state, 'load'), [1]);
    assert.equal(state.siteCount, 2);
  });

  it('a file that reads a key by its string is known until it leaves', () => {
    const state = new StructuralState();
    state.indexSites(3, [keyRead(1, 'DATABASE_URL')]);
    assert.ok(state.keyReadFiles.has(3));
    state.removeFile(3);
    assert.ok(!state.keyReadFiles.has(3));
    assert.deepEqual(files(state, 'DATABASE_URL'), []);
  });

  it('a name of any text, a new line or a quote included, leaves with its file', () => {
    const state = new StructuralState();
    state.indexSites(4, [keyRead(1, 'a\n"b"')]);
    assert.deepEqual(files(state, 'a\n"b"'), [4]);
    state.removeFile(4);
    assert.deepEqual(files(state, 'a\n"b"'), []);
  });
});

/*
 * Resolution finds a name's candidates through this index (a call of `save`
 * on a receiver of unknown type may reach every `save`). Most names have one
 * symbol, held as itself; the answer must not depend on the form.
 */
describe('working set: the symbols of a name', () => {
  const sym = (id: number, fileId: number, name: string): Sym => ({
    id, sidKey: id, name, qname: name, kind: 'function', fileId, parentId: null, exported: true,
  });
  const ids = (state: StructuralState, name: string) => state.symbolsNamed(name).map((s) => s.id).sort((a, b) => a - b);

  it('one symbol, then several, then one again as files leave', () => {
    const state = new StructuralState();
    state.addSymbol(sym(1, 1, 'save'));
    assert.deepEqual(ids(state, 'save'), [1]);
    state.addSymbol(sym(2, 2, 'save'));
    state.addSymbol(sym(3, 3, 'save'));
    state.addSymbol(sym(4, 3, 'load'));
    assert.deepEqual(ids(state, 'save'), [1, 2, 3]);
    state.removeFile(1);
    assert.deepEqual(ids(state, 'save'), [2, 3]);
    state.removeFile(3);
    assert.deepEqual(ids(state, 'save'), [2]);
    assert.deepEqual(ids(state, 'load'), []);
    state.removeFile(2);
    assert.deepEqual(ids(state, 'save'), []);
  });
});
