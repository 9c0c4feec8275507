import * as assert from 'node:assert/strict';
import { extractionVersion } from '../../src/core/structural/inventory/inventory.js';
import { openWorkspace } from '../../src/core/workspace.js';
import { indexStructure } from '../helpers/example.js';
import { tempDir, write } from '../helpers/fixtures.js';

/*
 * An index keeps the facts of a file until its bytes change. When a new
 * version of Tenure reads files differently (other tag queries, other module
 * names), an index made by the old one is built again from scratch on the
 * next `tenure index`, and says so; otherwise its unchanged files would keep
 * the old facts for good.
 */

describe('an index made by another version of the extractor', function () {
  this.timeout(60_000);

  it('is built again from scratch once, says so, and is incremental after that', async () => {
    const dir = tempDir();
    try {
      write(dir.root, 'shop/__init__.py', '');
      write(dir.root, 'shop/orders/models.py', 'class Order:\n    pass\n');
      write(dir.root, 'shop/billing.py', 'from shop.orders.models import Order\n\ndef bill():\n    return Order()\n');
      const ws = await openWorkspace(dir.root);
      try {
        const index = () => indexStructure(ws);
        const first = await index();
        assert.equal(first.parsed, 3);
        assert.equal(first.rebuilt, undefined);
        assert.equal((await ws.db.get<{ value: string }>("SELECT value FROM meta WHERE key = 'structural.extraction'"))?.value, JSON.stringify(extractionVersion()));

        // As an older version left it: its own version, and the module named as it named it.
        await ws.db.write(async (db) => {
          await db.run("UPDATE meta SET value = '\"1-older\"' WHERE key = 'structural.extraction'");
          await db.run("UPDATE symbols SET qname = 'models.Order' WHERE qname = 'shop.orders.models.Order'");
        });
        const again = await index();
        assert.equal(again.rebuilt, 'extractor changed');
        assert.equal(again.parsed, 3, 'every file is parsed again, though none changed');
        const names = await ws.db.all<{ qname: string }>("SELECT qname FROM symbols WHERE name = 'Order'");
        assert.deepEqual(names.map((n) => n.qname), ['shop.orders.models.Order']);

        const third = await index();
        assert.equal(third.rebuilt, undefined);
        assert.equal(third.parsed, 0);
        assert.equal(third.unchanged, 3);
      } finally {
        await ws.close();
      }
    } finally {
      dir.cleanup();
    }
  });
});
