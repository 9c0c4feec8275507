import * as assert from 'node:assert/strict';
import { resolveOneSymbol } from '../../src/core/structural/lookup.js';
import { whatBreaks } from '../../src/core/structural/impact/whatBreaks.js';
import { StructuralIndexer } from '../../src/core/structural/index/indexer.js';
import { openWorkspace } from '../../src/core/workspace.js';
import { tempDir, write } from '../helpers/fixtures.js';

/**
 * A name reached through another module's imports: Python's `__init__` and
 * TypeScript's `export … from` re-export it, Go and Java do not — what a
 * package imports is no name of the package. Found on Go's standard library:
 * `sha512.New()` in crypto/ecdsa was tiered inferred to a variable `sha512`
 * of internal/cpu, which crypto/sha512 imports.
 */
describe('resolution: names re-exported through imports', () => {
  async function callersOf(files: Record<string, string>, symbol: string): Promise<string[]> {
    const t = tempDir();
    try {
      for (const [rel, text] of Object.entries(files)) write(t.root, rel, text);
      const ws = await openWorkspace(t.root);
      const indexer = await StructuralIndexer.create(ws);
      try {
        await indexer.indexAll();
        const r = await whatBreaks(ws.db, await resolveOneSymbol(ws.db, symbol, { root: ws.root }), 1);
        return r.dependents.map((d) => `${d.symbol.name} ${d.tier}`).sort();
      } finally {
        await indexer.dispose();
        await ws.close();
      }
    } finally {
      t.cleanup();
    }
  }

  it('Go: a package does not re-export what it imports', async () => {
    const go = {
      'go.mod': 'module example.com/app\n\ngo 1.21\n',
      'cpu/cpu.go': 'package cpu\n\nvar Level = 1\n\nfunc Probe() int { return Level }\n',
      'hash/hash.go': 'package hash\n\nimport "example.com/app/cpu"\n\nfunc Run() int { return cpu.Probe() }\n',
      'main.go': 'package main\n\nimport "example.com/app/hash"\n\nfunc useLevel() int { return hash.Level }\n\nfunc useRun() int { return hash.Run() }\n',
    };
    assert.deepEqual(await callersOf(go, 'cpu.Level'), ['Probe inferred'], '`hash.Level` names nothing of package hash');
    assert.deepEqual(await callersOf(go, 'hash.Run'), ['useRun inferred']);
  });

  it('Python and TypeScript still re-export', async () => {
    const py = {
      'pkg/__init__.py': 'from .impl import helper\n',
      'pkg/impl.py': 'def helper():\n    return 1\n',
      'main.py': 'from pkg import helper\n\ndef run():\n    return helper()\n',
    };
    assert.deepEqual(await callersOf(py, 'pkg.impl.helper'), ['run inferred']);
    const ts = {
      'src/index.ts': "export * from './impl';\n",
      'src/impl.ts': 'export function helper() {\n  return 1;\n}\n',
      'src/main.ts': "import { helper } from './index';\nexport function run() {\n  return helper();\n}\n",
    };
    assert.deepEqual(await callersOf(ts, 'helper'), ['run inferred']);
  });
});
