import * as assert from 'node:assert/strict';
import { commandOf } from '../../src/cli/bin';

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
});
