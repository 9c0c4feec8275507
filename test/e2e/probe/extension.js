// Test-only extension. `Tenure Probe: Run Checks` runs Tenure's end-to-end
// checks (checks.js) inside the extension host and writes the results to the
// file named in the spec, for scripts/e2e.mjs to assert on. The spec file is
// named by the `tenureProbe.specFile` setting (or TENURE_PROBE_SPEC).
'use strict';
const fs = require('node:fs');
const vscode = require('vscode');
const { runAndWrite } = require('./checks');

function activate(context) {
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
  );
}

module.exports = { activate, deactivate() {} };
