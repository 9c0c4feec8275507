#!/usr/bin/env node
// Installs code-server 4.100.3 (VS Code 1.100.3, the newest that runs on Node 20)
// under .vscode-test/ so the e2e test can run a real VS Code with no internet.
// The plain `npm install code-server` cannot work here: a postinstall downloads
// ripgrep, and kerberos needs headers. The steps below follow
// shared/notes/real-vscode-on-this-machine.md. Idempotent: when the stamp file is
// present and every native module is in place, it returns at once.
//
// Needs from the OS: libkrb5-dev (kerberos headers), ripgrep (/usr/bin/rg), a C++
// toolchain for node-gyp. Chromium is only needed to drive the workbench.
//
// Usage: node scripts/install-code-server.mjs [--force]
// Exports: ensureCodeServer() → { dir, entry } for scripts/e2e.mjs.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CODE_SERVER_VERSION = '4.100.3';
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const toolDir = path.join(repoRoot, '.vscode-test', `code-server-${CODE_SERVER_VERSION}`);
const csDir = path.join(toolDir, 'node_modules', 'code-server');
const vscodeDir = path.join(csDir, 'lib', 'vscode');
export const entry = path.join(csDir, 'out', 'node', 'entry.js');
const stamp = path.join(toolDir, '.installed');

/** Native modules code-server needs, each with the folder (under its root) that must hold a `.node`. */
const NATIVE = [
  { root: vscodeDir, name: 'kerberos' },
  // @parcel/watcher ships its binary in a per-platform package.
  { root: vscodeDir, name: `@parcel/watcher-${process.platform}-${process.arch}${process.platform === 'linux' ? '-glibc' : ''}` },
  { root: vscodeDir, name: '@vscode/spdlog' },
  { root: vscodeDir, name: '@vscode/deviceid' },
  { root: vscodeDir, name: 'native-watchdog' },
  { root: vscodeDir, name: 'node-pty' },
  { root: toolDir, name: 'argon2' },
];

function log(msg) {
  process.stderr.write(`[install-code-server] ${msg}\n`);
}

function run(cmd, args, cwd, { allowFail = false } = {}) {
  log(`${path.relative(repoRoot, cwd) || '.'}$ ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, CI: process.env.CI ?? '' } });
  if (r.error) throw r.error;
  if (r.status !== 0 && !allowFail) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status} in ${cwd}`);
  return r.status;
}

/** Every `.node` binary below a module folder (build/Release, prebuilds, …). */
function nodeBinaries(dir) {
  const found = [];
  const walk = (d, depth) => {
    if (depth > 6 || !fs.existsSync(d)) return;
    for (const ent of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, ent.name);
      if (ent.isDirectory()) {
        if (ent.name === 'node_modules' || ent.name === 'obj.target' || ent.name === 'obj' || ent.name.startsWith('build-tmp')) continue;
        walk(p, depth + 1);
      } else if (ent.name.endsWith('.node')) found.push(p);
    }
  };
  walk(dir, 0);
  return found;
}

/** Names of native modules that have no built `.node` (an empty list means all are there). */
export function missingNatives() {
  return NATIVE.filter(({ root, name }) => {
    const dir = path.join(root, 'node_modules', name);
    return nodeBinaries(dir).length === 0;
  }).map(({ name }) => name);
}

function checkPrerequisites() {
  const problems = [];
  if (!fs.existsSync('/usr/bin/rg')) problems.push('ripgrep (/usr/bin/rg)');
  if (!fs.existsSync('/usr/include/gssapi/gssapi.h') && !fs.existsSync('/usr/include/krb5.h')) problems.push('libkrb5-dev (kerberos headers)');
  if (problems.length) {
    throw new Error(`Missing OS packages: ${problems.join(', ')}. Run: apt-get install -y libkrb5-dev ripgrep chromium`);
  }
}

function isInstalled() {
  return fs.existsSync(stamp) && fs.existsSync(entry) && missingNatives().length === 0;
}

export function ensureCodeServer({ force = false } = {}) {
  if (!force && isInstalled()) return { dir: toolDir, entry };
  const t0 = Date.now();
  checkPrerequisites();
  fs.rmSync(stamp, { force: true });
  fs.mkdirSync(toolDir, { recursive: true });
  // A package.json of its own keeps npm from climbing to the repository's.
  fs.writeFileSync(path.join(toolDir, 'package.json'), JSON.stringify({ name: 'tenure-code-server', private: true }, null, 2) + '\n');

  // 2. code-server itself, without its install scripts (they download ripgrep).
  if (!fs.existsSync(entry)) {
    run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--no-save', `code-server@${CODE_SERVER_VERSION}`], toolDir);
  }

  // 3. VS Code's own dependencies, then its native modules built for this Node.
  run('npm', ['install', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund'], vscodeDir);
  // node-pty's post-install step exits non-zero after building pty.node: judge by the .node files below.
  run('npm', ['rebuild', 'kerberos', '@parcel/watcher', '@vscode/spdlog', '@vscode/deviceid', 'native-watchdog', 'node-pty'], vscodeDir, {
    allowFail: true,
  });
  const rgBin = path.join(vscodeDir, 'node_modules', '@vscode', 'ripgrep', 'bin');
  fs.mkdirSync(rgBin, { recursive: true });
  fs.rmSync(path.join(rgBin, 'rg'), { force: true });
  fs.symlinkSync('/usr/bin/rg', path.join(rgBin, 'rg'));
  const asar = path.join(vscodeDir, 'node_modules.asar');
  fs.rmSync(asar, { force: true, recursive: true });
  fs.symlinkSync('node_modules', asar);

  // 4. the built-in extensions' dependencies (the TypeScript server among them).
  run('npm', ['install', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund'], path.join(vscodeDir, 'extensions'));

  // 5. code-server's own native module.
  run('npm', ['rebuild', 'argon2'], toolDir, { allowFail: true });

  const missing = missingNatives();
  if (missing.length) throw new Error(`code-server install incomplete: no built .node for ${missing.join(', ')}`);
  fs.writeFileSync(stamp, JSON.stringify({ version: CODE_SERVER_VERSION, node: process.version, at: new Date().toISOString() }) + '\n');
  log(`installed in ${((Date.now() - t0) / 1000).toFixed(0)} s at ${path.relative(repoRoot, toolDir)}`);
  return { dir: toolDir, entry };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const t0 = Date.now();
    const r = ensureCodeServer({ force: process.argv.includes('--force') });
    log(`ready (${Date.now() - t0} ms): ${path.relative(repoRoot, r.entry)}`);
  } catch (e) {
    log(`FAILED: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  }
}
