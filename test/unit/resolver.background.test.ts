import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BackgroundEnricher } from '../../src/core/structural/enrichment/background';
import type { EdgeResolver, ResolutionBatch, ResolverUnit } from '../../src/core/structural/enrichment/types';
import { edgeTier, indexedFixture } from '../integration/lsp.helpers';

/**
 * A resolver that answers from a table (site → target), to drive the pass and
 * the background host without a server: every resolver kind goes through the
 * same contract (types.ts).
 */
class TableResolver implements EdgeResolver {
  readonly tier = 'resolved' as const;
  readonly units = ['file'] as const;
  readonly languages = ['typescript'];
  readonly seen: string[] = [];
  disposed = false;
  constructor(
    private readonly table: Map<string, { path: string; line: number; col: number }>,
    readonly source = 'test:table',
  ) {}
  async start(): Promise<void> {}
  async resolve(unit: ResolverUnit): Promise<ResolutionBatch> {
    if (unit.kind !== 'file') return { sites: [], implementations: [] };
    this.seen.push(unit.path);
    const sites = unit.sites.flatMap((s) => {
      const t = this.table.get(`${s.at.path}:${s.at.line}:${s.at.col}`);
      return t ? [{ site: s.at, targets: [{ at: t }], complete: true, reason: 'table' }] : [];
    });
    return { sites, implementations: [], coveredFiles: [unit.path] };
  }
  async dispose(): Promise<void> {
    this.disposed = true;
  }
}

describe('background enrichment host', function () {
  this.timeout(30_000);

  it('runs after schedule(), coalesces, re-enriches what an edit invalidated, and disposes its resolvers', async () => {
    const fx = await indexedFixture('ts');
    try {
      const rows = await fx.ws.db.all<{ site: string; path: string; line: number; col: number }>(
        `SELECT ef.path || ':' || e.line || ':' || e.col AS site, sf.path, s.line, s.col FROM edges e JOIN files ef ON ef.id = e.file_id JOIN symbols s ON s.id = e.dst_id JOIN files sf ON sf.id = s.file_id WHERE e.kind = 'call' AND e.tier = 'inferred'`,
      );
      const resolver = new TableResolver(new Map(rows.map((r) => [r.site, { path: r.path, line: r.line, col: r.col }])));
      const reports: number[] = [];
      const bg = new BackgroundEnricher(fx.ws.db, [resolver], { root: fx.root, debounceMs: 10, dispatch: false, onReport: (r) => reports.push(r.resolvers[0]!.files) });
      bg.schedule();
      bg.schedule();
      await bg.idle();
      assert.deepEqual(reports, [12], 'two schedules, one pass');
      assert.deepEqual(await edgeTier(fx.ws, 'Checkout.pay', 'PaymentGateway.submit'), ['resolved']);

      const file = path.join(fx.root, 'src/app/Checkout.ts');
      fs.appendFileSync(file, '\n// edited\n');
      await fx.indexer.updateFiles([file]);
      assert.deepEqual(await edgeTier(fx.ws, 'Checkout.pay', 'PaymentGateway.submit'), ['inferred']);
      bg.prioritize({ files: ['src/app/Checkout.ts'] });
      await bg.idle();
      assert.equal(reports.at(-1), 1);
      assert.equal(resolver.seen.at(-1), 'src/app/Checkout.ts');
      assert.deepEqual(await edgeTier(fx.ws, 'Checkout.pay', 'PaymentGateway.submit'), ['resolved']);
      await bg.dispose();
      assert.ok(resolver.disposed);
    } finally {
      await fx.close();
    }
  });

  it('a stream of edits and queries cannot starve enrichment: a pass starts within the longest wait', async () => {
    const fx = await indexedFixture('ts');
    try {
      const resolver = new TableResolver(new Map());
      const reports: number[] = [];
      const bg = new BackgroundEnricher(fx.ws.db, [resolver], { root: fx.root, debounceMs: 100, maxWaitMs: 300, dispatch: false, onReport: () => reports.push(Date.now()) });
      // Edits every 20 ms for 1.5 s: a plain debounce would never fire.
      const end = Date.now() + 1500;
      while (Date.now() < end && !reports.length) {
        bg.schedule();
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(reports.length, 1, 'no pass started while schedule() kept being called');
      // An agent asking about symbols over and over while a pass is due does not push it back either.
      bg.prioritize({ symbols: ['ts `src/app/Checkout.ts`/Checkout#pay().'] });
      const end2 = Date.now() + 1500;
      while (Date.now() < end2 && reports.length < 2) {
        bg.prioritize({ symbols: ['ts `src/app/Checkout.ts`/Checkout#pay().'] });
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(reports.length, 2, 'queries postponed the pass they asked for');
      await bg.dispose();
    } finally {
      await fx.close();
    }
  });

  it('progress counts files as files (never symbol questions), and each resolver reports as it ends, before the pass does', async () => {
    const fx = await indexedFixture('ts');
    try {
      const tsFiles = (await fx.ws.db.get<{ n: number }>("SELECT count(*) AS n FROM files WHERE language = 'typescript' AND skip_reason IS NULL"))!.n;
      const events: string[] = [];
      const files: { source: string; done: number; total: number; units: number }[] = [];
      const bg = new BackgroundEnricher(fx.ws.db, [new TableResolver(new Map(), 'test:first'), new TableResolver(new Map(), 'test:second')], {
        root: fx.root,
        debounceMs: 10,
        onProgress: (p) => {
          if (p.files) files.push({ source: p.source, ...p.files, units: p.total });
          if (events.at(-1) !== `progress ${p.source}`) events.push(`progress ${p.source}`);
        },
        onResolverEnd: (r) => events.push(`end ${r.source} ${r.state} ${r.files} files`),
        onReport: () => events.push('pass end'),
      });
      bg.schedule();
      await bg.idle();
      await bg.dispose();
      // The status bar can move the first language's share while the second server still works.
      assert.deepEqual(events, ['progress test:first', `end test:first complete ${tsFiles} files`, 'progress test:second', `end test:second complete ${tsFiles} files`, 'pass end']);
      for (const source of ['test:first', 'test:second']) {
        const mine = files.filter((f) => f.source === source);
        assert.equal(mine.length, tsFiles, 'one progress report per file');
        assert.ok(mine.every((f) => f.total === tsFiles), `files total is the workspace's ${tsFiles} TypeScript files: ${JSON.stringify(mine.map((f) => f.total))}`);
        assert.deepEqual(mine.map((f) => f.done), [...Array(tsFiles).keys()], 'done counts the files answered before the one at hand');
      }
    } finally {
      await fx.close();
    }
  });
});
