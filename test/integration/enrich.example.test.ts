import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { CLI, copyExample } from '../helpers/fixtures';

/** `tenure enrich` then `tenure what-breaks` on examples/settlement, as a user runs them. */
describe('tenure enrich on examples/settlement (real servers, the CLI as a user runs it)', function () {
  this.timeout(180_000);
  let root: string;
  let cleanup: () => void;
  const tenure = (...args: string[]) => execFileSync(process.execPath, [CLI, ...args, '--cwd', root], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

  before(() => {
    ({ root, cleanup } = copyExample());
    tenure('index');
  });
  after(() => cleanup());

  it('upgrades the examples to resolved edges with provenance, for TypeScript and Python', () => {
    const report = JSON.parse(tenure('enrich', '--json')) as { resolvers: { source: string; state: string; confirmed: number }[]; stats: { edges: { resolved: number; implementations: number } } };
    assert.deepEqual(report.resolvers.map((r) => `${r.source} ${r.state}`), ['lsp:typescript complete', 'lsp:python complete']);
    assert.ok(report.stats.edges.resolved > 50, JSON.stringify(report.stats));
    assert.ok(report.stats.edges.implementations >= 6);

    const text = tenure('what-breaks', 'SettlementService.retry', '--depth', '1');
    assert.match(text, /At least 4 dependents: 4 callers \(4 resolved\)/);
    assert.match(text, /postRetry calls it at src\/api\/handlers\.ts:11 — definition \(lsp:typescript\) at src\/settlement\/SettlementService\.ts:19/);
    assert.doesNotMatch(text, /type-checked resolution \(no language server/);

    const sandbox = tenure('what-breaks', 'SandboxGateway.submit');
    assert.match(sandbox, /1 call reaching it by resolved dispatch/);
    assert.match(sandbox, /SettlementService\.retry at src\/settlement\/SettlementService\.ts:21 — lsp:typescript/);

    const py = JSON.parse(tenure('what-breaks', 'reconciliation.client.SettlementClient.retry', '--depth', '1', '--json')) as { dependents: { tier: string; source: string }[] };
    assert.deepEqual(py.dependents.map((d) => `${d.tier} ${d.source}`), ['resolved lsp:python']);
  });

  it('a second run has nothing left to do', () => {
    const report = JSON.parse(tenure('enrich', '--json', '--no-dispatch')) as { resolvers: { files: number }[] };
    assert.deepEqual(report.resolvers.map((r) => r.files), [0, 0]);
  });

  it('a pass stopped by its budget keeps what it confirmed, exits 1 and says how to resume', () => {
    const r = spawnSync(process.execPath, [CLI, 'enrich', '--force', '--no-first-pass', '--budget', '1', '--cwd', root], { encoding: 'utf8' });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stdout, /stopped after its 1 s budget; the next pass resumes/);
    assert.match(r.stderr, /Enrichment stopped early \(lsp:typescript: stopped after its 1 s budget; the next pass resumes.*\)\. What to do: run `tenure enrich` again; it resumes where this pass stopped\./);
    // What the earlier passes confirmed is still there.
    assert.match(tenure('what-breaks', 'SettlementService.retry', '--depth', '1'), /4 callers \(4 resolved\)/);
  });
});
