import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_DEFINITION_DEPTH } from '../../src/core/structural/inventory/bounds.js';
import { Inventory } from '../../src/core/structural/inventory/inventory.js';
import { languageById, languageForPath } from '../../src/core/structural/inventory/languages.js';
import { ParsePool } from '../../src/core/structural/inventory/parsePool.js';
import { factsOf } from '../../src/core/structural/inventory/parseProtocol.js';
import { REPO_ROOT, tempDir, write } from '../helpers/fixtures.js';

/*
 * The cost of a file is bounded: names, scopes and memory stay linear in its
 * size however deep it nests, a file the real grammar's query cannot finish
 * in time is skipped with that reason, and a file that exhausts a parse
 * worker's heap costs only itself — the other files of its batch are parsed.
 */

/** `n` functions, each nested in the previous one and each calling `helper` on a member of `x`. */
function nestedFunctions(n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += `function f${i}() { helper(x.y${i});\n`;
  for (let i = 0; i < n; i++) s += '}\n';
  return s + 'export function helper(a: unknown) { return a; }\n';
}

describe('inventory: bounded cost per file', function () {
  this.timeout(180_000);
  const inventory = new Inventory();
  const ts = languageById('typescript')!;

  it(`folds definitions nested more than ${MAX_DEFINITION_DEPTH} deep into their ancestor, with the reason, keeping every use`, async () => {
    const n = 20_000;
    const t0 = performance.now();
    const facts = await inventory.parse(ts, nestedFunctions(n), 10_000);
    const ms = performance.now() - t0;
    // Kept: the first 64 levels and `helper`; every call and member read is still a site.
    assert.equal(facts.definitions.length, MAX_DEFINITION_DEPTH + 1);
    const deepest = facts.definitions.find((d) => d.name === `f${MAX_DEFINITION_DEPTH - 1}`)!;
    assert.ok(deepest, 'the definition at the bound is kept');
    assert.equal(facts.definitions.find((d) => d.name === 'helper')?.parent, -1);
    const calls = facts.sites.filter((s) => s.kind === 'call' && s.name === 'helper');
    assert.equal(calls.length, n, 'every call to helper is a site');
    // A call inside a folded function counts as a use by the kept ancestor at the bound.
    const last = calls[calls.length - 1]!;
    assert.equal(last.owner, deepest.index);
    assert.equal(calls[0]!.owner, facts.definitions.find((d) => d.name === 'f0')!.index);
    const reasons = (facts.skipped ?? []).map((s) => s.reason);
    assert.deepEqual(reasons, [
      `${n - MAX_DEFINITION_DEPTH} definitions nested more than ${MAX_DEFINITION_DEPTH} deep not indexed as symbols of their own: their uses count as uses of \`f${MAX_DEFINITION_DEPTH - 1}\` (line ${MAX_DEFINITION_DEPTH})`,
    ]);
    assert.ok(ms < 60_000, `20,000 nested functions took ${Math.round(ms)} ms`);
  });

  it('grows linearly with the nesting (time of 16,000 levels against 2,000, one run each)', async () => {
    const time = async (n: number): Promise<number> => {
      const t0 = performance.now();
      await inventory.parse(ts, nestedFunctions(n), 60_000);
      return performance.now() - t0;
    };
    await time(500); // grammar and query loaded
    const small = await time(2_000);
    const large = await time(16_000);
    // 8× the input: linear is 8×, quadratic 64×. The bound leaves room for a noisy, shared machine.
    assert.ok(large / small < 24, `16,000 levels took ${Math.round(large)} ms, 2,000 took ${Math.round(small)} ms (${(large / small).toFixed(1)}×)`);
  });

  it("skips a file the grammar's query cannot finish within the budget, with that reason, and parses the files after it in a fresh worker", async () => {
    // A 40,000-link method chain: tree-sitter's query cursor is quadratic in such nesting
    // (20,000 links take 30 s on two loaded cores; this is four times that). A cancelled query
    // leaves the thread's WebAssembly state unsafe: after a large file, the same worker's later
    // queries read out of bounds and every file after it was lost ("memory access out of bounds").
    const t = tempDir();
    const pool = new ParsePool(1);
    try {
      let chain = 'const r = x';
      // One link a line: a single long line would be skipped as minified before it is parsed.
      for (let i = 0; i < 40_000; i++) chain += `\n  .m${i}()`;
      write(t.root, 'chain.ts', chain + ';\n');
      write(t.root, 'nested.ts', nestedFunctions(2_000));
      const fixtures = path.join(REPO_ROOT, 'test', 'fixtures', 'inventory');
      const after = ['go/ledger.go', 'go/anonymous.go', 'python/sample.py', 'javascript/service.cjs', 'java/SettlementService.java'];
      const job = (abs: string, language: string, budgetMs = 10_000) => ({ root: abs.startsWith(t.root) ? t.root : fixtures, abs, language, maxBytes: 1 << 20, budgetMs });
      const later = after.map((f) => job(path.join(fixtures, f), languageForPath(f)!.id));
      const t0 = performance.now();
      // One batch, one worker: the large file, the one given up on, then the others.
      const out = await pool.parseAll([job(path.join(t.root, 'nested.ts'), 'typescript'), job(path.join(t.root, 'chain.ts'), 'typescript', 1_000), ...later]);
      const ms = performance.now() - t0;
      assert.deepEqual(out.map((r) => r.status), ['parsed', 'skipped', ...later.map(() => 'parsed')]);
      const skipped = out[1]!;
      assert.ok(skipped.status === 'skipped' && skipped.skip.kind === 'parse-timeout', JSON.stringify(skipped));
      assert.equal(skipped.skip.reason, 'took longer than its budget: extraction exceeded 10000 ms');
      assert.ok(ms < 60_000, `gave up after ${Math.round(ms)} ms`);
      // The files after it have the facts a worker that never gave up finds.
      const clean = new ParsePool(1);
      try {
        const expected = await clean.parseAll(later);
        out.slice(2).forEach((r, i) => {
          const e = expected[i]!;
          assert.ok(r.status === 'parsed' && e.status === 'parsed', after[i]);
          assert.deepEqual({ ...factsOf(r), parseMs: 0 }, { ...factsOf(e), parseMs: 0 }, after[i]);
          assert.ok(factsOf(r).definitions.length > 0, `${after[i]} has definitions`);
        });
      } finally {
        await clean.dispose();
      }
    } finally {
      await pool.dispose();
      t.cleanup();
    }
  });

  it("a file that exhausts a parse worker's heap is skipped with the reason; the rest of its batch is parsed", async () => {
    const t = tempDir();
    const pool = new ParsePool(1, 32);
    try {
      write(t.root, 'small.ts', 'export function small(): number {\n  return 1;\n}\n');
      write(t.root, 'large.ts', nestedFunctions(20_000));
      const job = (rel: string) => ({ root: t.root, abs: path.join(t.root, rel), language: 'typescript', maxBytes: 1 << 20, budgetMs: 10_000 });
      assert.ok(fs.statSync(path.join(t.root, 'large.ts')).size < 1 << 20, 'the large file is under the size cap');
      const out = await pool.parseAll([job('small.ts'), job('large.ts'), job('small.ts')]);
      assert.deepEqual(
        out.map((r) => r.status),
        ['parsed', 'skipped', 'parsed'],
      );
      const skipped = out[1]!;
      assert.ok(skipped.status === 'skipped' && skipped.skip.kind === 'worker-crashed', JSON.stringify(skipped));
      assert.match(skipped.skip.reason, /^parse worker crashed on this file \(.*memory limit/);
      for (const r of [out[0]!, out[2]!]) assert.ok(r.status === 'parsed' && factsOf(r).definitions.map((d) => d.name).join() === 'small');
    } finally {
      await pool.dispose();
      t.cleanup();
    }
  });
});
