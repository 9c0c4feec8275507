import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { CLI, REPO_ROOT, tempDir, write } from '../helpers/fixtures';

/*
 * Real JUnit files from a real test run (mocha's xunit reporter), recorded
 * two ways: found by `tenure run` among the reports the run wrote, and
 * imported afterwards with `tenure import junit`. And what a cancelled run
 * leaves: an episode, but its changes wait for the next outcome.
 */

const MOCHA = path.join(REPO_ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');

describe('JUnit reports from a real mocha run', function () {
  this.timeout(60_000);
  let d: { root: string; cleanup: () => void };
  const sh = (cmd: string, args: string[]) => spawnSync(cmd, args, { cwd: d.root, encoding: 'utf8' });
  const tenure = (...args: string[]) => sh(process.execPath, [CLI, ...args]);

  before(() => {
    d = tempDir('tenure-junit-');
    write(d.root, 'lib/allocation.js', 'exports.legs = function legs(n) {\n  return n * 2;\n};\n');
    write(d.root, 'test/allocation.spec.js', "const assert = require('assert');\nconst { legs } = require('../lib/allocation');\ndescribe('allocation', () => {\n  it('doubles legs', () => assert.equal(legs(2), 4));\n  it('handles zero', () => assert.equal(legs(0), 0));\n});\n");
    write(d.root, '.gitignore', 'reports/\n.tenure/\n');
    for (const args of [['init', '-q'], ['config', 'user.email', 'a@b.c'], ['config', 'user.name', 'A'], ['add', '-A'], ['commit', '-qm', 'start']]) assert.equal(sh('git', args).status, 0);
    assert.equal(tenure('index').status, 0);
  });
  after(() => d.cleanup());

  it('finds the report a run wrote and records its failing tests', () => {
    write(d.root, 'lib/allocation.js', 'exports.legs = function legs(n) {\n  return n * 3;\n};\n');
    const r = tenure('run', '--', process.execPath, MOCHA, '--reporter', 'xunit', '--reporter-option', 'output=reports/xunit.xml', 'test/');
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /recorded episode #1: test failure \(exit 1\); tests 1\/2 passed; touched 1 symbol \(legs\)/);
    const e = JSON.parse(tenure('episodes', 'show', '1', '--json').stdout) as { tests: { reports: string[]; failing: { suite: string; name: string; message: string }[] } };
    assert.deepEqual(e.tests.reports, ['reports/xunit.xml']);
    assert.deepEqual(e.tests.failing.map((f) => `${f.suite} › ${f.name}`), ['allocation › doubles legs']);
    assert.match(e.tests.failing[0]!.message, /6 == 4|Expected values to be/);
  });

  it('imports a report produced outside tenure run, charged with the changes since the last test outcome', () => {
    write(d.root, 'lib/allocation.js', 'exports.legs = function legs(n) {\n  return n * 2;\n};\n');
    const run = sh(process.execPath, [MOCHA, '--reporter', 'xunit', '--reporter-option', 'output=reports/ci.xml', 'test/']);
    assert.equal(run.status, 0, run.stderr);
    const r = tenure('import', 'junit', 'reports/ci.xml', '--command', 'npx mocha test/');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /recorded episode #2: test success; tests 2\/2 passed; touched 1 symbol \(legs\)/);
    const bad = tenure('import', 'junit', 'lib/allocation.js');
    assert.notEqual(bad.status, 0);
    assert.match(bad.stderr, /No JUnit report could be read: lib\/allocation.js/);
  });

  it('records a cancelled run without moving on: its changes belong to the next outcome', () => {
    write(d.root, 'lib/allocation.js', 'exports.legs = function legs(n) {\n  return n * 4;\n};\n');
    const r = tenure('run', '--', 'sh', '-c', 'kill -INT $$');
    assert.equal(r.status, 130);
    assert.match(r.stderr, /recorded episode #3: other cancelled; touched 1 symbol \(legs\)/);
    const next = tenure('run', '--', 'true');
    assert.match(next.stderr, /recorded episode #4: other success \(exit 0\); touched 1 symbol \(legs\)/);
  });
});
