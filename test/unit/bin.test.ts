import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { commandOf, entryFor } from '../../src/cli/bin';
import { TOOLS } from '../../src/core/tools/catalog';
import { REPO_ROOT } from '../helpers/fixtures';

describe('the tenure launcher', () => {
  it('finds the subcommand past global options, so `tenure run` loads the slim bundle however it is written', () => {
    assert.equal(commandOf(['run', '--', 'npm', 'test']), 'run');
    assert.equal(commandOf(['-C', 'some/dir', 'run', '--', 'npm', 'test']), 'run');
    assert.equal(commandOf(['--cwd', 'run', 'status']), 'status', 'the value of --cwd is not the command');
    assert.equal(commandOf(['--cwd=some/dir', 'run']), 'run');
    assert.equal(commandOf(['what-breaks', 'run']), 'what-breaks');
    assert.equal(commandOf(['--version']), undefined);
    assert.equal(commandOf(['--', 'run']), undefined);
  });

  it("hands every catalog command and alias to the query bundle, `run` to the run bundle, and the rest to the full CLI", () => {
    const names = TOOLS.flatMap((t) => [t.cli.command, ...t.cli.aliases]);
    for (const n of names) assert.deepEqual(entryFor(n, names), { file: 'tenure-query.js', start: 'queryMain' }, n);
    assert.deepEqual(entryFor('run', names), { file: 'tenure-run.js', start: 'runMain' });
    for (const n of ['index', 'enrich', 'knowledge', 'mcp', 'status', undefined]) assert.deepEqual(entryFor(n, names), { file: 'tenure-main.js', start: 'main' }, String(n));
    // Without the build's list (a tree built before it existed), every command goes to the full CLI.
    assert.deepEqual(entryFor('what-breaks', []), { file: 'tenure-main.js', start: 'main' });
  });

  it("the build's list of query commands is the catalog's", () => {
    const built = path.join(REPO_ROOT, 'dist', 'query-commands.json');
    assert.ok(fs.existsSync(built), 'dist/query-commands.json is missing: run `npm run build` (npm test does)');
    assert.deepEqual(JSON.parse(fs.readFileSync(built, 'utf8')), TOOLS.flatMap((t) => [t.cli.command, ...t.cli.aliases]).sort());
  });
});
