import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { IgnoreRules } from '../../src/core/repo/gitignore.js';
import { walkWorkspace } from '../../src/core/repo/walk.js';
import { tempDir, write } from '../helpers/fixtures.js';

/*
 * The workspace walk and the single-path check a watcher's event takes share
 * one .gitignore matcher: whatever the walk lists, the path check keeps, and
 * whatever it leaves out, the path check ignores.
 */

const FILES = [
  'src/a.ts',
  'src/gen/out.ts',
  'src/keep/b.ts',
  'build/x.ts',
  'lib/build/y.ts',
  'pkg/c.ts',
  'pkg/gen/d.ts',
  'pkg/vendor/e.ts',
  'notes.log.ts',
  'excluded/f.ts',
  'node_modules/m/index.ts',
  'top/z.ts',
  'deep/top/z.ts',
];

describe('the workspace walk and its .gitignore matcher', () => {
  let d: { root: string; cleanup: () => void };
  before(() => {
    d = tempDir();
    for (const f of FILES) write(d.root, f, 'export {};\n');
    write(d.root, '.gitignore', 'build/\n*.log.ts\n/top\n');
    write(d.root, 'src/.gitignore', 'gen\n');
    write(d.root, 'pkg/.gitignore', 'gen/\nvendor/e.ts\n');
  });
  after(() => d.cleanup());

  it('lists what no .gitignore on the way down, no exclude pattern and no always-skipped folder leaves out', async () => {
    const walk = await walkWorkspace(d.root, { pick: (name) => (name.endsWith('.ts') ? 'ts' : undefined), exclude: ['excluded/'] });
    assert.deepEqual(
      walk.files.map((f) => f.rel),
      ['deep/top/z.ts', 'pkg/c.ts', 'src/a.ts', 'src/keep/b.ts'],
    );
    assert.ok(walk.files.every((f) => f.tag === 'ts' && f.size > 0 && path.isAbsolute(f.abs)));
    assert.deepEqual(walk.skipped, []);
  });

  it('agrees with the path check a watcher uses, file by file', async () => {
    const walk = await walkWorkspace(d.root, { pick: () => true, exclude: ['excluded/'] });
    const listed = new Set(walk.files.map((f) => f.rel));
    const rules = new IgnoreRules(d.root, ['excluded/']);
    for (const f of FILES.filter((x) => !x.startsWith('node_modules/'))) assert.equal(!rules.ignoresPath(f), listed.has(f), f);
  });

  it('walks one folder under the rules of the folders above it', async () => {
    const walk = await walkWorkspace(d.root, { pick: () => true, under: 'pkg' });
    assert.deepEqual(walk.files.map((f) => f.rel), ['pkg/.gitignore', 'pkg/c.ts']);
  });

  it('says what it passed over: a symlink loop and a broken symlink, each with its kind', async () => {
    const t = tempDir();
    try {
      write(t.root, 'a/x.ts', 'export {};\n');
      fs.symlinkSync(path.join(t.root, 'a'), path.join(t.root, 'a', 'again'));
      fs.symlinkSync(path.join(t.root, 'missing.ts'), path.join(t.root, 'gone.ts'));
      const walk = await walkWorkspace(t.root, { pick: () => true });
      assert.deepEqual(walk.files.map((f) => f.rel), ['a/x.ts']);
      assert.deepEqual(
        walk.skipped.map((s) => [s.rel, s.kind]).sort(),
        [
          ['a/again', 'symlink-loop'],
          ['gone.ts', 'broken-symlink'],
        ],
      );
      assert.ok(walk.skipped.every((s) => s.reason.length > 0));
    } finally {
      t.cleanup();
    }
  });
});
