import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findBytecode } from '../../src/core/structural/sources/bytecode/load.js';
import { tempDir, write } from '../helpers/fixtures.js';

/*
 * Where build output is: the walk that finds class folders and jars resolves
 * only the folders it reaches through a symlink, so a linked folder is still
 * walked once, a link back up the tree ends, and the layout is the same as
 * when every folder was resolved.
 */

describe('finding build output in a workspace', () => {
  it('finds class folders, jars and generated sources, through a link once, and ends at a link back up the tree', () => {
    const t = tempDir();
    try {
      write(t.root, 'app/target/classes/com/x/A.class', 'cafebabe');
      write(t.root, 'app/target/app-1.0.jar', 'PK');
      write(t.root, 'app/target/app-1.0-sources.jar', 'PK');
      write(t.root, 'app/target/generated-sources/annotations/com/x/A_.java', 'class A_ {}');
      write(t.root, 'lib/build/classes/java/main/com/y/B.class', 'cafebabe');
      write(t.root, 'lib/build/libs/lib.jar', 'PK');
      write(t.root, 'svc/target/spring-aot/main/sources/com/z/Z__BeanDefinitions.java', 'class Z {}');
      // A second path to the same module, and a link to an ancestor: neither doubles nor loops the walk.
      fs.symlinkSync(path.join(t.root, 'lib'), path.join(t.root, 'lib-link'));
      fs.symlinkSync(t.root, path.join(t.root, 'app', 'up'));
      const layout = findBytecode(t.root);
      assert.deepEqual(layout.classDirs, ['app/target/classes', 'lib/build/classes/java/main']);
      assert.deepEqual(layout.jars, ['app/target/app-1.0.jar', 'lib/build/libs/lib.jar']);
      assert.deepEqual(layout.generatedSourceDirs, ['app/target/generated-sources/annotations']);
      assert.deepEqual(layout.aotSourceDirs, ['svc/target/spring-aot/main/sources']);
    } finally {
      t.cleanup();
    }
  });

  it('lists a module reached both as a folder and through a link once', () => {
    const t = tempDir();
    try {
      write(t.root, 'real/mod/target/classes/com/x/A.class', 'cafebabe');
      fs.symlinkSync(path.join(t.root, 'real', 'mod'), path.join(t.root, 'linked'));
      const layout = findBytecode(t.root);
      // Which path names it is the walk's order; that it is one is the point.
      assert.equal(layout.classDirs.length, 1);
      assert.ok(['linked/target/classes', 'real/mod/target/classes'].includes(layout.classDirs[0]!), layout.classDirs.join(', '));
    } finally {
      t.cleanup();
    }
  });
});
