import * as assert from 'node:assert/strict';
import { classifyCommand, loadProjectCommands, normalizeCommand, splitCompound } from '../../src/core/episodic/classify';
import { tempDir, write } from '../helpers/fixtures';

describe('command classification', () => {
  it('reads what the project says: package.json scripts, Makefile targets, VS Code task groups', () => {
    const d = tempDir();
    try {
      write(d.root, 'package.json', JSON.stringify({ scripts: { verify: 'vitest run', 'gen:api': 'openapi-generator-cli generate -i api.yaml', compile: 'tsc -p .', check: 'eslint src && prettier --check .', ci: 'npm run compile && npm run verify', weird: 'node tools/x.js' } }));
      write(d.root, 'Makefile', 'all: build\n\nbuild:\n\tgo build ./...\n\nproto:\n\tbuf generate\n\n.PHONY: build proto\n');
      write(d.root, '.vscode/tasks.json', '// tasks\n{ "version": "2.0.0", "tasks": [ { "label": "integration", "type": "shell", "command": "./run-it.sh", "args": ["--fast"], "group": { "kind": "test", "isDefault": true } }, ] }');
      const p = loadProjectCommands(d.root);
      const kind = (c: string) => classifyCommand(c, p).kind;
      assert.equal(kind('npm run verify'), 'test');
      assert.equal(kind('npm run gen:api'), 'generate');
      assert.equal(kind('npm run compile'), 'build');
      assert.equal(kind('npm run check'), 'lint');
      assert.equal(kind('npm run ci'), 'test', 'a script running build then tests counts as a test run');
      assert.equal(kind('npm run weird'), 'other');
      assert.equal(kind('make'), 'build');
      assert.equal(kind('make proto'), 'generate');
      assert.equal(kind('./run-it.sh --fast'), 'test');
      assert.match(classifyCommand('./run-it.sh --fast', p).via, /VS Code task "integration" in group test/);
      assert.match(classifyCommand('npm run verify', p).via, /package.json script "verify" \(runs vitest\)/);
    } finally {
      d.cleanup();
    }
  });

  it('recognises the usual tools of each ecosystem', () => {
    const cases: [string, string][] = [
      ['mvn -q test', 'test'],
      ['./mvnw generate-sources', 'generate'],
      ['./gradlew build', 'build'],
      ['gradle check', 'test'],
      ['pytest -x tests/', 'test'],
      ['python -m pytest', 'test'],
      ['go test ./...', 'test'],
      ['go vet ./...', 'lint'],
      ['go generate ./...', 'generate'],
      ['cargo clippy', 'lint'],
      ['cargo build --release', 'build'],
      ['npx jest --ci', 'test'],
      ['node --test test/', 'test'],
      ['tsc --noEmit', 'lint'],
      ['npx tsc -p .', 'build'],
      ['ruff check .', 'lint'],
      ['protoc --go_out=. api.proto', 'generate'],
      ['yarn test', 'test'],
      ['ls -la', 'other'],
    ];
    for (const [cmd, kind] of cases) assert.equal(classifyCommand(cmd).kind, kind, cmd);
  });

  it('takes configured patterns first', () => {
    assert.equal(classifyCommand('./scripts/check-all', undefined, [{ pattern: '^\\./scripts/check', kind: 'test' }]).kind, 'test');
  });

  it('keeps the parts of a compound command in order, quotes respected', () => {
    assert.deepEqual(splitCompound(`npm run gen && npm test; echo "a && b" || true`), ['npm run gen', 'npm test', 'echo "a && b"', 'true']);
    const c = classifyCommand('npm run gen:mappers && npm test');
    assert.equal(c.kind, 'test');
    assert.deepEqual(c.parts.map((p) => `${p.kind} ${p.key}`), ['generate npm run gen:mappers', 'test npm test']);
  });

  it('normalises synonyms so repeats match', () => {
    assert.equal(normalizeCommand('CI=1 npm run test'), 'npm test');
    assert.equal(normalizeCommand('npm t'), 'npm test');
    assert.equal(normalizeCommand('  npm   run-script   build '), 'npm run build');
    assert.equal(normalizeCommand('node_modules/.bin/jest'), 'jest');
  });

  it('marks navigation and inspection commands as trivial (never terminal episodes)', () => {
    for (const c of ['cd src', 'ls', 'git status', 'git log --oneline', 'cat README.md && ls']) assert.ok(classifyCommand(c).trivial, c);
    for (const c of ['npm test', 'git commit -m x', './deploy.sh']) assert.ok(!classifyCommand(c).trivial, c);
  });
});
