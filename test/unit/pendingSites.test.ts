import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { PendingSites } from '../../src/core/structural/index/pendingSites';
import type { SiteTuple } from '../../src/core/structural/schema';

const tuples = (file: number, n: number): SiteTuple[] =>
  Array.from({ length: n }, (_, i): SiteTuple => (i === 0 ? [file * 100 + i, 1, 'extends', `Base${file}`, null, null, i + 1, 0, null] : [file * 100 + i, 1, 'call', `f${i}`, 'this', null, i + 1, 4, null, 'receiver']));

const spillDirs = () => fs.readdirSync(os.tmpdir()).filter((d) => d.startsWith('tenure-sites-')).sort();

describe('pending sites: a batch holds its sites as text, and past a bound in a temporary file', () => {
  it('keeps small batches in memory and gives back what it was given, in order', () => {
    const p = new PendingSites();
    p.put(3, tuples(3, 4));
    p.put(1, tuples(1, 2));
    assert.equal(p.spilledToDisk, false);
    assert.deepEqual(p.files(), [3, 1]);
    assert.equal(p.text(1), JSON.stringify(tuples(1, 2)));
    const sites = p.sitesOf(3);
    assert.equal(sites.length, 4);
    assert.deepEqual(sites[1], { id: 301, fileId: 3, ownerId: 1, kind: 'call', name: 'f1', receiver: 'this', receiverType: null, line: 2, col: 4, dynamic: null, nameIs: 'receiver' });
    assert.deepEqual(p.inheritance().map((s) => s.name).sort(), ['Base1', 'Base3']);
    p.clear();
    assert.equal(p.size, 0);
  });

  it('moves to a temporary file past its bound, reads each file back whole (UTF-8 too), and deletes the file when cleared', () => {
    const before = spillDirs();
    const p = new PendingSites(200);
    p.put(1, tuples(1, 3));
    assert.equal(p.spilledToDisk, false);
    const wide: SiteTuple[] = [[900, 1, 'read', 'größe_Ω', null, null, 1, 0, null]];
    p.put(2, tuples(2, 6));
    p.put(9, wide);
    assert.equal(p.spilledToDisk, true);
    assert.equal(spillDirs().length, before.length + 1);
    assert.deepEqual(p.files(), [1, 2, 9]);
    assert.equal(p.text(1), JSON.stringify(tuples(1, 3)), 'what was held before the spill is in the file too');
    assert.equal(p.sitesOf(9)[0]!.name, 'größe_Ω');
    // A file put again (re-read in the same batch) is its latest sites; a deleted one is gone with its inheritance.
    p.put(1, tuples(1, 1));
    assert.equal(p.sitesOf(1).length, 1);
    p.delete(2);
    assert.deepEqual(p.files(), [9, 1], 'a file put again comes after the others');
    assert.deepEqual(p.inheritance().map((s) => s.name), ['Base1']);
    assert.equal(p.text(2), undefined);
    p.clear();
    assert.deepEqual(spillDirs(), before, 'the temporary file is gone');
    assert.deepEqual(p.files(), []);
  });
});
