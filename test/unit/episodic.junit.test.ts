import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { excerpt, findReports, parseJUnit, reportStates } from '../../src/core/episodic/junit';
import { TenureError } from '../../src/shared/errors';
import { REPO_ROOT, tempDir, write } from '../helpers/fixtures';

const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'episodic', 'junit');
const read = (f: string) => parseJUnit(fs.readFileSync(path.join(FIXTURES, f), 'utf8'), f);

describe('JUnit XML reports', () => {
  it('reads Maven Surefire reports (one testsuite per class)', () => {
    const r = read('surefire-TEST-AllocationServiceTest.xml');
    assert.deepEqual([r.total, r.failed, r.errors, r.skipped], [4, 1, 1, 1]);
    assert.deepEqual(r.failing.map((f) => `${f.status} ${f.suite} › ${f.name}`), [
      'failed com.acme.allocation.AllocationServiceTest › redriveResubmitsAtMostThreeTimes',
      'error com.acme.allocation.AllocationServiceTest › allocateSettlesWithinCutOff',
    ]);
    assert.equal(r.failing[0]!.message, 'expected: <3> but was: <5>');
  });

  it('reads pytest --junitxml (testsuites root, generic suite name)', () => {
    const r = read('pytest.xml');
    assert.deepEqual([r.total, r.failed, r.errors, r.skipped], [3, 1, 0, 0]);
    assert.deepEqual(r.failing.map((f) => `${f.suite} › ${f.name}`), ['tests.test_client.TestRetry › test_retry_stops_after_three']);
    assert.match(r.failing[0]!.message!, /^AssertionError: assert 5 == 3/);
  });

  it('reads jest-junit reports with nested suites and a file attribute', () => {
    const r = read('jest-junit.xml');
    assert.deepEqual([r.total, r.failed], [3, 1]);
    assert.deepEqual(r.failing.map((f) => [f.suite, f.name, f.file]), [['AllocationService redrive', 'AllocationService redrive stops on duplicates', 'src/allocation/AllocationService.test.ts']]);
  });

  it('reads node:test reports, whose top-level tests sit directly under <testsuites>', () => {
    const r = read('node-test.xml');
    assert.deepEqual([r.total, r.failed], [3, 1]);
    assert.deepEqual(r.failing.map((f) => `${f.suite} › ${f.name}`), ['test › top-level check fails']);
  });

  it('keeps the first lines of a message and stops at the stack', () => {
    assert.equal(excerpt('Error: boom\n    at x (a.js:1)\n    at y'), 'Error: boom');
    assert.equal(excerpt('x'.repeat(400))!.length, 300);
  });

  it('rejects what is not JUnit, with the reason', () => {
    assert.throws(() => parseJUnit('<html/>', 'page.xml'), (e: unknown) => TenureError.is(e, 'invalid-input') && /page.xml is not a JUnit report/.test((e as Error).message));
    assert.throws(() => parseJUnit('<testsuite><testcase', 'broken.xml'), /broken.xml is not well-formed XML|not a JUnit report/);
  });

  it('finds only the reports written since the run started, in build folders .gitignore hides', () => {
    const d = tempDir();
    try {
      write(d.root, '.gitignore', 'target/\n');
      write(d.root, 'target/surefire-reports/TEST-a.xml', '<testsuite/>');
      write(d.root, 'build/test-results/test/TEST-b.xml', '<testsuite/>');
      write(d.root, 'reports/junit.xml', '<testsuite/>');
      write(d.root, 'node_modules/x/junit.xml', '<testsuite/>');
      write(d.root, 'src/data.xml', '<data/>');
      const old = path.join(d.root, 'reports/old-junit.xml');
      write(d.root, 'reports/old-junit.xml', '<testsuite/>');
      const past = new Date(Date.now() - 3_600_000);
      fs.utimesSync(old, past, past);
      const found = findReports(d.root, ['**/surefire-reports/*.xml', '**/test-results/**/*.xml', '**/*junit*.xml'], Date.now() - 60_000);
      assert.deepEqual(found, ['build/test-results/test/TEST-b.xml', 'reports/junit.xml', 'target/surefire-reports/TEST-a.xml']);
    } finally {
      d.cleanup();
    }
  });

  it('takes a report for the run\'s only if the run wrote it: new or changed since the walk before it, however recent its mtime', () => {
    const d = tempDir();
    try {
      const globs = ['reports/**/*.xml'];
      write(d.root, 'reports/ci.xml', '<testsuite name="earlier"/>');
      write(d.root, 'reports/kept.xml', '<testsuite name="kept"/>');
      // The run starts a moment after an earlier tool wrote its reports: within mtime's second of slack.
      const before = reportStates(d.root, globs);
      const startedAt = Date.now();
      assert.deepEqual(findReports(d.root, globs, startedAt, before), [], 'reports that were there before the run are not its own');
      assert.deepEqual(findReports(d.root, globs, startedAt), ['reports/ci.xml', 'reports/kept.xml'], 'without the walk before, a recent mtime is all there is to go by');
      write(d.root, 'reports/ci.xml', '<testsuite name="this run"><testcase name="t"/></testsuite>');
      write(d.root, 'reports/new.xml', '<testsuite name="new"/>');
      assert.deepEqual(findReports(d.root, globs, startedAt, before), ['reports/ci.xml', 'reports/new.xml']);
    } finally {
      d.cleanup();
    }
  });
});
