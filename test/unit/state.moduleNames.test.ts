import * as assert from 'node:assert/strict';
import type { FileFacts } from '../../src/core/model/structural';
import { languageForPath } from '../../src/core/structural/inventory/languages';
import { StructuralState, type FileEntry } from '../../src/core/structural/index/state';

const facts: FileFacts = { language: 'python', definitions: [], sites: [], imports: [], errorNodes: 0, parseMs: 0 };

/** Takes Python files into a working set in the order given and returns their module names. */
function namesTakenIn(order: readonly string[], walked?: readonly string[]): Record<string, string> {
  const state = new StructuralState();
  state.expectFiles(walked);
  const out: Record<string, string> = {};
  for (const rel of order) {
    const entry: FileEntry = {
      id: state.allocate('file'), rel, language: languageForPath(rel), hash: null, size: 0, mtimeMs: 0, skip: null, errorNodes: 0,
      computedAccesses: 0, parseMs: null, packageName: null, moduleName: '', moduleSymbolId: null,
    };
    state.addFileEntry(entry);
    state.addFacts(entry, facts);
    out[rel] = entry.moduleName;
  }
  return out;
}

/*
 * A first index takes files in as their parse workers finish, in no set
 * order. A Python module's name depends on which folders are packages (hold
 * an `__init__.py`): it must not depend on whether the package's
 * `__init__.py` was taken in before the module.
 */
describe('working set: a module is named the same whatever order its files are taken in', () => {
  const files = ['app/__init__.py', 'app/core/__init__.py', 'app/core/Models.py', 'app/core/views.py'];
  const expected = { 'app/__init__.py': 'app', 'app/core/__init__.py': 'app.core', 'app/core/Models.py': 'app.core.Models', 'app/core/views.py': 'app.core.views' };

  it('packages first', () => {
    assert.deepEqual(namesTakenIn(files, files), expected);
  });

  it('modules before their packages, with the walk known', () => {
    assert.deepEqual(namesTakenIn([...files].reverse(), files), expected);
  });

  it('(without the walk, a module taken in before its package would be named as a top-level module)', () => {
    assert.equal(namesTakenIn([...files].reverse())['app/core/views.py'], 'views');
  });
});
