import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { CLI, REPO_ROOT, copyExample, tempDir, write } from '../helpers/fixtures';

/*
 * Outcomes decided on GitHub, read through the real REST shapes: a loopback
 * server stands in for api.github.com (check runs, pull requests, reviews,
 * files), and the settlement example's exported PR thread is imported as a file.
 */

function cli(args: string[], cwd: string): Promise<{ code: number | null; out: string; err: string }> {
  // Async: the loopback server answers from this same process.
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [CLI, ...args], { cwd });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('close', (code) => resolve({ code, out, err }));
  });
}

describe('CI and review outcomes from GitHub', function () {
  this.timeout(60_000);
  let d: { root: string; cleanup: () => void };
  let server: http.Server;
  let base: string;
  const seen: string[] = [];
  let sha = '';

  before(async () => {
    d = tempDir('tenure-gh-');
    write(d.root, 'src/retry.ts', 'export function retry(n: number) {\n  return n < 3;\n}\n');
    const git = (...a: string[]) => spawnSync('git', a, { cwd: d.root, encoding: 'utf8' });
    for (const a of [['init', '-q', '-b', 'feature/retry'], ['config', 'user.email', 'a@b.c'], ['config', 'user.name', 'A'], ['add', '-A'], ['commit', '-qm', 'start']]) git(...a);
    write(d.root, 'src/retry.ts', 'export function retry(n: number) {\n  return n < 5;\n}\n');
    git('commit', '-qam', 'retry five times');
    sha = git('rev-parse', 'HEAD').stdout.trim();
    git('remote', 'add', 'origin', 'git@github.com:acme/app.git');
    assert.equal(spawnSync(process.execPath, [CLI, 'index'], { cwd: d.root }).status, 0);
    server = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization}`);
      const url = new URL(req.url!, 'http://x');
      const json = (v: unknown) => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(v));
      };
      if (url.pathname === `/repos/acme/app/commits/${sha}/check-runs`) {
        return json({
          total_count: 2,
          check_runs: [
            { id: 901, name: 'build-and-test', status: 'completed', conclusion: 'failure', head_sha: sha, started_at: '2026-03-02T10:00:00Z', completed_at: '2026-03-02T10:06:00Z', output: { title: '3 tests failed', summary: 'AllocationServiceTest.redriveResubmitsAtMostThreeTimes\nexpected 3, got 5' } },
            { id: 902, name: 'lint', status: 'completed', conclusion: 'skipped', head_sha: sha },
          ],
        });
      }
      if (url.pathname === '/repos/acme/app/pulls' && url.searchParams.get('head') === 'acme:feature/retry') {
        return json([{ number: 7, title: 'Retry five times', state: 'closed', merged_at: null, closed_at: '2026-03-04T09:00:00Z', user: { login: 'copilot-swe-agent', type: 'Bot' }, head: { ref: 'feature/retry', sha }, html_url: 'https://github.com/acme/app/pull/7' }]);
      }
      if (url.pathname === '/repos/acme/app/pulls/7/reviews') {
        return json([{ id: 55, state: 'CHANGES_REQUESTED', body: 'Three is the partner SLA. Do not raise it.', user: { login: 'dana' }, submitted_at: '2026-03-03T15:00:00Z' }]);
      }
      if (url.pathname === '/repos/acme/app/pulls/7/files') return json([{ filename: 'src/retry.ts', status: 'modified', patch: '@@ -2 +2 @@\n-  return n < 3;\n+  return n < 5;' }]);
      res.statusCode = 404;
      res.end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    d.cleanup();
  });

  it('records failed check runs and review decisions from the API, with the token and the touched symbols', async () => {
    const r = await cli(['import', 'github', '--fetch', '--token', 't0ken', '--api-base', base], d.root);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /Recorded 3 GitHub outcomes \(1 already recorded or undecided\)/);
    assert.ok(seen.every((s) => s.endsWith('Bearer t0ken')), seen.join('\n'));
    const list = JSON.parse((await cli(['episodes', 'list', '--json'], d.root)).out) as { uid: string; source: string; actor: string; outcome: { kind: string; status: string; source: string; evidence: string }; touches: { qname: string }[] }[];
    const byUid = Object.fromEntries(list.map((e) => [e.uid, e]));
    const check = byUid['gh:check:901']!;
    assert.deepEqual([check.outcome.kind, check.outcome.status, check.outcome.source, check.actor], ['ci', 'failure', 'ci', 'ci']);
    assert.match(check.outcome.evidence, /check "build-and-test" failure — 3 tests failed — AllocationServiceTest.redriveResubmitsAtMostThreeTimes/);
    assert.deepEqual(check.touches.map((t) => t.qname), ['retry'], 'the checked commit\'s diff');
    const review = byUid['gh:pr:7:changes-requested:55']!;
    assert.deepEqual([review.outcome.kind, review.outcome.status, review.outcome.source, review.actor], ['review', 'rejected', 'review', 'agent']);
    assert.match(review.outcome.evidence, /PR #7 changes requested by dana: "Three is the partner SLA\. Do not raise it\."/);
    assert.deepEqual(review.touches.map((t) => t.qname), ['retry']);
    assert.equal(byUid['gh:pr:7:closed']!.outcome.status, 'rejected');
    const again = await cli(['import', 'github', '--fetch', '--token', 't0ken', '--api-base', base], d.root);
    assert.match(again.out, /Recorded 0 GitHub outcomes/);
  });

  it('says what to do when the token is refused or missing', async () => {
    const none = await cli(['import', 'github', '--fetch', '--api-base', base], d.root);
    assert.equal(none.code, 2);
    assert.match(none.err, /A token is needed to read GitHub/);
  });

  it('imports an exported pull-request thread (the settlement example\'s PR #142)', async () => {
    const ex = copyExample();
    try {
      assert.equal(spawnSync(process.execPath, [CLI, 'index', ex.root]).status, 0);
      const r = await cli(['import', 'github', path.join(REPO_ROOT, 'examples', 'settlement', 'exports', 'github', 'pulls', '142.json'), '--cwd', ex.root], ex.root);
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /Recorded 1 GitHub outcome/);
      const h = await cli(['history', 'RetryPolicy.MAX_ATTEMPTS', '--cwd', ex.root], ex.root);
      assert.match(h.out, /review succeeded .*— touched/);
      assert.match(h.out, /PR #142 merged/);
    } finally {
      ex.cleanup();
    }
  });
});
