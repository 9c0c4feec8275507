import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ManualClock, systemClock, DAY_MS } from '../src/core/episodic/clock.js';
import { evictEpisodes } from '../src/core/episodic/eviction.js';
import { fingerprints } from '../src/core/episodic/fingerprint.js';
import type { NewEpisode, OutcomeStatus } from '../src/core/episodic/model.js';
import { DEFAULT_OPTIONS } from '../src/core/episodic/options.js';
import { insertConclusion, insertEpisode } from '../src/core/episodic/store.js';
import { rulesForChangeTo } from '../src/core/procedural/hints.js';
import { refreshRules } from '../src/core/procedural/refresh.js';
import { findTool } from '../src/core/tools/catalog.js';
import { resolveOneSymbol } from '../src/core/structural/lookup.js';
import { whatHappenedBefore } from '../src/core/episodic/history.js';
import { StructuralIndexer } from '../src/core/structural/index/indexer.js';
import { openWorkspace } from '../src/core/workspace.js';
import { fmtInt, fmtMs, median, percentile, type Row, verdict } from './stats.js';

/*
 * Benchmark rows for the episodic and procedural memories, in bench/run.ts's
 * row shape [corpus, measurement, result, target]:
 *   - recording overhead of `tenure run` over the bare command (a real
 *     project, real npm and node --test runs, interleaved so load drifts hit
 *     both sides alike);
 *   - what_happened_before, ask, rule mining and eviction with 10,000 episodes.
 * `node out/bench/episodicMain.js` prints them alone.
 */


export const EPISODIC_TARGETS = { runOverheadMs: 300, historyP95Ms: 50, askP95Ms: 250 };


function time(fn: () => void): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

async function timeAsync(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

function scratch(name: string): string {
  const dir = path.join(os.tmpdir(), 'tenure-bench', name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  return dir;
}

function sh(cmd: string, args: string[], cwd: string): { status: number | null; stderr: string } {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stderr: r.stderr ?? '' };
}

/** `tenure run -- <cmd>` against the bare command, on test/fixtures/episodic/mapper-project in a git repository. */
export function runOverheadRows(repoRoot: string, runs = 10): Row[] {
  const cli = path.join(repoRoot, 'dist', 'cli.js');
  const root = scratch('episodic-overhead');
  fs.cpSync(path.join(repoRoot, 'test', 'fixtures', 'episodic', 'mapper-project'), root, { recursive: true });
  for (const a of [['init', '-q'], ['config', 'user.email', 'bench@example.com'], ['config', 'user.name', 'Bench'], ['add', '-A'], ['commit', '-qm', 'start']]) sh('git', a, root);
  sh(process.execPath, [cli, 'index'], root);
  sh('npm', ['run', 'gen', '--silent'], root);
  const label = 'mapper-project (fixture)';
  const rows: Row[] = [];
  const model = path.join(root, 'src', 'model.js');
  const measure = (title: string, cmd: string[], change: boolean) => {
    const bare: number[] = [];
    const wrapped: number[] = [];
    const diffs: number[] = [];
    for (let i = 0; i < runs + 1; i++) {
      // A changed source file makes Tenure diff it and re-index it before mapping it to symbols.
      if (change) fs.appendFileSync(model, `// change ${i}a\n`);
      const b = time(() => sh(cmd[0]!, cmd.slice(1), root));
      if (change) fs.appendFileSync(model, `// change ${i}b\n`);
      const w = time(() => sh(process.execPath, [cli, 'run', '-q', '--', ...cmd], root));
      if (i === 0) continue; // warm-up
      bare.push(b);
      wrapped.push(w);
      diffs.push(w - b);
    }
    const over = median(diffs);
    rows.push([
      label,
      `\`tenure run\` overhead, ${title} (n=${runs}, interleaved)`,
      `bare p50 ${fmtMs(median(bare))} · via tenure run p50 ${fmtMs(median(wrapped))} · **overhead p50 ${fmtMs(over)}**, p95 ${fmtMs(percentile(diffs, 95))}`,
      verdict(over < EPISODIC_TARGETS.runOverheadMs, `< ${EPISODIC_TARGETS.runOverheadMs} ms`),
    ]);
  };
  // `tenure run --version` takes the path `tenure run` takes: the launcher, then the slim bundle.
  const slim = path.join(path.dirname(cli), 'tenure-run.js');
  const startup = [...Array(runs)].map(() => time(() => sh(process.execPath, [cli, 'run', '--version'], root)));
  const nodeStart = [...Array(runs)].map(() => time(() => sh(process.execPath, ['-e', '0'], root)));
  measure('`node -e 0`, nothing changed', [process.execPath, '-e', '0'], false);
  measure('`npm test` (node --test, JUnit report), one source file changed', ['npm', 'test', '--silent'], true);
  rows.push([label, 'of which: starting the CLI (`tenure run --version` − `node -e 0`)', `p50 ${fmtMs(median(startup) - median(nodeStart))} (slim bundle ${(fs.statSync(slim).size / 1e6).toFixed(1)} MB)`, '']);
  return rows;
}

interface Sym {
  sid: string;
  qname: string;
  path: string;
  kind: string;
}

/** Fills a copy of examples/settlement with `n` synthetic episodes over two years, then times the queries. */
export async function historyAtScaleRows(repoRoot: string, n = 10_000): Promise<Row[]> {
  const root = scratch('episodic-10k');
  fs.cpSync(path.join(repoRoot, 'examples', 'settlement'), root, { recursive: true, filter: (src) => !src.includes(`${path.sep}.tenure`) });
  const ws = await openWorkspace(root);
  const rows: Row[] = [];
  const label = `examples/settlement + ${fmtInt(n)} episodes`;
  try {
    const indexer = await StructuralIndexer.create(ws);
    await indexer.indexAll();
    await indexer.dispose();
    const syms = await ws.db.all<Sym & { id: number; name: string; line: number; end_line: number }>(
      "SELECT s.id, s.sid, s.qname, s.name, s.kind, s.line, s.end_line, f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.kind NOT IN ('module', 'constructor')",
    );
    const prints = await fingerprints(ws.db, root, syms.map((s) => ({ id: s.id, sid: s.sid, name: s.name, kind: s.kind, line: s.line, endLine: s.end_line, path: s.path })));
    let seed = 7;
    const rnd = (k: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % k);
    const now = Date.now();
    const commands = ['npm test', 'npm run gen:mappers', 'npm run lint', 'npm run build'];
    const insertMs = await timeAsync(() =>
      ws.db.write(async (db) => {
        for (let i = 0; i < n; i++) {
          const touched = [...new Set([...Array(1 + rnd(3))].map(() => syms[rnd(syms.length)]!))];
          const r = rnd(100);
          const status: OutcomeStatus = r < 70 ? 'success' : r < 95 ? 'failure' : 'rejected';
          const command = commands[rnd(commands.length)]!;
          const at = now - rnd(730) * DAY_MS - rnd(86_400_000);
          const ep: NewEpisode = {
            uid: `bench-${i}`,
            startedAt: at,
            endedAt: at + 30_000,
            source: 'run',
            actor: rnd(2) ? 'agent' : 'person',
            intent: null,
            command,
            commandKind: command === 'npm test' ? 'test' : command.includes('gen') ? 'generate' : command.includes('lint') ? 'lint' : 'build',
            cwd: '.',
            branch: 'main',
            head: null,
            commitMessage: null,
            diff: { files: touched.length, added: 3, removed: 1 },
            touchBasis: 'synthetic',
            touches: touched.map((s) => ({ path: s.path, sid: s.sid, qname: s.qname, kind: s.kind, lines: 3, change: 'modified' as const, fingerprint: prints.get(s.sid) ?? null, fresh: true })),
            outcome: { kind: 'test', status, source: 'build-system', confidence: 'high', exitCode: status === 'success' ? 0 : 1, evidence: status === 'success' ? null : `1 of 40 tests failed: Suite${rnd(9)} › case ${rnd(99)}` },
            tests: status === 'failure' ? { total: 40, failed: 1, errors: 0, skipped: 0, reports: [], failing: [{ suite: `Suite${rnd(9)}`, name: `case ${rnd(99)}`, status: 'failed', message: 'expected 3, got 5', file: null }] } : null,
          };
          const { id } = await insertEpisode(db, ep, command, now);
          if (rnd(10) === 0) await insertConclusion(db, { episodeId: id, at, author: 'agent', authorKind: 'agent', text: 'synthetic conclusion', confidence: 0.3, halfLifeDays: 14, symbols: [] });
        }
      }),
    );
    rows.push([label, 'insert (one transaction, synthetic)', `${fmtMs(insertMs)} (${fmtMs(insertMs / n)} per episode)`, '']);

    const options = DEFAULT_OPTIONS;
    const clock = systemClock;
    // Most-touched symbols first: the worst case for a query.
    const hot = await ws.db.all<{ sid: string; n: number }>('SELECT sid, count(*) AS n FROM episode_touches WHERE sid IS NOT NULL GROUP BY sid ORDER BY n DESC LIMIT 40');
    const targets = await Promise.all(hot.map((h) => resolveOneSymbol(ws.db, h.sid, { root })));
    for (const t of targets.slice(0, 5)) await whatHappenedBefore(ws.db, t, 8, { clock, options, root, rulesFor: (target) => rulesForChangeTo(ws.db, target) });
    const hb: number[] = [];
    let matching = 0;
    for (const t of targets) {
      hb.push(
        await timeAsync(async () => {
          const r = await whatHappenedBefore(ws.db, t, 8, { clock, options, root, rulesFor: (target) => rulesForChangeTo(ws.db, target) });
          matching = Math.max(matching, r.counts.matching);
        }),
      );
    }
    rows.push([
      label,
      `what_happened_before, the ${targets.length} most-touched symbols (n=${hb.length})`,
      `p50 **${fmtMs(median(hb))}** · p95 **${fmtMs(percentile(hb, 95))}** · max ${fmtMs(Math.max(...hb))} (up to ${fmtInt(matching)} matching episodes ranked per query)`,
      verdict(percentile(hb, 95) < EPISODIC_TARGETS.historyP95Ms, `p95 < ${EPISODIC_TARGETS.historyP95Ms} ms`),
    ]);

    const ask = findTool('ask')!;
    const question = 'I am about to change the settlement retry policy. What breaks, why is it three, has anyone tried this before?';
    const askTimes = async (input: Record<string, unknown>, k: number) => {
      await ask.invoke({ workspace: ws }, input);
      const out: number[] = [];
      for (let i = 0; i < k; i++) out.push(await timeAsync(() => ask.invoke({ workspace: ws }, input)));
      return out;
    };
    const withSymbol = await askTimes({ question, symbol: 'SettlementService.retry' }, 20);
    rows.push([label, 'ask, one named symbol (n=20)', `p50 **${fmtMs(median(withSymbol))}** · p95 **${fmtMs(percentile(withSymbol, 95))}**`, verdict(percentile(withSymbol, 95) < EPISODIC_TARGETS.askP95Ms, `p95 < ${EPISODIC_TARGETS.askP95Ms} ms`)]);
    const linked = await askTimes({ question }, 20);
    rows.push([label, 'ask, concepts linked from the question (up to 4 symbols; n=20)', `p50 **${fmtMs(median(linked))}** · p95 **${fmtMs(percentile(linked, 95))}**`, verdict(percentile(linked, 95) < EPISODIC_TARGETS.askP95Ms, `p95 < ${EPISODIC_TARGETS.askP95Ms} ms`)]);

    const mining = await timeAsync(() => refreshRules(ws, options, clock));
    rows.push([label, `rule mining after an outcome (reads the newest ${fmtInt(options.ruleMiningEpisodes)})`, fmtMs(mining), '']);
    const evictClock = new ManualClock(now);
    const evict = await timeAsync(() => evictEpisodes(ws, options, evictClock, { dryRun: true }));
    rows.push([label, 'eviction check (fingerprint drift of every active episode, dry run)', fmtMs(evict), '']);
  } finally {
    await ws.close();
  }
  // `tenure run` when the memory is this large: recording and the after-outcome work (eviction at most every 6 h, mining).
  const cli = path.join(repoRoot, 'dist', 'cli.js');
  for (const a of [['init', '-q'], ['config', 'user.email', 'bench@example.com'], ['config', 'user.name', 'Bench'], ['add', '-A'], ['commit', '-qm', 'start']]) sh('git', a, root);
  const bare: number[] = [];
  const wrapped: number[] = [];
  for (let i = 0; i < 6; i++) {
    const b = time(() => sh(process.execPath, ['-e', '0'], root));
    const w = time(() => sh(process.execPath, [cli, 'run', '-q', '--', process.execPath, '-e', '0'], root));
    if (i === 0) continue;
    bare.push(b);
    wrapped.push(w);
  }
  rows.push([label, '`tenure run -- node -e 0` overhead with this many episodes (n=5)', `p50 ${fmtMs(median(wrapped) - median(bare))}`, '']);
  return rows;
}
