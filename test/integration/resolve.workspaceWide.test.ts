import * as assert from 'node:assert/strict';
import { whatBreaks } from '../../src/core/structural/impact/whatBreaks.js';
import { resolveOneSymbol } from '../../src/core/structural/lookup.js';
import { MAX_WORKSPACE_CANDIDATES } from '../../src/core/structural/index/targets.js';
import { indexedFiles } from '../helpers/example.js';

/** n classes, each in its own file, each with a `flush()`; a caller that imports one of them and calls `flush` on an untyped receiver. */
function files(n: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < n; i++) out[`src/sinks/Sink${i}.ts`] = `export class Sink${i} {\n  flush(): void {}\n}\n`;
  out['src/drain.ts'] = 'export function drain(x: any): void {\n  x.flush();\n}\n';
  out['src/local.ts'] = "import { Sink0 } from './sinks/Sink0';\nexport function local(x: any): void {\n  x.flush();\n  new Sink0();\n}\n";
  return out;
}

/*
 * A member called on a receiver of unknown type is matched by name. Matched
 * across the whole workspace (no candidate in the file's scope), the list of
 * candidates grows with the repository, not with the file: past a few, the
 * site is one edge counted by name, and an answer about any of them says it.
 * Candidates in scope (what the file imports) keep the larger bound.
 */
describe('resolution: a name matched across the whole workspace', function () {
  this.timeout(60_000);

  it(`lists up to ${MAX_WORKSPACE_CANDIDATES} candidates as ambiguous edges, one each`, async () => {
    const fx = await indexedFiles(files(MAX_WORKSPACE_CANDIDATES));
    try {
      const edges = await fx.ws.db.all<{ dst_id: number | null; tier: string; candidates: number }>("SELECT e.dst_id, e.tier, e.candidates FROM edges e JOIN files f ON f.id = e.file_id WHERE f.path = 'src/drain.ts' AND e.name = 'flush'");
      assert.equal(edges.length, MAX_WORKSPACE_CANDIDATES);
      assert.ok(edges.every((e) => e.tier === 'ambiguous' && e.dst_id !== null && e.candidates === MAX_WORKSPACE_CANDIDATES));
    } finally {
      await fx.close();
    }
  });

  it('past that, keeps one edge counted by name, which what_breaks reports for each candidate; a call whose candidate is in scope is still listed', async () => {
    const n = MAX_WORKSPACE_CANDIDATES + 3;
    const fx = await indexedFiles(files(n));
    try {
      const edges = await fx.ws.db.all<{ dst_id: number | null; tier: string; candidates: number; reason: string }>("SELECT e.dst_id, e.tier, e.candidates, e.reason FROM edges e JOIN files f ON f.id = e.file_id WHERE f.path = 'src/drain.ts' AND e.name = 'flush'");
      assert.equal(edges.length, 1);
      assert.equal(edges[0]!.dst_id, null);
      assert.equal(edges[0]!.tier, 'ambiguous');
      assert.equal(edges[0]!.candidates, n);
      assert.match(edges[0]!.reason, new RegExp(`${n} candidates in the workspace.*counted by name`));
      // In scope (local.ts imports Sink0), the one candidate there is the finding.
      const local = await fx.ws.db.all<{ tier: string }>("SELECT e.tier FROM edges e JOIN files f ON f.id = e.file_id JOIN symbols s ON s.id = e.dst_id JOIN files sf ON sf.id = s.file_id WHERE f.path = 'src/local.ts' AND e.name = 'flush' AND sf.path = 'src/sinks/Sink0.ts'");
      assert.deepEqual(local.map((e) => e.tier), ['inferred']);
      const r = await whatBreaks(fx.ws.db, await resolveOneSymbol(fx.ws.db, 'Sink5.flush', { root: fx.root }), 1);
      assert.equal(r.wideSites, 1);
      assert.ok(!r.dependents.some((d) => d.sites.some((site) => site.path === 'src/drain.ts')), 'the counted site is not listed as a dependent');
      assert.match(r.notSeen.join('; ') + r.summary, /1 call site matching its name among too many candidates to list/);
    } finally {
      await fx.close();
    }
  });
});
