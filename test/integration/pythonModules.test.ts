import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { StructuralIndexer } from '../../src/core/structural/index/indexer.js';
import { openWorkspace } from '../../src/core/workspace.js';
import { tempDir, write } from '../helpers/fixtures.js';

/*
 * Python module names come from the package's own root, never from the name
 * of the folder the checkout sits in: a tree whose root is a package (Django
 * as Debian installs it) is named by how its own modules import it, else by
 * its metadata; the same tree in a folder called `t` gets the same names.
 */

async function moduleNames(root: string): Promise<string[]> {
  const ws = await openWorkspace(root);
  try {
    const indexer = await StructuralIndexer.create(ws);
    try {
      await indexer.indexAll();
    } finally {
      await indexer.dispose();
    }
    const rows = await ws.db.all<{ qname: string }>("SELECT s.qname FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.kind = 'module' AND f.language = 'python' ORDER BY s.qname");
    return rows.map((r) => r.qname);
  } finally {
    await ws.close();
  }
}

describe('Python module names from the package root', function () {
  this.timeout(60_000);

  it('names a root package by the name its own modules import it by, whatever the folder is called', async () => {
    const dir = tempDir();
    try {
      const root = path.join(dir.root, 't');
      write(root, '__init__.py', '');
      write(root, 'db/__init__.py', '');
      write(root, 'db/models.py', 'from shop.utils import slug\n\nclass Model:\n    pass\n');
      write(root, 'utils.py', 'from shop.db.models import Model\n\ndef slug(x):\n    return x\n');
      assert.deepEqual(await moduleNames(root), ['shop', 'shop.db', 'shop.db.models', 'shop.utils']);
    } finally {
      dir.cleanup();
    }
  });

  it('falls back to the metadata when no module imports the package by name, and to no prefix at all when nothing names it', async () => {
    const dir = tempDir();
    try {
      const named = path.join(dir.root, 'checkout-1');
      write(named, '__init__.py', '');
      write(named, 'pyproject.toml', '[project]\nname = "my-shop"\nversion = "1.0"\n');
      write(named, 'core.py', 'from . import helpers\n');
      write(named, 'helpers.py', 'X = 1\n');
      assert.deepEqual(await moduleNames(named), ['my_shop', 'my_shop.core', 'my_shop.helpers']);
      const bare = path.join(dir.root, 'checkout-2');
      write(bare, '__init__.py', '');
      write(bare, 'core.py', 'X = 1\n');
      assert.deepEqual(await moduleNames(bare), ['__init__', 'core']);
    } finally {
      dir.cleanup();
    }
  });

  it('names a folder without __init__.py inside a package as a namespace package of it, and leaves folders outside any package out', async () => {
    const dir = tempDir();
    try {
      const root = path.join(dir.root, 'checkout');
      write(root, 'readthedocs/__init__.py', '');
      write(root, 'readthedocs/notifications/models.py', 'class Notification:\n    pass\n');
      write(root, 'readthedocs/builds/__init__.py', '');
      write(root, 'readthedocs/builds/tasks.py', 'from readthedocs.notifications.models import Notification\n\ndef notify():\n    return Notification()\n');
      write(root, 'scripts/release.py', 'X = 1\n');
      assert.deepEqual(await moduleNames(root), [
        'readthedocs',
        'readthedocs.builds',
        'readthedocs.builds.tasks',
        'readthedocs.notifications.models',
        'release',
      ]);
      // The import by its full name reaches the class.
      const ws = await openWorkspace(root);
      try {
        const edges = await ws.db.all<{ tier: string }>(
          "SELECT e.tier FROM edges e JOIN symbols s ON s.id = e.dst_id JOIN symbols f ON f.id = e.src_id WHERE s.qname = 'readthedocs.notifications.models.Notification' AND f.qname = 'readthedocs.builds.tasks.notify' AND e.kind = 'call'",
        );
        assert.deepEqual(edges.map((e) => e.tier), ['inferred']);
      } finally {
        await ws.close();
      }
    } finally {
      dir.cleanup();
    }
  });
});
