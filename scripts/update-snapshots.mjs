// Rewrites the golden snapshots: the tree-sitter inventory of each fixture
// (test/snapshots/inventory/**) and the text every tool answers on
// examples/settlement (test/snapshots/answers/**). Compiles, then runs the
// snapshot tests with UPDATE_SNAPSHOTS=1. Review `git diff test/snapshots` line
// by line before committing: a wrong snapshot is a defect, not a formality.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name);
const run = (cmd, args, env = {}) => {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env }, shell: process.platform === 'win32' });
  return r.status ?? 1;
};

// tsc may report errors in files unrelated to the inventory; it still emits, so go on.
run(bin('tsc'), ['-p', '.']);
process.exit(run(bin('mocha'), ['--no-config', '--timeout', '120000', 'out/test/unit/inventory.snapshot.test.js', 'out/test/integration/answers.snapshot.test.js'], { UPDATE_SNAPSHOTS: '1' }));
