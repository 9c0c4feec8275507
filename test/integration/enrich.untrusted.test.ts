import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, tempDir, write } from '../helpers/fixtures';

/*
 * A repository is untrusted input. This one ships its own
 * node_modules/typescript (whose tsserver.js would run on `tenure enrich`),
 * a virtual environment whose python3 pyright would run, and the same
 * programs in node_modules/.bin, which `npx tenure` puts first on PATH.
 * Each writes a marker file when run; none may run.
 */
describe('tenure enrich on a repository that plants its own TypeScript and Python (real servers)', function () {
  this.timeout(180_000);
  let root: string;
  let cleanup: () => void;
  const marker = () => path.join(root, 'PWNED');
  const env = () => ({ ...process.env, PATH: [path.join(root, 'node_modules', '.bin'), path.join(root, '.venv', 'bin'), process.env.PATH].join(path.delimiter), VIRTUAL_ENV: path.join(root, '.venv') });
  const tenure = (...args: string[]) => execFileSync(process.execPath, [CLI, ...args, '--cwd', root], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: env() });

  before(() => {
    ({ root, cleanup } = tempDir('tenure-untrusted-'));
    const plant = (rel: string, body: string, mode = 0o644) => fs.chmodSync(write(root, rel, body), mode);
    const js = (what: string) => `require('fs').appendFileSync(${JSON.stringify(marker())}, ${JSON.stringify(`${what}\n`)});\nprocess.exit(0);\n`;
    const sh = (what: string) => `#!/bin/sh\necho ${what} >> ${JSON.stringify(marker())}\nexit 0\n`;
    write(root, 'tsconfig.json', JSON.stringify({ compilerOptions: { strict: true, noEmit: true }, include: ['src'] }));
    write(root, 'src/limits.ts', 'export const MAX_ATTEMPTS = 3;\nexport function ceiling(): number {\n  return MAX_ATTEMPTS;\n}\n');
    write(root, 'src/use.ts', "import { ceiling } from './limits';\nexport function run(): number {\n  return ceiling();\n}\n");
    write(root, 'app/limits.py', 'MAX_ATTEMPTS = 3\n\n\ndef ceiling():\n    return MAX_ATTEMPTS\n');
    write(root, 'app/use.py', 'from app.limits import ceiling\n\n\ndef run():\n    return ceiling()\n');
    write(root, 'app/__init__.py', '');
    write(root, 'node_modules/typescript/package.json', JSON.stringify({ name: 'typescript', version: '5.9.3', main: 'lib/typescript.js' }));
    plant('node_modules/typescript/lib/tsserver.js', js('workspace tsserver.js'));
    plant('node_modules/typescript/lib/typescript.js', js('workspace typescript.js'));
    plant('node_modules/.bin/tsserver', sh('workspace .bin/tsserver'), 0o755);
    plant('node_modules/.bin/python3', sh('workspace .bin/python3'), 0o755);
    plant('node_modules/.bin/pyright-langserver', sh('workspace .bin/pyright-langserver'), 0o755);
    plant('.venv/bin/python3', sh('workspace .venv python3'), 0o755);
    plant('.venv/bin/python', sh('workspace .venv python'), 0o755);
    write(root, '.venv/pyvenv.cfg', 'home = /usr/bin\n');
    write(root, 'pyrightconfig.json', JSON.stringify({ venvPath: '.', venv: '.venv' }));
    tenure('index');
  });
  after(() => cleanup());

  it("runs Tenure's own tsserver and an interpreter outside the repository: nothing the repository planted runs", () => {
    const report = JSON.parse(tenure('enrich', '--json', '--no-first-pass')) as { resolvers: { source: string; state: string; confirmed: number }[] };
    assert.equal(fs.existsSync(marker()), false, fs.existsSync(marker()) ? fs.readFileSync(marker(), 'utf8') : '');
    assert.deepEqual(report.resolvers.map((r) => `${r.source} ${r.state}`), ['lsp:typescript complete', 'lsp:python complete']);
    assert.ok(report.resolvers.every((r) => r.confirmed > 0), JSON.stringify(report.resolvers));
  });

  it('the first pass (compiler, scip-python) runs nothing from the repository either', () => {
    const report = JSON.parse(tenure('enrich', '--json', '--no-lsp', '--force')) as { resolvers: { source: string; state: string; confirmed: number }[] };
    assert.equal(fs.existsSync(marker()), false, fs.existsSync(marker()) ? fs.readFileSync(marker(), 'utf8') : '');
    assert.deepEqual(report.resolvers.map((r) => `${r.source} ${r.state}`), ['tsc complete', 'scip:scip-python complete']);
  });

  it("--use-workspace-typescript is the user's opt-in: then the repository's tsserver does run (the check above would have seen it)", () => {
    tenure('enrich', '--json', '--no-first-pass', '--force', '--only', 'typescript', '--use-workspace-typescript', '--timeout', '5000');
    assert.match(fs.readFileSync(marker(), 'utf8'), /workspace tsserver\.js/);
  });
});
