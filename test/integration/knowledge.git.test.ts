import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { indexKnowledge } from '../../src/core/knowledge/pipeline';
import { collectSources } from '../../src/core/knowledge/sources/documents';
import { git } from '../../src/core/repo/git';
import { openWorkspace } from '../../src/core/workspace';
import { tempDir, write } from '../helpers/fixtures';
import { gitRepo } from '../helpers/prereq';

/*
 * The repository under index is untrusted: a config that names programs for
 * git to run (filters, textconv and external diff drivers, fsmonitor, a gpg
 * program for signed commits, a pager, hooks) runs none of them while the
 * knowledge memory reads its history, nor through the git runner any memory
 * uses.
 */

describe('knowledge: a repository whose git config names programs runs none of them', function () {
  this.timeout(60_000);
  let d: { root: string; cleanup: () => void };
  let marker: string;

  before(function () {
    d = tempDir('tenure-gitcfg-');
    marker = path.join(d.root, '..', `${path.basename(d.root)}-ran`);
    const run = gitRepo(this, d.root);
    write(d.root, 'docs/adr/0001-retries.md', '# ADR-0001: Settlement retries\n\nWe retry a settlement instruction at most three times because the partner SLA allows no more.\n');
    write(d.root, '.gitattributes', '* filter=evil diff=evil\n');
    run('add', '-A');
    run('commit', '-qm', 'Cap settlement retries at three attempts because the partner SLA forbids a fourth');
    // A signed commit: with log.showSignature, `git log` hands its signature to the gpg program.
    write(d.root, 'docs/parking.md', '# Parking\n\nAfter the third attempt an instruction is parked for the nightly batch.\n');
    run('add', '-A');
    const tree = run('write-tree').trim();
    const parent = run('rev-parse', 'HEAD').trim();
    const body = `tree ${tree}\nparent ${parent}\nauthor T <t@example.com> 1700000000 +0000\ncommitter T <t@example.com> 1700000000 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\nRecord why duplicate settlement instructions are parked, not resent, after the third attempt\n`;
    const commitFile = path.join(d.root, '..', `${path.basename(d.root)}-commit`);
    fs.writeFileSync(commitFile, body);
    const signed = run('hash-object', '-t', 'commit', '-w', commitFile).trim();
    fs.rmSync(commitFile);
    run('update-ref', 'HEAD', signed);

    const script = `#!/bin/sh\necho "$0 $*" >> ${JSON.stringify(marker)}\ncat\n`;
    const hook = write(d.root, '.evil/run.sh', script);
    fs.chmodSync(hook, 0o755);
    for (const name of ['pre-commit', 'post-checkout', 'post-index-change', 'reference-transaction']) fs.chmodSync(write(d.root, `.evil/hooks/${name}`, script), 0o755);
    const config: [string, string][] = [
      ['filter.evil.clean', hook],
      ['filter.evil.smudge', hook],
      ['filter.evil.process', hook],
      ['filter.evil.required', 'true'],
      ['diff.evil.textconv', hook],
      ['diff.evil.command', hook],
      ['diff.external', hook],
      ['core.fsmonitor', hook],
      ['core.pager', hook],
      ['core.hooksPath', path.join(d.root, '.evil/hooks')],
      ['log.showSignature', 'true'],
      ['gpg.program', hook],
      ['gpg.ssh.program', hook],
      ['gpg.x509.program', hook],
    ];
    for (const [k, v] of config) run('config', k, v);
    // The work tree differs from the index, so status and diff would have to filter to compare.
    fs.appendFileSync(path.join(d.root, 'docs/adr/0001-retries.md'), '\nAn edit not yet committed.\n');
    fs.rmSync(marker, { force: true });
  });
  after(() => {
    fs.rmSync(marker, { force: true });
    d?.cleanup();
  });

  const ran = () => (fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : '');

  it('reads the commit history for the knowledge sources', async () => {
    const set = await collectSources(d.root);
    assert.equal(set.commits.fromGit, true);
    assert.deepEqual(set.documents.filter((x) => x.kind === 'commit').map((x) => x.title).sort(), [
      'Cap settlement retries at three attempts because the partner SLA forbids a fourth',
      'Record why duplicate settlement instructions are parked, not resent, after the third attempt',
    ]);
    assert.equal(ran(), '', 'a configured program ran');
  });

  it('indexes the knowledge memory, history included', async () => {
    const ws = await openWorkspace(d.root);
    try {
      const report = await indexKnowledge(ws, {});
      assert.equal(report.status, 'done', report.message);
      assert.ok((report.documents.byKind.commit ?? 0) >= 2, JSON.stringify(report.documents));
    } finally {
      await ws.close();
    }
    assert.equal(ran(), '', 'a configured program ran');
  });

  it('runs status, diff, show and log -p without the drivers, fsmonitor, pager, gpg or hooks', async () => {
    const status = await git(d.root, ['status', '--porcelain=v1']);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /docs\/adr\/0001-retries\.md/);
    // Without --no-textconv / --no-ext-diff a diff that would need a driver fails rather than runs it.
    await git(d.root, ['diff']);
    await git(d.root, ['show', 'HEAD']);
    await git(d.root, ['log', '-p', '-2']);
    const safeDiff = await git(d.root, ['diff', '--no-ext-diff', '--no-textconv']);
    assert.equal(safeDiff.code, 0, safeDiff.stderr);
    assert.match(safeDiff.stdout, /An edit not yet committed/);
    assert.equal(ran(), '', 'a configured program ran');
  });
});
