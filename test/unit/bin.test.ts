import * as assert from 'node:assert/strict';
import { isAscii } from 'node:buffer';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { codeCachePath, commandOf, entryFor } from '../../src/cli/bin';
import { TOOLS } from '../../src/core/tools/catalog';
import { CLI, REPO_ROOT, tempDir } from '../helpers/fixtures';

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

  it('the build writes every Node bundle in ASCII alone, so the launcher reads it without decoding UTF-8', () => {
    const dist = path.join(REPO_ROOT, 'dist');
    const bundles = fs.existsSync(dist) ? fs.readdirSync(dist).filter((f) => f.endsWith('.js')) : [];
    const named = ['extension', 'cli', 'tenure-main', 'tenure-run', 'tenure-query', 'mcp', 'parseWorker', 'indexerWorker', 'tscWorker', 'knowledgeWorker'];
    for (const b of named) assert.ok(bundles.includes(`${b}.js`), `dist/${b}.js is missing: run \`npm run build\` (npm test does)`);
    for (const b of bundles) {
      const bytes = fs.readFileSync(path.join(dist, b));
      const at = bytes.findIndex((c) => c > 0x7f);
      assert.ok(isAscii(bytes), `dist/${b} is not ASCII: line ${bytes.subarray(0, at).toString('latin1').split('\n').length} holds a byte 0x${bytes[at]?.toString(16)}`);
    }
  });

  describe('loading a bundle with V8\'s code cache', () => {
    let t: ReturnType<typeof tempDir>;
    let bundle: string;
    // Each load in a process of its own, as the launcher runs: the cache is written when the process ends.
    const load = () => {
      const r = spawnSync(process.execPath, ['-e', `const b = require(${JSON.stringify(path.join(REPO_ROOT, 'out', 'src', 'cli', 'bin.js'))}).loadBundle(${JSON.stringify(bundle)}); b.main().then((v) => console.log(v, b.here))`], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      return r.stdout.trim();
    };
    beforeEach(() => {
      t = tempDir();
      bundle = path.join(t.root, 'bundle.js');
      fs.writeFileSync(bundle, "const path = require('node:path');\nexports.here = module.filename === __filename && path.dirname(__filename) === __dirname;\nexports.main = async () => 'ran ' + require('./helper.js').n;\n");
      fs.writeFileSync(path.join(t.root, 'helper.js'), 'exports.n = 7;\n');
    });
    afterEach(() => t.cleanup());

    it('runs the bundle as require would (its own require, module, __filename and __dirname), and keeps its compiled code beside it', () => {
      assert.equal(load(), 'ran 7 true');
      const cache = codeCachePath(bundle);
      assert.equal(path.dirname(cache), path.join(t.root, '.cache'));
      assert.ok(fs.statSync(cache).size > 0, 'the cache is written when the command ends');
    });

    it('a cache that fits is read and left alone; one that no longer fits the bundle is replaced, and the bundle still runs', () => {
      load();
      const cache = codeCachePath(bundle);
      const first = fs.readFileSync(cache);
      fs.utimesSync(cache, new Date(0), new Date(0));
      assert.equal(load(), 'ran 7 true');
      assert.equal(fs.statSync(cache).mtimeMs, 0, 'a cache V8 accepted is not written again');
      // A cache V8 refuses (here one that is not V8's at all) is written again.
      fs.writeFileSync(cache, 'not a code cache');
      assert.equal(load(), 'ran 7 true');
      assert.notEqual(fs.readFileSync(cache, 'utf8'), 'not a code cache');
      // A bundle built again has a cache of its own; the old one goes.
      fs.appendFileSync(bundle, 'exports.more = 1;\n');
      assert.equal(load(), 'ran 7 true');
      assert.ok(!fs.existsSync(cache), 'the old build\'s cache is removed');
      assert.ok(!fs.readFileSync(codeCachePath(bundle)).equals(first));
    });

    it('a bundle rebuilt to the same length runs its new code, not the code cached from the old one', () => {
      assert.equal(load(), 'ran 7 true');
      const old = codeCachePath(bundle);
      // V8 checks a cache against its source by length alone: the same length, another digit.
      fs.writeFileSync(bundle, fs.readFileSync(bundle, 'utf8').replace("'ran '", "'run '"));
      fs.utimesSync(bundle, new Date(), new Date(Date.now() + 5_000));
      assert.equal(load(), 'run 7 true');
      assert.ok(!fs.existsSync(old), 'the old build\'s cache is removed');
      assert.ok(fs.existsSync(codeCachePath(bundle)));
    });

    it('a bundle that is not ASCII is read as UTF-8, with its code cache as well', () => {
      // The file holds the characters themselves (the escapes are this test's): in a comment, a regex, a string and a template, one beyond U+FFFF.
      fs.writeFileSync(bundle, "// na\u00efve \u2014 \u{1F600}\nexports.here = /^caf\u00e9$/u.test('caf\u00e9');\nexports.main = async () => `caf\u00e9 \u2014 \u{1F600}`;\n");
      assert.ok(!isAscii(fs.readFileSync(bundle)));
      assert.equal(load(), 'caf\u00e9 \u2014 \u{1F600} true');
      assert.ok(fs.statSync(codeCachePath(bundle)).size > 0);
      assert.equal(load(), 'caf\u00e9 \u2014 \u{1F600} true', 'and again from the cache');
    });

    it('a folder that cannot be written runs the bundle without a cache', function () {
      if (process.getuid?.() === 0) {
        // Root writes through file modes: the unwritable folder is made by a file standing where the folder would be.
        fs.writeFileSync(path.join(t.root, '.cache'), '');
      } else fs.chmodSync(t.root, 0o555);
      try {
        assert.equal(load(), 'ran 7 true');
        assert.ok(!fs.existsSync(codeCachePath(bundle)));
      } finally {
        fs.chmodSync(t.root, 0o755);
      }
    });
  });

  it('starts the full CLI from the code cache its last run wrote, and does not write it again (the CLI sets a V8 flag before compiling)', () => {
    const cache = codeCachePath(path.join(path.dirname(CLI), 'tenure-main.js'));
    const start = () => {
      const r = spawnSync(process.execPath, [CLI, '--version'], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
    };
    start();
    assert.ok(fs.statSync(cache).size > 0, 'the first start leaves a cache');
    fs.utimesSync(cache, new Date(0), new Date(0));
    start();
    // A cache V8 refuses (one written under other flags than it is read with) is written again at every exit.
    assert.equal(fs.statSync(cache).mtimeMs, 0, 'V8 accepted the cache: it was not written again');
  });
});
