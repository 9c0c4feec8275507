import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { CLI, copyExample, tempDir, write } from '../helpers/fixtures';

function tenure(args: string[], cwd?: string, env?: NodeJS.ProcessEnv) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', ...(env ? { env: { ...process.env, ...env } } : {}) });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('tenure CLI, run as a user runs it', () => {
  let ex: { root: string; cleanup: () => void };
  before(() => (ex = copyExample()));
  after(() => ex.cleanup());

  it('says to index first, with exit code 3, before any index exists', () => {
    const r = tenure(['what-breaks', 'SettlementService.retry', '--cwd', ex.root]);
    assert.equal(r.code, 3);
    assert.match(r.err, /has not indexed .* Run `tenure index`/);
  });

  it('indexes, then answers what-breaks with tiers and a lower bound', () => {
    const idx = tenure(['index', ex.root]);
    assert.equal(idx.code, 0, idx.err);
    assert.match(idx.out, /Indexed \d+ files .* 0 skipped/);
    assert.match(idx.out, /\nWhere the time went: discover [\d.]+ m?s · load [\d.]+ m?s · parse [\d.]+ m?s · resolve [\d.]+ m?s · write [\d.]+ m?s\.\n/);
    // Found from a subfolder through the .tenure folder above it.
    const r = tenure(['what-breaks', 'SettlementService.retry'], `${ex.root}/src/batch`);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^what_breaks SettlementService.retry \(method, src\/settlement\/SettlementService.ts:19\), depth 2/);
    assert.match(r.out, /At least 7 dependents within 2 hops \(4 direct\)/);
    assert.match(r.out, /6 callers \(6 inferred\)/);
    assert.match(r.out, /direct dependents \(4\):\n {2}inferred \(4\) — matched by name only/);
    assert.match(r.out, /through those \(3\)/);
    assert.match(r.out, /dynamic \(1\)/);
  });

  it('impact is an alias, and --json prints the structured answer', () => {
    const r = tenure(['impact', 'PaymentGateway.submit', '--depth', '1', '--json', '--cwd', ex.root]);
    assert.equal(r.code, 0, r.err);
    const data = JSON.parse(r.out) as { target: { sid: string }; implementations: unknown[]; summary: string; dependents: { tier: string }[] };
    assert.equal(data.target.sid, 'ts `src/gateways/PaymentGateway.ts`/PaymentGateway#submit().');
    assert.equal(data.implementations.length, 6);
    assert.ok(data.dependents.every((d) => ['resolved', 'observed', 'inferred', 'ambiguous', 'dynamic'].includes(d.tier)));
    assert.match(data.summary, /^At least 1 dependent/);
  });

  it('exits 1 and lists candidates when a name is ambiguous', () => {
    const r = tenure(['what-breaks', 'retry', '--cwd', ex.root]);
    assert.equal(r.code, 1);
    assert.match(r.err, /matches 3 symbols; Tenure will not pick one/);
  });

  it('exits 2 on bad usage', () => {
    assert.equal(tenure(['what-breaks', 'x', '--depth', 'zero', '--cwd', ex.root]).code, 2);
    assert.equal(tenure(['no-such-command']).code, 2);
  });

  it('exits 2 on a folder that does not exist or is a file, creating nothing', () => {
    const t = tempDir();
    try {
      const missing = `${t.root}/no-such-repo`;
      for (const args of [['index', missing], ['what-breaks', 'x', '--cwd', missing], ['status', '--cwd', missing]]) {
        const r = tenure(args);
        assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
        assert.match(r.err, /no-such-repo does not exist\. Give the repository's folder/);
      }
      assert.equal(fs.existsSync(missing), false, 'the mistyped folder is not created');
      write(t.root, 'notes.txt', 'not a folder\n');
      const file = tenure(['index', `${t.root}/notes.txt`]);
      assert.equal(file.code, 2);
      assert.match(file.err, /notes\.txt is a file, not a folder/);
    } finally {
      t.cleanup();
    }
  });

  it('status reports files by language and edges by tier', () => {
    const r = tenure(['status', '--cwd', ex.root]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /Files: \d+ \(.*typescript \d+.*\)/);
    assert.match(r.out, /Edges: \d+ — resolved 0, observed 0, inferred \d+, ambiguous \d+, dynamic \d+/);
  });

  it('skips and reports binary, non-UTF-8, minified and oversized files without failing', () => {
    const d = tempDir();
    try {
      write(d.root, 'ok.ts', 'export function ok() { return 1; }\n');
      write(d.root, 'bin.ts', Buffer.from([0x65, 0x00, 0x66, 0x00]));
      write(d.root, 'latin1.py', Buffer.from([0x78, 0x20, 0x3d, 0x20, 0x27, 0xe9, 0x27, 0x0a]));
      write(d.root, 'bundle.js', 'var a=1;'.repeat(2000));
      write(d.root, 'huge.ts', `// ${'x'.repeat(80)}\n`.repeat(15000));
      write(d.root, 'ignored/skip.ts', 'export const x = 1;\n');
      write(d.root, '.gitignore', 'ignored/\n');
      const r = tenure(['index', d.root, '--json']);
      assert.equal(r.code, 0, r.err);
      const report = JSON.parse(r.out) as { files: number; parsed: number; skipped: { path: string; reason: string }[] };
      assert.equal(report.files, 5, 'the .gitignored folder is not listed');
      assert.equal(report.parsed, 1);
      const reasons = Object.fromEntries(report.skipped.map((s) => [s.path, s.reason]));
      assert.match(reasons['bin.ts']!, /binary/);
      assert.match(reasons['latin1.py']!, /not UTF-8/);
      assert.match(reasons['bundle.js']!, /minified/);
      assert.match(reasons['huge.ts']!, /too large .* raise tenure.maxFileSizeKb/);
    } finally {
      d.cleanup();
    }
  });

  it('lists dependents in the same order whatever the locale of the machine', () => {
    // Swedish collation puts "ä" after "z", English beside "a": an answer ordered by the locale would differ between two
    // colleagues' machines. Names are ordered by their code units: "Beta" < "zeta" < "äpple".
    const d = tempDir();
    try {
      write(d.root, 'calls.py', 'def target():\n    return 1\n\ndef zeta():\n    return target()\n\ndef äpple():\n    return target()\n\ndef Beta():\n    return target()\n');
      assert.equal(tenure(['index', d.root, '--no-knowledge']).code, 0);
      const answers = ['en_US.UTF-8', 'sv_SE.UTF-8'].map((locale) => {
        const r = tenure(['what-breaks', 'target', '--depth', '1', '--cwd', d.root], undefined, { LANG: locale, LC_ALL: locale });
        assert.equal(r.code, 0, r.err);
        return r.out;
      });
      assert.equal(answers[1], answers[0]);
      const order = ['Beta', 'zeta', 'äpple'].map((n) => answers[0]!.indexOf(`calls.${n} `));
      assert.ok(order.every((i) => i > 0), answers[0]);
      assert.deepEqual([...order].sort((a, b) => a - b), order, answers[0]);
    } finally {
      d.cleanup();
    }
  });
});
