import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ManualClock } from '../../src/core/episodic/clock';
import { evictEpisodes } from '../../src/core/episodic/eviction';
import { DEFAULT_OPTIONS, type MemoryOptions } from '../../src/core/episodic/options';
import { EpisodeRecorder } from '../../src/core/episodic/recorder';
import { resolveOneSymbol } from '../../src/core/structural/lookup';
import { whatHappenedBefore } from '../../src/core/episodic/history';
import { StructuralIndexer } from '../../src/core/structural/index/indexer';
import type { Workspace } from '../../src/core/store/workspace';
import { openWorkspace } from '../../src/core/workspace';
import { tempDir, write } from '../helpers/fixtures';

/*
 * Time, with a clock the test moves: outcomes keep their confidence while
 * conclusions decay; ranking weighs outcome, recency and frequency; eviction
 * archives (never deletes) lessons about code that changed or went away,
 * and the size cap archives the lowest weight first.
 */

const T0 = Date.parse('2026-01-05T09:00:00Z');

const SERVICE = `export class Service {
  retry(attempt: number): number {
    if (attempt > 3) throw new Error('too many');
    return this.backoff(attempt) + this.jitter();
  }

  backoff(attempt: number): number {
    return 2 ** attempt;
  }

  jitter(): number {
    return Math.random();
  }
}
`;

describe('episodes over time (controllable clock)', function () {
  this.timeout(60_000);
  let dir: { root: string; cleanup: () => void };
  let ws: Workspace;
  let indexer: StructuralIndexer;
  let clock: ManualClock;
  let options: MemoryOptions;
  let recorder: EpisodeRecorder;
  const git = (...args: string[]) => assert.equal(spawnSync('git', args, { cwd: dir.root }).status, 0, args.join(' '));

  /** Records a command outcome at the clock's time, charged with the working-tree changes since the last one. */
  async function outcome(command: string, exitCode: number) {
    const t = clock.now();
    return (await recorder.recordCommand({ command, cwd: dir.root, startedAt: t, endedAt: t + 1000, exitCode, source: 'run', searchReports: false })).episode;
  }
  async function history(symbol: string, o: MemoryOptions = options) {
    return whatHappenedBefore(ws.db, await resolveOneSymbol(ws.db, symbol, { root: ws.root }), 10, { clock, options: o, root: ws.root });
  }
  function edit(from: string, to: string) {
    const file = path.join(dir.root, 'src/service.ts');
    const text = fs.readFileSync(file, 'utf8');
    assert.ok(text.includes(from), from);
    fs.writeFileSync(file, text.replace(from, to));
  }

  before(async () => {
    dir = tempDir('tenure-time-');
    write(dir.root, 'src/service.ts', SERVICE);
    write(dir.root, 'src/caller.ts', "import { Service } from './service';\nexport function run(s: Service) {\n  return s.retry(1);\n}\n");
    git('init', '-q');
    git('config', 'user.email', 'dev@example.com');
    git('config', 'user.name', 'Dev');
    git('add', '-A');
    git('commit', '-qm', 'start');
    ws = await openWorkspace(dir.root);
    indexer = await StructuralIndexer.create(ws);
    await indexer.indexAll();
    clock = new ManualClock(T0);
    options = { ...DEFAULT_OPTIONS };
    recorder = new EpisodeRecorder({ workspace: ws, clock, options, refreshIndex: async (paths) => void (await indexer.updateFiles(paths)) });
  });
  after(async () => {
    await indexer.dispose();
    await ws.close();
    dir.cleanup();
  });

  it('keeps the outcome at high confidence while the agent\'s conclusion decays with its half-life', async () => {
    edit('if (attempt > 3)', 'if (attempt > 5)');
    const failed = await outcome('npm test', 1);
    assert.deepEqual(failed.touches.map((t) => t.qname), ['Service.retry']);
    await recorder.recordConclusion({ text: 'callers assume three attempts', authorKind: 'agent', symbols: ['Service.retry'] });
    await recorder.recordConclusion({ text: 'three attempts is a partner limit', authorKind: 'person', author: 'dana', symbols: ['Service.retry'] });

    let h = await history('Service.retry');
    assert.equal(h.entries[0]!.outcome.confidence, 'high');
    assert.deepEqual(h.entries[0]!.conclusions.map((c) => c.confidence.now).sort(), [0.3, 0.7], 'an agent starts at 0.3, a person at 0.7');

    clock.advanceDays(options.conclusionHalfLifeDays * 2);
    h = await history('Service.retry');
    const e = h.entries[0]!;
    assert.equal(e.outcome.status, 'failure');
    assert.equal(e.outcome.confidence, 'high', 'outcomes never decay');
    const agent = e.conclusions.find((c) => c.authorKind === 'agent')!;
    const person = e.conclusions.find((c) => c.authorKind === 'person')!;
    assert.equal(agent.confidence.initial, 0.3);
    assert.equal(agent.confidence.now, 0.075, 'two half-lives: a quarter of 0.3');
    assert.equal(person.confidence.now, Math.round(0.7 * 0.5 ** (28 / 180) * 1000) / 1000);
    assert.ok(agent.isConclusion && person.isConclusion);
  });

  it('ranks a failure above a later success, a recent failure above an old one, and repeated failures higher', async () => {
    git('commit', '-qam', 'five attempts');
    edit('return 2 ** attempt;', 'return 3 ** attempt;');
    clock.advanceDays(1);
    const ok = await outcome('npm test', 0);
    assert.deepEqual(ok.touches.map((t) => t.qname), ['Service.backoff']);
    let h = await history('Service');
    assert.deepEqual(h.entries.map((e) => e.outcome.status), ['failure', 'success'], 'a failure 1 day older still outranks a success');
    assert.ok(h.entries[0]!.factors.outcome > h.entries[1]!.factors.outcome);

    // Much later, a success on the symbol itself: the old failure's recency fades, its outcome weight does not.
    clock.advanceDays(400);
    h = await history('Service.retry');
    const old = h.entries.find((e) => e.outcome.status === 'failure')!;
    assert.ok(old.factors.recency < 0.3 && old.factors.recency >= options.recencyFloor, String(old.factors.recency));
    assert.equal(old.outcome.confidence, 'high');

    edit('if (attempt > 5)', 'if (attempt > 4)');
    await outcome('npm test', 1);
    h = await history('Service.retry');
    const failures = h.entries.filter((e) => e.outcome.status === 'failure');
    assert.equal(failures.length, 2);
    assert.ok(failures[0]!.episode.at > failures[1]!.episode.at, 'the recent failure first');
    assert.ok(failures[0]!.factors.frequency > 1, 'a repeated failure on the same symbol weighs more');
  });

  it('archives, never deletes, an episode whose code has changed beyond the threshold, and says so when it is shown', async () => {
    git('commit', '-qam', 'four attempts');
    const before = (await ws.db.get<{ n: number }>('SELECT count(*) AS n FROM episodes'))!.n;
    // Rewrite retry entirely: other calls, other lines.
    edit(
      "    if (attempt > 4) throw new Error('too many');\n    return this.backoff(attempt) + this.jitter();",
      "    const budget = this.budgetFor(attempt);\n    queueMicrotask(() => console.log('retrying', attempt, budget));\n    return budget.remaining * 1000;",
    );
    await indexer.updateFiles([path.join(dir.root, 'src/service.ts')]);
    const dry = await evictEpisodes(ws, options, clock, { dryRun: true });
    assert.ok(dry.archived.length >= 1);
    assert.equal((await ws.db.get<{ n: number }>('SELECT count(*) AS n FROM episodes WHERE archived_at IS NOT NULL'))!.n, 0, 'a dry run archives nothing');
    const r = await evictEpisodes(ws, options, clock);
    assert.ok(r.byReason.codeChanged >= 2, JSON.stringify(r));
    assert.match(r.archived[0]!.reason, /^code changed since: structural similarity 0\.\d\d \(threshold 0\.5\)/);
    assert.equal((await ws.db.get<{ n: number }>('SELECT count(*) AS n FROM episodes'))!.n, before, 'nothing deleted');
    const h = await history('Service.retry');
    assert.ok(h.archived.length >= 2);
    assert.match(h.archived[0]!.archived!.reason, /code changed since/);
    assert.ok(h.entries.every((e) => !e.archived));
    assert.ok(
      (await ws.db.get<{ n: number }>("SELECT count(*) AS n FROM conclusions WHERE archive_reason = 'its episode was archived'"))!.n >= 2,
      'the conclusions about an archived attempt go with it',
    );
    clock.advanceDays(1);
    const rewrite = await outcome('npm test', 0);
    assert.deepEqual(rewrite.touches.map((t) => t.qname), ['Service.retry']);
    assert.equal((await evictEpisodes(ws, options, clock)).archived.length, 0, 'the attempt on the current code stays');
  });

  it('archives episodes whose symbols are gone, and only with an index to tell', async () => {
    git('commit', '-qam', 'rewrite retry');
    edit("  jitter(): number {\n    return Math.random();\n  }\n", '');
    clock.advanceDays(1);
    const gone = await outcome('npm test', 0);
    assert.ok(gone.touches.some((t) => `${t.qname} ${t.change}` === 'Service.jitter deleted'), JSON.stringify(gone.touches));
    git('commit', '-qam', 'no jitter');
    write(dir.root, 'src/extra.ts', 'export function jitter2() {\n  return 1;\n}\n');
    clock.advanceDays(1);
    const added = await outcome('npm run build', 0);
    assert.deepEqual(added.touches.map((t) => `${t.qname} ${t.change}`), ['jitter2 added']);
    fs.rmSync(path.join(dir.root, 'src/extra.ts'));
    await indexer.updateFiles([path.join(dir.root, 'src/extra.ts')]);
    const r = await evictEpisodes(ws, options, clock);
    assert.deepEqual(r.archived, [{ id: added.id, reason: 'symbols gone: jitter2' }]);

    // Without an index every symbol would look gone: eviction refuses to judge.
    const bare = tempDir('tenure-bare-');
    try {
      write(bare.root, 'a.ts', 'export const a = 1;\n');
      spawnSync('git', ['init', '-q'], { cwd: bare.root });
      const w = await openWorkspace(bare.root);
      try {
        const rec = new EpisodeRecorder({ workspace: w, clock, options });
        const e = (await rec.recordCommand({ command: 'npm test', cwd: bare.root, startedAt: clock.now(), endedAt: clock.now(), exitCode: 1, source: 'run', searchReports: false })).episode;
        assert.deepEqual(e.touches.map((t) => [t.path, t.sid]), [['a.ts', null]], 'not indexed: the file, not a symbol');
        const none = await evictEpisodes(w, options, clock);
        assert.equal(none.archived.length, 0);
        assert.match(none.skipped ?? '', /not indexed: drift cannot be measured/);
      } finally {
        await w.close();
      }
    } finally {
      bare.cleanup();
    }
  });

  it('keeps the newest and heaviest episodes under the size cap and archives the rest', async () => {
    clock.advanceDays(1);
    await outcome('echo failing', 1);
    for (let i = 0; i < 3; i++) {
      clock.advanceDays(1);
      await outcome(`echo ${i}`, 0);
    }
    const active = (await ws.db.get<{ n: number }>('SELECT count(*) AS n FROM episodes WHERE archived_at IS NULL'))!.n;
    const r = await evictEpisodes(ws, { ...options, maxActiveEpisodes: 3 }, clock);
    assert.equal(r.byReason.sizeCap, active - 3);
    const kept = await ws.db.all<{ command: string }>('SELECT command FROM episodes WHERE archived_at IS NULL ORDER BY id');
    assert.deepEqual(kept.map((k) => k.command), ['echo failing', 'echo 1', 'echo 2'], 'a failure outweighs newer successes; among successes the newest stay');
    assert.match((await ws.db.get<{ archive_reason: string }>("SELECT archive_reason FROM episodes WHERE command = 'echo 0'"))!.archive_reason, /^size cap: more than 3 active episodes/);
  });
});
