import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { listOutside, toolEnv } from '../../src/core/structural/enrichment/toolProcess';
import { SiteText } from '../../src/core/structural/enrichment/siteText';
import { CodeIntelError } from '../../src/core/structural/enrichment/types';
import { tempDir, write } from '../helpers/fixtures';
import { serverErrorLine, toServerError } from '../../src/core/structural/sources/lsp/client';

describe('how checkers are started and how their errors read', () => {
  const root = path.resolve('/home/dev/repo');

  it('PATH keeps no folder of the workspace and no relative entry; a venv inside it is not announced', () => {
    const value = ['/home/dev/repo/node_modules/.bin', '/usr/bin', '.', 'node_modules/.bin', '/home/dev/repo/.venv/bin', '/opt/node/bin', ''].join(path.delimiter);
    assert.equal(listOutside(value, root), ['/usr/bin', '/opt/node/bin'].join(path.delimiter));
    const saved = { ...process.env };
    try {
      process.env.PATH = value;
      process.env.VIRTUAL_ENV = '/home/dev/repo/.venv';
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
    const raw = "<semantic> TypeScript Server Error (5.9.3)\nCould not find source file: '/home/dev/repo/src/a.ts'.\nError: Could not find source file: '/home/dev/repo/src/a.ts'.\n    at getValidSourceFile (/x/typescript.js:1:1)\n    at Object.getDefinitionAtPosition (/x/typescript.js:2:2)";
    assert.equal(serverErrorLine(raw), "Could not find source file: '/home/dev/repo/src/a.ts'.");
    const e = toServerError('textDocument/definition', new Error(raw));
    assert.ok(CodeIntelError.is(e, 'no-project'));
    assert.doesNotMatch(e.message, /\n|getValidSourceFile/);
    assert.match(e.message, /add the file to a tsconfig\.json/);
    const other = toServerError('textDocument/references', new Error('<main> TypeScript Server Error (5.9.3)\nDebug Failure. False expression.\nError: Debug Failure.\n    at f (x.js:1:1)'));
    assert.ok(CodeIntelError.is(other, 'server-error'));
    assert.equal(other.message, 'textDocument/references: Debug Failure. False expression.');
  });
});

describe('what a use is, from the text around it (SCIP and references searches)', () => {
  const { root, cleanup } = tempDir('tenure-sitetext-');
  after(() => cleanup());
  write(root, 'a.py', ['from .log import logger', 'try:', '    from _asyncio import (_register_task,', '                          _all_tasks, _current_tasks)', 'except ImportError:', '    pass', 'x = foo(a,', '        b)', 'def f():', '    global policy', '    policy = 1', '    policy += 1', '    del cache[k]', '    del policy', '    return policy == 2', ''].join('\n'));
  write(root, 'b.ts', ["import {", "  a,", "} from './a';", 'export { b } from "./b";', 'const y = a;', 'o.count++;', 'f = (a) => a;', ''].join('\n'));
  write(root, 'c.py', ['def f():', '    from django.urls import clear_url_caches', '    clear_url_caches()', 'from m import a, \\', '    b', 'b()', ''].join('\n'));
  write(root, 'd.ts', ["import d from './d';", 'd();', "import * as m from './m';", 'm.f();', ''].join('\n'));
  const text = new SiteText(root);
  const at = (path: string, line: number, word: string) => ({ path, line, col: text.line({ path, line, col: 0 }).indexOf(word) });

  it('tells a name in an import statement from a use, across a parenthesised or braced list', () => {
    assert.equal(text.inImport(at('a.py', 1, 'logger')), true);
    assert.equal(text.inImport(at('a.py', 4, '_all_tasks')), true);
    assert.equal(text.inImport(at('a.py', 8, 'b')), false);
    assert.equal(text.inImport(at('a.py', 15, 'policy')), false);
    assert.equal(text.inImport(at('b.ts', 2, 'a')), true);
    assert.equal(text.inImport(at('b.ts', 4, 'b')), true);
    assert.equal(text.inImport(at('b.ts', 5, 'a')), false);
    assert.equal(text.kindAt(at('a.py', 1, 'logger')), 'import');
    // A one-line import above is over: the next line's name is a use (a call), not part of it.
    assert.equal(text.inImport(at('c.py', 3, 'clear_url_caches')), false);
    assert.equal(text.kindAt(at('c.py', 3, 'clear_url_caches')), 'call');
    assert.equal(text.inImport(at('c.py', 5, 'b')), true, 'a backslash continues the import');
    assert.equal(text.inImport(at('c.py', 6, 'b')), false);
    assert.equal(text.inImport(at('d.ts', 2, 'd')), false);
    assert.equal(text.inImport(at('d.ts', 4, 'm')), false);
  });

  it('reads and writes: assignments, `+=`, `++`, `del x` write; `==`, `del x[k]`, an arrow read', () => {
    assert.equal(text.declaresScope(at('a.py', 10, 'policy')), true);
    assert.equal(text.roleAt(at('a.py', 11, 'policy')), 'write');
    assert.equal(text.roleAt(at('a.py', 12, 'policy')), 'write');
    assert.equal(text.roleAt(at('a.py', 13, 'cache')), 'read');
    assert.equal(text.roleAt(at('a.py', 14, 'policy')), 'write');
    assert.equal(text.roleAt(at('a.py', 15, 'policy')), 'read');
    assert.equal(text.roleAt(at('b.ts', 6, 'count')), 'write');
    assert.equal(text.roleAt({ path: 'b.ts', line: 7, col: 5 }), 'read');
  });
});
