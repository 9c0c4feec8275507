// Test-only extension. `Tenure Probe: Run Checks` runs Tenure's end-to-end
// checks (checks.js) inside the extension host and writes the results to the
// file named in the spec, for scripts/e2e.mjs to assert on. The spec file is
// named by the `tenureProbe.specFile` setting (or TENURE_PROBE_SPEC).
'use strict';
const fs = require('node:fs');
const vscode = require('vscode');
const { runAndWrite, writeReport } = require('./checks');

let profiler;

function activate(context) {
  // Activated at startup ("*"), before Tenure, so the profile covers its first index too.
  try {
    profiler = require('./profile').start();
  } catch (e) {
    profiler = undefined;
  }
  context.subscriptions.push(
    vscode.commands.registerCommand('tenureProbe.run', async () => {
      const specFile = vscode.workspace.getConfiguration('tenureProbe').get('specFile') || process.env.TENURE_PROBE_SPEC;
      if (!specFile) {
        void vscode.window.showErrorMessage('tenureProbe.specFile is not set');
        return;
      }
      const out = await runAndWrite(JSON.parse(fs.readFileSync(specFile, 'utf8')));
      const passed = out.results.filter((r) => r.status === 'passed').length;
      void vscode.window.showInformationMessage(`Tenure probe: ${passed}/${out.results.length} checks passed`);
    }),
    // The e2e switches colour themes through the setting (the spec names the theme), as a settings change does.
    vscode.commands.registerCommand('tenureProbe.theme', async () => {
      const specFile = vscode.workspace.getConfiguration('tenureProbe').get('specFile') || process.env.TENURE_PROBE_SPEC;
      const spec = JSON.parse(fs.readFileSync(specFile, 'utf8'));
      await vscode.workspace.getConfiguration('workbench').update('colorTheme', spec.theme, vscode.ConfigurationTarget.Global);
    }),
    vscode.commands.registerCommand('tenureProbe.report', async () => {
      const specFile = vscode.workspace.getConfiguration('tenureProbe').get('specFile') || process.env.TENURE_PROBE_SPEC;
      const spec = JSON.parse(fs.readFileSync(specFile, 'utf8'));
      const profile = profiler ? await profiler.stop().catch((e) => ({ error: String(e) })) : { error: 'no profiler' };
      profiler = undefined;
      await writeReport(spec.reportOut, { profile });
    }),
  );
}

module.exports = { activate, deactivate() {} };
