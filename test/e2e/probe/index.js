// Extension-test entry (`--extensionTestsPath`): runs the same checks as the
// probe command, in whatever VS Code launched it — desktop VS Code from
// .vscode/launch.json "Extension Tests", or @vscode/test-electron where it can
// download VS Code. Opens on a folder (the launch config uses a copy of
// examples/settlement); TENURE_PROBE_SPEC may name a spec file to override the defaults.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const vscode = require('vscode');
const { runAndWrite } = require('./checks');

async function run() {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (!folder) throw new Error('Open a folder (e.g. a copy of examples/settlement) for the extension tests.');
  const spec = process.env.TENURE_PROBE_SPEC
    ? JSON.parse(fs.readFileSync(process.env.TENURE_PROBE_SPEC, 'utf8'))
    : {
        out: path.join(os.tmpdir(), 'tenure-probe-results.json'),
        workspace: folder,
        symbol: 'SettlementService.retry',
        symbolFile: 'src/settlement/SettlementService.ts',
        symbolLine: 19,
        ...(fs.existsSync(path.join(folder, 'tenure-seed', 'episodes.json')) ? { seedFile: path.join(folder, 'tenure-seed', 'episodes.json') } : {}),
        // Nobody is there to answer a writing tool's confirmation dialog in an extension-test run.
        confirmWrites: false,
        reportOut: path.join(os.tmpdir(), 'tenure-probe-report.json'),
        textIncludes: ['retry'],
        jsonIncludes: [],
        minFiles: 1,
        updateTimeoutMs: 20000,
      };
  const out = await runAndWrite(spec);
  for (const r of out.results) console.log(`${r.status === 'passed' ? '✓' : r.status === 'skipped' ? '-' : '✗'} ${r.name}${r.error ? `\n    ${r.error}` : ''}`);
  const failed = out.results.filter((r) => r.status === 'failed').length;
  const passed = out.results.filter((r) => r.status === 'passed').length;
  console.log(`${passed} passed, ${failed} failed`);
  if (failed) throw new Error(`${failed} Tenure checks failed`);
}

module.exports = { run };
