import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, REPO_ROOT, tempDir } from '../helpers/fixtures';

/*
 * The episodic and procedural memories as a user meets them: a real project
 * (test/fixtures/episodic/mapper-project) in a real git repository, real
 * commands (npm, node --test with its JUnit reporter) run through
 * `tenure run`, rules mined from those runs, promoted into AGENTS.md only
 * after approval, and demoted when they start failing.
 */

interface Run {
  code: number | null;
  out: string;
  err: string;
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Run {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'episodic', 'mapper-project');

export function mapperProject(): { root: string; cleanup: () => void; tenure: (...args: string[]) => Run; tenureAsScript: (...args: string[]) => Run; git: (...args: string[]) => Run; edit: (rel: string, from: string | RegExp, to: string) => void } {
  const d = tempDir('tenure-episodes-');
  fs.cpSync(FIXTURE, d.root, { recursive: true });
  const git = (...args: string[]) => run('git', args, d.root);
  git('init', '-q');
  git('config', 'user.email', 'dev@example.com');
  git('config', 'user.name', 'Dev');
  git('add', '-A');
  git('commit', '-qm', 'start');
  const tenure = (...args: string[]) => run(process.execPath, [CLI, ...args], d.root);
  /** A script a person runs: --yes without a terminal is allowed only when its environment says so. */
  const tenureAsScript = (...args: string[]) => run(process.execPath, [CLI, ...args], d.root, { TENURE_APPROVE_WITHOUT_TERMINAL: '1' });
  const edit = (rel: string, from: string | RegExp, to: string) => {
    const file = path.join(d.root, rel);
    const text = fs.readFileSync(file, 'utf8');
    const next = text.replace(from, to);
    assert.notEqual(next, text, `edit of ${rel} changed nothing`);
    fs.writeFileSync(file, next);
  };
  return { ...d, tenure, tenureAsScript, git, edit };
}

function json<T>(r: Run): T {
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out) as T;
}

interface EpisodeJson {
  id: number;
  command: string;
  commandKind: string;
  outcome: { kind: string; status: string; source: string; confidence: string; exitCode: number | null; evidence: string | null };
  tests: { total: number; failed: number; failing: { suite: string; name: string; message: string }[]; reports: string[] } | null;
  touches: { path: string; sid: string | null; qname: string | null; fresh: boolean }[];
  conclusions: { text: string; authorKind: string; confidence: number }[];
}

describe('tenure run and the rules it proves, on a real project', function () {
  this.timeout(120_000);
  let p: ReturnType<typeof mapperProject>;
  before(() => {
    p = mapperProject();
    assert.equal(p.tenure('index').code, 0);
  });
  after(() => p.cleanup());

  it('runs the command, passes its output and exit code through, and records the attempt', () => {
    const gen = p.tenure('run', '--', 'npm', 'run', 'gen');
    assert.equal(gen.code, 0, gen.err);
    assert.match(gen.out, /generated mapper for 2 fields/);
    assert.match(gen.err, /recorded episode #1: generate success \(exit 0\)/);
    const ok = p.tenure('run', '--', 'npm', 'test');
    assert.equal(ok.code, 0, ok.err);
    assert.match(ok.out, /tests 3/);
    assert.match(ok.err, /recorded episode #2: test success \(exit 0\); tests 3\/3 passed/);
    const seven = p.tenure('run', '--', process.execPath, '-e', 'process.exit(7)');
    assert.equal(seven.code, 7, 'the command\'s own exit code, whatever it is');
    assert.match(seven.err, /recorded episode #3: other failure \(exit 7\)/);
  });

  it('records a failing test run with the failing tests from its JUnit report and the symbols changed since the last test', () => {
    p.edit('src/model.js', "const FIELDS = ['id', 'amount'];", "const FIELDS = ['id', 'amount', 'currency'];");
    const r = p.tenure('run', '--intent', 'carry the currency', '--', 'npm', 'test');
    assert.equal(r.code, 1, 'npm test fails: the generated mapper is stale');
    assert.match(r.err, /recorded episode #4: test failure \(exit 1\); tests 1\/3 passed; touched 1 symbol \(FIELDS\)/);
    const e = json<EpisodeJson>(p.tenure('episodes', 'show', '4', '--json'));
    assert.equal(e.outcome.status, 'failure');
    assert.equal(e.outcome.source, 'build-system');
    assert.equal(e.outcome.confidence, 'high');
    assert.equal(e.commandKind, 'test');
    assert.deepEqual(e.tests?.reports, ['reports/junit.xml']);
    assert.deepEqual(e.tests?.failing.map((f) => `${f.suite} › ${f.name}`), ['mapper › is generated from the current model', 'mapper › maps every field of a payment']);
    assert.match(e.outcome.evidence ?? '', /^2 of 3 tests failed: mapper › is generated from the current model — generated\/mapper.js is stale: run `npm run gen`/);
    assert.deepEqual(e.touches.map((t) => [t.qname, t.path, t.fresh]), [['FIELDS', 'src/model.js', true]]);
  });

  it('stores an agent\'s conclusion as a conclusion, never as an outcome', () => {
    const r = p.tenure('record-conclusion', 'The mapper must be regenerated after src/model.js changes', '--symbol', 'FIELDS');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /Recorded conclusion #1 about FIELDS on episode #4 as the agent's own conclusion: confidence 0.3, halving every 14 days\. It is not an outcome/);
    const e = json<EpisodeJson>(p.tenure('episodes', 'show', '4', '--json'));
    assert.equal(e.outcome.status, 'failure', 'the outcome is unchanged');
    assert.deepEqual(e.conclusions.map((c) => [c.authorKind, c.confidence]), [['agent', 0.3]]);
  });

  it('charges a test run with everything changed since the previous test run, marking what changed just before it', () => {
    assert.equal(p.tenure('run', '--', 'npm', 'run', 'gen').code, 0);
    const r = p.tenure('run', '--', 'npm', 'test');
    assert.equal(r.code, 0, r.out + r.err);
    const gen = json<EpisodeJson>(p.tenure('episodes', 'show', '5', '--json'));
    assert.deepEqual(gen.touches, [], 'nothing changed between the failing test and the generator');
  });

  it('shows the attempt in what_happened_before, outcome and conclusion apart', () => {
    const r = p.tenure('history', 'FIELDS');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^what_happened_before FIELDS \(constant, src\/model.js:2\)/);
    assert.match(r.out, /1 failed/);
    assert.match(r.out, /#4 · .* · test FAILED \(exit 1\) · `npm test` — touched the symbol itself/);
    assert.match(r.out, /intent: carry the currency/);
    assert.match(r.out, /evidence \(build-system, high confidence\): 2 of 3 tests failed: mapper › is generated from the current model/);
    assert.match(r.out, /conclusion — the agent's own conclusion, NOT an outcome; confidence 0.30 → 0.30 .*"The mapper must be regenerated after src\/model.js changes"/);
  });

  it('proposes the rule once repeated successes prove it, and not before', () => {
    // An unrelated change that needs no generator: evidence that the rule is about src/model.js, not every change.
    p.edit('src/service.js', 'function summary(payment) {', 'function summary(payment) {\n  // the human-readable form');
    assert.equal(p.tenure('run', '--', 'npm', 'test').code, 0);
    const fields = ['fee', 'valueDate', 'reference'];
    for (const [i, f] of fields.entries()) {
      p.edit('src/model.js', /const FIELDS = \[(.*)\];/, `const FIELDS = [$1, '${f}'];`);
      assert.equal(p.tenure('run', '--', 'npm', 'run', 'gen').code, 0);
      const t = p.tenure('run', '--', 'npm', 'test');
      assert.equal(t.code, 0, t.out + t.err);
      if (i < fields.length - 1) assert.doesNotMatch(t.err, /proposed for AGENTS.md/, `not proven after ${i + 2} successes`);
      else assert.match(t.err, /rule 1 is proven and proposed for AGENTS.md: When `src\/model.js` changes, run `npm run gen` before `npm test`\. \(4 successes, 0 failures\)/);
    }
    const list = p.tenure('rules', 'list');
    assert.match(list.out, /proposed \(1\)/);
    assert.match(list.out, /1 proposed +4✓ 0✗ lb 0\.51 +When `src\/model.js` changes, run `npm run gen` before `npm test`\./);
  });

  it('never writes AGENTS.md without a person\'s approval of the exact diff', () => {
    const r = p.tenure('rules', 'promote');
    assert.equal(r.code, 1);
    assert.match(r.out, /^--- \/dev\/null\n\+\+\+ b\/AGENTS.md/m);
    assert.match(r.out, /^\+- When `src\/model.js` changes, run `npm run gen` before `npm test`\. _\(rule 1: held in 4 of 4 recorded attempts; `tenure rules audit 1`\)_$/m);
    assert.match(r.out, /Not written: promotion needs a person's approval of the diff above/);
    assert.equal(fs.existsSync(path.join(p.root, 'AGENTS.md')), false);
  });

  it('promotes with one approval, into a delimited section, and keeps the audit trail', () => {
    fs.mkdirSync(path.join(p.root, '.github'));
    fs.writeFileSync(path.join(p.root, '.github', 'copilot-instructions.md'), '# Copilot instructions\n\nUse CommonJS.\n');
    // What an agent has is a shell without a terminal: --yes there writes nothing.
    const agent = p.tenure('rules', 'promote', '--yes');
    assert.equal(agent.code, 1);
    assert.match(agent.err, /Not written: --yes without a terminal is refused — a person approves what goes into AGENTS.md/);
    assert.equal(fs.existsSync(path.join(p.root, 'AGENTS.md')), false);
    const r = p.tenureAsScript('rules', 'promote', '--yes');
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.out, /Wrote AGENTS.md, .github\/copilot-instructions.md: rule 1 promoted\./);
    const agents = fs.readFileSync(path.join(p.root, 'AGENTS.md'), 'utf8');
    assert.match(agents, /<!-- BEGIN TENURE RULES[^\n]*-->\n## Rules learned in this repository\n/);
    assert.match(agents, /- When `src\/model.js` changes, run `npm run gen` before `npm test`\./);
    assert.match(agents, /<!-- END TENURE RULES -->\n$/);
    const copilot = fs.readFileSync(path.join(p.root, '.github', 'copilot-instructions.md'), 'utf8');
    assert.match(copilot, /^# Copilot instructions\n\nUse CommonJS\.\n\n<!-- BEGIN TENURE RULES/, 'the existing text is kept; the section is added after it');
    const audit = p.tenure('rules', 'audit', '1');
    assert.equal(audit.code, 0, audit.err);
    assert.match(audit.out, /rule 1 \(order\) — promoted: approved by a person/);
    assert.match(audit.out, /evidence \(4 episodes\):/);
    assert.match(audit.out, /✓ #4 .* — skipped `npm run gen`; `npm test` failed \(test:mapper\)/);
    assert.match(audit.out, /promoted by Dev <dev@example.com> \(cli --yes without a terminal \(TENURE_APPROVE_WITHOUT_TERMINAL=1\)\)/);
    assert.match(audit.out, /\+- When `src\/model.js` changes/);
    // Promoting again changes nothing.
    assert.match(p.tenure('rules', 'promote').out, /No rule is proposed for promotion/);
  });

  it('proposes demotion when a promoted rule starts failing, and demotes only with approval', () => {
    // The generator runs, yet the mapper test fails the way skipping it fails: the rule no longer explains the outcome.
    for (const f of ['one', 'two']) {
      p.edit('src/model.js', /const FIELDS = \[(.*)\];/, `const FIELDS = [$1, '${f}'];`);
      assert.equal(p.tenure('run', '--', 'npm', 'run', 'gen').code, 0);
      fs.writeFileSync(path.join(p.root, 'generated', 'mapper.js'), "exports.FIELDS = ['stale'];\nexports.toDto = (p) => p;\n");
      const t = p.tenure('run', '--', 'npm', 'test');
      assert.equal(t.code, 1);
      if (f === 'two') assert.match(t.err, /rule 1 is failing since it was promoted \(2 failures\)/);
    }
    assert.match(p.tenure('rules', 'list').out, /demotion-proposed \(1\)/);
    const r = p.tenureAsScript('rules', 'demote', '--yes');
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.out, /^-- When `src\/model.js` changes/m);
    const agents = fs.readFileSync(path.join(p.root, 'AGENTS.md'), 'utf8');
    assert.doesNotMatch(agents, /npm run gen/);
    assert.match(agents, /<!-- no promoted rules -->/);
    assert.match(p.tenure('rules', 'audit', '1').out, /demoted by Dev/);
  });
});
