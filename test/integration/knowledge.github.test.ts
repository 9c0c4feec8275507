import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { fetchGitHubThreads, readExport } from '../../src/core/knowledge/sources/github';
import { githubRepoOf } from '../../src/core/repo/github';
import { TenureError } from '../../src/shared/errors';
import { REPO_ROOT, tempDir, write } from '../helpers/fixtures';

/*
 * Fetching PR and issue threads from GitHub's REST API (here a server on
 * 127.0.0.1 answering with the example's recorded thread), and reading what
 * was fetched back as documents.
 */
describe('knowledge: fetching GitHub threads', () => {
  let server: http.Server;
  let base: string;
  const seen: { url: string; auth: string | undefined }[] = [];
  const bundle = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'examples', 'settlement', 'exports', 'github', 'pulls', '142.json'), 'utf8')) as {
    pull: Record<string, unknown>;
    comments: unknown[];
    reviews: unknown[];
    review_comments: unknown[];
  };

  before(async () => {
    server = http.createServer((req, res) => {
      seen.push({ url: req.url ?? '', auth: req.headers.authorization });
      const url = new URL(req.url ?? '/', 'http://x');
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const p = url.pathname;
      if (p === '/repos/acme/settlement/issues')
        return send(200, [
          { ...bundle.pull, pull_request: { url: 'https://api.github.com/repos/acme/settlement/pulls/142' }, comments: 2 },
          { number: 150, title: 'Parked instructions are not alerted on', body: 'Since the cap at three attempts, parked instructions wait for the nightly batch with no alert.', html_url: 'https://github.com/acme/settlement/issues/150', user: { login: 'praman' }, created_at: '2024-04-02T08:00:00Z', comments: 0, state: 'open' },
        ]);
      if (p === '/repos/acme/settlement/issues/142/comments') return send(200, bundle.comments);
      if (p === '/repos/acme/settlement/pulls/142') return send(200, bundle.pull);
      if (p === '/repos/acme/settlement/pulls/142/reviews') return send(200, bundle.reviews);
      if (p === '/repos/acme/settlement/pulls/142/comments') return send(200, bundle.review_comments);
      if (p === '/repos/acme/private/issues') return send(401, { message: 'Bad credentials' });
      return send(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('fetches recent threads with their comments and reviews, authenticated, in the shape the sources read', async () => {
    const files = await fetchGitHubThreads({ owner: 'acme', repo: 'settlement', token: 'gho_test', apiBase: base, limit: 10 });
    assert.deepEqual(files.map((f) => f.file), ['pulls/142.json', 'issues/150.json']);
    assert.ok(seen.every((s) => s.auth === 'Bearer gho_test'));
    assert.ok(!seen.some((s) => s.url.startsWith('/repos/acme/settlement/issues/150/comments')), 'no comments to fetch for an issue without comments');
    const pr = readExport(files[0]!.json, '.tenure/exports/github/pulls/142.json');
    assert.equal(pr.kind === 'threads' ? pr.documents[0]!.sections!.length : 0, 6);
    const issue = readExport(files[1]!.json, '.tenure/exports/github/issues/150.json');
    assert.equal(issue.kind === 'threads' ? issue.documents[0]!.ref : undefined, 'issue #150');
  });

  it('says what GitHub answered when a request fails', async () => {
    await assert.rejects(fetchGitHubThreads({ owner: 'acme', repo: 'missing', apiBase: base }), /GitHub answered 404 for \/repos\/acme\/missing\/issues/);
  });

  it('fails with a typed error carrying the status, and never the token', async () => {
    const failure = await fetchGitHubThreads({ owner: 'acme', repo: 'private', token: 'gho_secret_token', apiBase: base }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(TenureError.is(failure, 'io'), String(failure));
    assert.deepEqual(failure.details, { status: 401, path: '/repos/acme/private/issues?state=all&sort=updated&direction=desc&per_page=50' });
    assert.ok(!failure.message.includes('gho_secret_token') && !JSON.stringify(failure.details).includes('gho_secret_token'), failure.message);
    assert.match(failure.message, /refused the request \(401\)/);
  });

  it('finds owner/name from the origin remote', async () => {
    const d = tempDir();
    try {
      // A repository git recognises; its config is then written as a clone would have it.
      execFileSync('git', ['init', '-q', d.root]);
      write(d.root, '.git/config', '[core]\n\tbare = false\n[remote "origin"]\n\turl = git@github.com:acme/settlement.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n');
      fs.mkdirSync(path.join(d.root, 'sub'));
      assert.deepEqual(await githubRepoOf(path.join(d.root, 'sub')), { owner: 'acme', name: 'settlement' });
      write(d.root, '.git/config', '[remote "origin"]\n\turl = https://gitlab.com/acme/settlement.git\n');
      assert.equal(await githubRepoOf(d.root), undefined);
    } finally {
      d.cleanup();
    }
  });
});
