import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CaptureSession, skipReason } from '../../src/core/episodic/capture';
import { ManualClock } from '../../src/core/episodic/clock';
import { DEFAULT_OPTIONS, type MemoryOptions } from '../../src/core/episodic/options';
import { afterOutcome, type OutcomeNews } from '../../src/core/procedural/afterOutcome';
import { StructuralIndexer } from '../../src/core/structural/index/indexer';
import type { Workspace } from '../../src/core/store/workspace';
import { openWorkspace } from '../../src/core/workspace';
import { tempDir, write } from '../helpers/fixtures';

/*
 * The live capture behind the VS Code extension (src/vscode/episodeCapture.ts
 * forwards terminal, task, git and report events to it), driven with the
 * events a terminal would send, in a real git repository, with the step the
 * extension runs after each outcome (eviction, rule mining).
 */

describe('live capture (what the editor forwards)', function () {
  this.timeout(60_000);
  let d: { root: string; cleanup: () => void };
  let ws: Workspace;
  let indexer: StructuralIndexer;
  let options: MemoryOptions;
  let session: CaptureSession<OutcomeNews>;
  const logs: string[] = [];
  const clock = new ManualClock(Date.parse('2026-04-01T10:00:00Z'));
  const git = (...args: string[]) => spawnSync('git', args, { cwd: d.root, encoding: 'utf8' });
  const count = async () => (await ws.db.get<{ n: number }>('SELECT count(*) AS n FROM episodes'))!.n;
  const ended = (command: string, exitCode: number | undefined, extra: Record<string, unknown> = {}) =>
    session.commandEnded({ command, cwd: d.root, startedAt: clock.now() - 2000, endedAt: clock.now(), exitCode, source: 'terminal', output: 'Error: expected 3, got 5\n', ...extra });

  before(async () => {
    d = tempDir('tenure-capture-');
    write(d.root, 'package.json', JSON.stringify({ scripts: { test: 'node --test', gen: 'node gen.js' } }));
    write(d.root, 'src/retry.ts', 'export function retry(n: number) {\n  return n < 3;\n}\n\nexport function backoff(n: number) {\n  return 2 ** n;\n}\n');
    for (const a of [['init', '-q'], ['config', 'user.email', 'a@b.c'], ['config', 'user.name', 'A'], ['add', '-A'], ['commit', '-qm', 'start']]) git(...a);
    ws = await openWorkspace(d.root);
    indexer = await StructuralIndexer.create(ws);
    await indexer.indexAll();
    options = { ...DEFAULT_OPTIONS };
    session = new CaptureSession({ workspace: () => ws, clock, options: () => options, refreshIndex: async (p) => void (await indexer.updateFiles(p)), log: (m) => logs.push(m), afterOutcome: (w, e) => afterOutcome(w, options, clock, e) });
  });
  after(async () => {
    await session.idle();
    await indexer.dispose();
    await ws.close();
    d.cleanup();
  });

  it('records a terminal test command with its exit code and the symbols it touched', async () => {
    fs.writeFileSync(path.join(d.root, 'src/retry.ts'), 'export function retry(n: number) {\n  return n < 5;\n}\n\nexport function backoff(n: number) {\n  return 2 ** n;\n}\n');
    const r = await ended('npm test', 1);
    assert.ok(r);
    assert.equal(r.episode.source, 'terminal');
    assert.equal(r.episode.commandKind, 'test');
    assert.equal(r.episode.outcome.status, 'failure');
    assert.equal(r.episode.outcome.evidence, 'Error: expected 3, got 5');
    assert.deepEqual(r.episode.touches.map((t) => t.qname), ['retry']);
  });

  it('skips what is not an attempt: navigation, `tenure run` (it records itself), unknown exit codes, other commands unless asked', async () => {
    const before = await count();
    assert.equal(await ended('cd src', 0), undefined);
    assert.equal(await ended('git status', 0), undefined);
    assert.equal(await ended('npx tenure run -- npm test', 0), undefined);
    assert.equal(await ended('npm test', undefined), undefined);
    assert.equal(await ended('./deploy.sh staging', 0), undefined);
    assert.equal(await count(), before);
    assert.match(logs.join('\n'), /`tenure run` records its own episode/);
    assert.match(skipReason('./deploy.sh', d.root, options) ?? '', /captureOtherCommands/);
    options = { ...options, captureOtherCommands: true };
    assert.ok(await ended('./deploy.sh staging', 0));
    options = { ...options, captureOtherCommands: false };
  });

  it('takes a task\'s group as its kind', async () => {
    const r = await session.commandEnded({ command: './scripts/verify', cwd: d.root, startedAt: clock.now(), endedAt: clock.now(), exitCode: 0, source: 'task', kind: 'build' });
    assert.equal(r?.episode.commandKind, 'build');
    assert.equal(r?.episode.source, 'task');
  });

  it('records a commit as a timeline event charged with its diff, once', async () => {
    git('commit', '-qam', 'retry five times');
    const sha = git('rev-parse', 'HEAD').stdout.trim();
    const r = await session.commitAdded(sha);
    assert.ok(r);
    assert.equal(r.episode.outcome.kind, 'commit');
    assert.equal(r.episode.outcome.status, 'recorded');
    assert.equal(r.episode.commitMessage, 'retry five times');
    assert.deepEqual(r.episode.touches.map((t) => t.qname), ['retry']);
    assert.equal(await session.commitAdded(sha), null, 'the same commit is not recorded twice');
  });

  it('records a report written outside any recorded command, and not one a command already read', async () => {
    const xml = '<testsuite name="s"><testcase classname="Retry" name="caps at three"><failure message="expected 3"/></testcase></testsuite>';
    const file = write(d.root, 'reports/junit.xml', xml);
    const r = await session.reportWritten(file);
    assert.equal(r?.episode.source, 'junit');
    assert.deepEqual(r?.episode.tests?.failing.map((f) => f.name), ['caps at three']);
    const again = await ended('npm test', 1, { startedAt: Date.now() - 1000 });
    assert.deepEqual(again?.episode.tests?.reports, ['reports/junit.xml']);
    assert.equal(await session.reportWritten(file), undefined, 'already read by the command episode');
  });

  it('never runs a program the repository\'s git config names (an untrusted folder)', async () => {
    const marker = path.join(d.root, 'ran.txt');
    write(d.root, 'hook.sh', `#!/bin/sh\necho ran >> ${JSON.stringify(marker)}\n`);
    fs.chmodSync(path.join(d.root, 'hook.sh'), 0o755);
    write(d.root, '.gitattributes', '*.ts diff=ts\n');
    git('add', '-A');
    git('commit', '-qm', 'attributes');
    git('config', 'core.fsmonitor', path.join(d.root, 'hook.sh'));
    git('config', 'diff.external', path.join(d.root, 'hook.sh'));
    git('config', 'diff.ts.textconv', path.join(d.root, 'hook.sh'));
    fs.appendFileSync(path.join(d.root, 'src/retry.ts'), '// committed\n');
    git('-c', 'core.fsmonitor=false', 'commit', '-qam', 'a ts change');
    fs.appendFileSync(path.join(d.root, 'src/retry.ts'), '// more\n');
    fs.rmSync(marker, { force: true });
    const r = await ended('npm test', 0);
    assert.ok(r);
    assert.ok(await session.commitAdded(git('-c', 'core.fsmonitor=false', 'rev-parse', 'HEAD').stdout.trim()));
    assert.equal(fs.existsSync(marker), false, 'the configured program never ran');
    for (const k of ['core.fsmonitor', 'diff.external', 'diff.ts.textconv']) git('config', '--unset', k);
  });

  it('uses the editor\'s edits to find touched symbols where there is no git', async () => {
    const bare = tempDir('tenure-nogit-');
    const w = await openWorkspace(bare.root);
    try {
      write(bare.root, 'a.ts', 'export function one() {\n  return 1;\n}\n\nexport function two() {\n  return 2;\n}\n');
      const ix = await StructuralIndexer.create(w);
      await ix.indexAll();
      await ix.dispose();
      const s = new CaptureSession({ workspace: () => w, clock, options: () => options, log: () => undefined, afterOutcome: (x, e) => afterOutcome(x, options, clock, e) });
      s.noteEdit('a.ts', [6]);
      const r = await s.commandEnded({ command: 'npm test', cwd: bare.root, startedAt: clock.now(), endedAt: clock.now(), exitCode: 0, source: 'terminal' });
      assert.deepEqual(r?.episode.touches.map((t) => t.qname), ['two']);
      assert.match(r?.episode.touchBasis ?? '', /files saved in the editor/);
    } finally {
      await w.close();
      bare.cleanup();
    }
  });
});
