import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, tempDir, write } from '../helpers/fixtures';

/*
 * No outcome lost: `tenure run` notes the command before it starts it, so a
 * Tenure killed with -9 while the command runs leaves a trace the next run
 * records as an `interrupted` episode — visible, and never counted as a
 * success or a failure.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('tenure run killed before it records the outcome', function () {
  this.timeout(120_000);

  it('leaves an interrupted episode, recorded by the next run', async () => {
    const t = tempDir();
    let childPid: number | undefined;
    try {
      write(t.root, 'package.json', '{"name":"p","version":"1.0.0"}\n');
      write(t.root, 'src/a.js', 'exports.a = () => 1;\n');
      assert.equal(spawnSync(process.execPath, [CLI, 'index', t.root, '--no-knowledge'], { encoding: 'utf8' }).status, 0);
      const run = spawn(process.execPath, [CLI, 'run', '--', process.execPath, '-e', 'setTimeout(() => {}, 60000)'], { cwd: t.root, stdio: 'ignore' });
      const runs = path.join(t.root, '.tenure', 'runs');
      for (let i = 0; i < 100 && !(fs.existsSync(runs) && fs.readdirSync(runs).some((n) => n.endsWith('.json') && JSON.parse(fs.readFileSync(path.join(runs, n), 'utf8')).childPid)); i++) await sleep(100);
      const entry = JSON.parse(fs.readFileSync(path.join(runs, fs.readdirSync(runs).find((n) => n.endsWith('.json'))!), 'utf8')) as { command: string; childPid: number };
      childPid = entry.childPid;
      assert.match(entry.command, /setTimeout/);
      run.kill('SIGKILL');
      await new Promise((r) => run.on('exit', r));

      const next = spawnSync(process.execPath, [CLI, 'run', '--', process.execPath, '-e', '0'], { cwd: t.root, encoding: 'utf8' });
      assert.equal(next.status, 0, next.stderr);
      assert.match(next.stderr, /recorded an interrupted attempt: `.*setTimeout.*` started .*; its outcome was never seen/);
      assert.deepEqual(fs.readdirSync(runs).filter((n) => n.endsWith('.json')), [], 'the journal is empty again');
      const list = spawnSync(process.execPath, [CLI, 'episodes', 'list', '--json'], { cwd: t.root, encoding: 'utf8' });
      const episodes = JSON.parse(list.stdout) as { command: string | null; outcome: { status: string; evidence: string | null } }[];
      const interrupted = episodes.find((e) => e.outcome.status === 'interrupted');
      assert.ok(interrupted, list.stdout.slice(0, 800));
      assert.match(interrupted.outcome.evidence ?? '', /stopped before it recorded how .* ended \(its process, \d+, may have gone on running\): the outcome is unknown/);
      assert.equal(episodes.filter((e) => e.outcome.status === 'success').length, 1, 'the next run is recorded as itself');
    } finally {
      if (childPid) {
        try {
          process.kill(childPid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      t.cleanup();
    }
  });
});
