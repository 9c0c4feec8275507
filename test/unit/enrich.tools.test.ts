import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { listOutside, toolEnv } from '../../src/core/structural/enrichment/toolProcess';
import { CodeIntelError } from '../../src/core/structural/enrichment/types';
import { serverErrorLine, toServerError } from '../../src/core/structural/sources/lsp/client';

describe('how checkers are started and how their errors read', () => {
  const root = path.resolve('/work/repo');

  it('PATH keeps no folder of the workspace and no relative entry; a venv inside it is not announced', () => {
    const value = ['/work/repo/node_modules/.bin', '/usr/bin', '.', 'node_modules/.bin', '/work/repo/.venv/bin', '/opt/node/bin', ''].join(path.delimiter);
    assert.equal(listOutside(value, root), ['/usr/bin', '/opt/node/bin'].join(path.delimiter));
    const saved = { ...process.env };
    try {
      process.env.PATH = value;
      process.env.VIRTUAL_ENV = '/work/repo/.venv';
      const env = toolEnv(root, { EXTRA: '1' });
      assert.equal(env.PATH, ['/usr/bin', '/opt/node/bin'].join(path.delimiter));
      assert.equal(env.VIRTUAL_ENV, undefined);
      assert.equal(env.EXTRA, '1');
      process.env.VIRTUAL_ENV = '/home/me/venvs/tools';
      assert.equal(toolEnv(root).VIRTUAL_ENV, '/home/me/venvs/tools', "the user's own venv outside the workspace is theirs to use");
    } finally {
      process.env = saved;
    }
  });

  it("a tsserver error is one line with what to do, typed by its reason (no stack)", () => {
    const raw = "<semantic> TypeScript Server Error (5.9.3)\nCould not find source file: '/work/repo/src/a.ts'.\nError: Could not find source file: '/work/repo/src/a.ts'.\n    at getValidSourceFile (/x/typescript.js:1:1)\n    at Object.getDefinitionAtPosition (/x/typescript.js:2:2)";
    assert.equal(serverErrorLine(raw), "Could not find source file: '/work/repo/src/a.ts'.");
    const e = toServerError('textDocument/definition', new Error(raw));
    assert.ok(CodeIntelError.is(e, 'no-project'));
    assert.doesNotMatch(e.message, /\n|getValidSourceFile/);
    assert.match(e.message, /add the file to a tsconfig\.json/);
    const other = toServerError('textDocument/references', new Error('<main> TypeScript Server Error (5.9.3)\nDebug Failure. False expression.\nError: Debug Failure.\n    at f (x.js:1:1)'));
    assert.ok(CodeIntelError.is(other, 'server-error'));
    assert.equal(other.message, 'textDocument/references: Debug Failure. False expression.');
  });
});
