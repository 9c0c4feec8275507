// Tenure's end-to-end checks, run inside an extension host where
// vscode.lm.invokeTool is. Used by the probe's command (scripts/e2e.mjs, in
// code-server) and by the extension-test entry (index.js, for VS Code desktop).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const vscode = require('vscode');

const TENURE_ID = 'tenure.tenure';
const TOOL = 'tenure_what_breaks';

function assert(cond, message) {
  if (!cond) throw new Error(message);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The text and the JSON of a tool result, whichever part type carries the JSON. */
function readResult(result) {
  const parts = result.content;
  assert(Array.isArray(parts) && parts.length >= 1, `expected at least one result part, got ${JSON.stringify(parts)}`);
  const text = parts[0] && typeof parts[0].value === 'string' ? parts[0].value : undefined;
  assert(text !== undefined, `first part is not a text part: ${JSON.stringify(parts[0])}`);
  let json;
  const second = parts[1];
  if (second && typeof second.value === 'string') json = JSON.parse(second.value);
  else if (second && second.data && /json/.test(second.mimeType ?? '')) json = JSON.parse(Buffer.from(second.data).toString('utf8'));
  assert(json !== undefined, `second part holds no JSON: ${JSON.stringify(second)?.slice(0, 300)}`);
  return { text, json, partTypes: parts.map((p) => p?.constructor?.name ?? typeof p) };
}

function invoke(input) {
  const cts = new vscode.CancellationTokenSource();
  return Promise.resolve(vscode.lm.invokeTool(TOOL, { input, toolInvocationToken: undefined }, cts.token)).finally(() => cts.dispose());
}

/** Polls a what_breaks query until `ok(answer)` holds: the watcher and the debounce run on their own clock. */
async function until(symbol, ok, timeoutMs, api) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    const state = await api.whenIdle();
    if (state.kind === 'failed') throw new Error(`Tenure's index failed: ${state.message}`);
    try {
      last = readResult(await invoke({ symbol }));
      if (ok(last)) return last;
    } catch (e) {
      last = { error: String(e && e.message ? e.message : e) };
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms; last answer: ${JSON.stringify(last).slice(0, 1500)}`);
    await sleep(150);
  }
}

async function runChecks(spec) {
  const results = [];
  const check = async (name, fn) => {
    const t0 = Date.now();
    try {
      const detail = await fn();
      if (detail === 'skip') results.push({ name, status: 'skipped', ms: Date.now() - t0 });
      else results.push({ name, status: 'passed', ms: Date.now() - t0, detail });
    } catch (e) {
      results.push({ name, status: 'failed', ms: Date.now() - t0, error: e && e.stack ? e.stack : String(e) });
    }
  };

  const ext = vscode.extensions.getExtension(TENURE_ID);
  let api;
  await check('Tenure is installed and activates', async () => {
    assert(ext, `extension ${TENURE_ID} is not installed`);
    api = await ext.activate();
    assert(api && typeof api.whenIdle === 'function', 'activate() returned no API');
    return { version: ext.packageJSON.version };
  });
  if (!api) return results;

  await check('the first index completes', async () => {
    const state = await api.whenIdle();
    assert(state.kind === 'ready', `index state is ${JSON.stringify(state)}`);
    assert(state.counts.files >= (spec.minFiles ?? 1), `indexed ${state.counts.files} files, expected at least ${spec.minFiles}`);
    assert(state.counts.symbols > 0, 'no symbols');
    return state.counts;
  });

  await check('workspace trust flag matches the workbench', async () => {
    assert(api.restricted === !vscode.workspace.isTrusted, `restricted=${api.restricted} but isTrusted=${vscode.workspace.isTrusted}`);
    if (spec.expectRestricted !== undefined) assert(api.restricted === spec.expectRestricted, `restricted=${api.restricted}, expected ${spec.expectRestricted}`);
    return { restricted: api.restricted };
  });

  await check('commands are registered', async () => {
    const all = new Set(await vscode.commands.getCommands(true));
    for (const c of ['tenure.reindex', 'tenure.whatBreaks', 'tenure.showOutput']) assert(all.has(c), `missing command ${c}`);
  });

  await check(`LM tool ${TOOL} is listed with its input schema`, async () => {
    const info = vscode.lm.tools.find((t) => t.name === TOOL);
    assert(info, `not in vscode.lm.tools: ${vscode.lm.tools.map((t) => t.name).join(', ')}`);
    assert(info.inputSchema && info.inputSchema.properties && info.inputSchema.properties.symbol, `inputSchema lacks symbol: ${JSON.stringify(info.inputSchema)}`);
    assert(info.tags.includes('tenure'), `tags: ${info.tags}`);
    return { description: info.description.slice(0, 80), tags: info.tags };
  });

  await check('every contributed LM tool is listed', async () => {
    const contributed = (ext.packageJSON.contributes.languageModelTools ?? []).map((t) => t.name);
    assert(contributed.length > 0, 'package.json contributes no languageModelTools');
    const listed = new Set(vscode.lm.tools.map((t) => t.name));
    const missing = contributed.filter((n) => !listed.has(n));
    assert(!missing.length, `not in vscode.lm.tools: ${missing.join(', ')}`);
    return { tools: contributed };
  });

  await check(`invokeTool(${TOOL}, ${spec.symbol}) answers with text and JSON`, async () => {
    const r = readResult(await invoke({ symbol: spec.symbol }));
    assert(r.text.trim().length > 0, 'empty text');
    const json = JSON.stringify(r.json);
    for (const s of spec.textIncludes ?? []) assert(r.text.includes(s), `text lacks ${JSON.stringify(s)}:\n${r.text}`);
    for (const s of spec.jsonIncludes ?? []) assert(json.includes(s), `JSON lacks ${JSON.stringify(s)}: ${json.slice(0, 1500)}`);
    return { text: r.text.slice(0, 600), partTypes: r.partTypes, jsonBytes: json.length };
  });

  // Every read-only tool answers a minimal call (required strings filled with the symbol):
  // catches a tool that is contributed but not registered, or that needs something the VSIX lacks.
  for (const t of (ext.packageJSON.contributes.languageModelTools ?? []).filter((t) => (t.tags ?? []).includes('read-only') && t.name !== TOOL)) {
    await check(`invokeTool(${t.name}) answers`, async () => {
      const input = {};
      for (const key of t.inputSchema.required ?? []) {
        const prop = t.inputSchema.properties[key];
        assert(prop && prop.type === 'string', `cannot fill required ${key} of type ${prop && prop.type}`);
        input[key] = key === 'question' ? `What breaks if I change ${spec.symbol}?` : spec.symbol;
      }
      const cts = new vscode.CancellationTokenSource();
      const result = await Promise.resolve(vscode.lm.invokeTool(t.name, { input, toolInvocationToken: undefined }, cts.token)).finally(() => cts.dispose());
      const r = readResult(result);
      assert(r.text.trim().length > 0, 'empty text');
      return { input, text: r.text.slice(0, 300) };
    });
  }

  await check('invalid input is rejected with a message naming the field', async () => {
    let error;
    try {
      await invoke({ depth: 'deep' });
    } catch (e) {
      error = e;
    }
    assert(error, 'invokeTool with no symbol did not fail');
    assert(/symbol/i.test(String(error.message)), `message does not name the field: ${error.message}`);
    return { message: String(error.message).slice(0, 300) };
  });

  // Files of the probe's own, in TypeScript, so the check holds whatever the example's language.
  const dir = path.join(spec.workspace, spec.probeDir ?? 'tenure-probe');
  const target = 'probeTargetE2e';
  await check('files written into a new folder are indexed (file watcher)', async () => {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'target.ts'), `export function ${target}(n: number): number {\n  return n + 1;\n}\n`);
    fs.writeFileSync(
      path.join(dir, 'callerOne.ts'),
      `import { ${target} } from './target';\n\nexport function probeCallerOne(): number {\n  return ${target}(1);\n}\n`,
    );
    const r = await until(target, (a) => !a.error && JSON.stringify(a.json).includes('probeCallerOne'), spec.updateTimeoutMs ?? 15000, api);
    return { text: r.text.slice(0, 400) };
  });

  await check('an edit saved in the editor is re-indexed (onDidSaveTextDocument)', async () => {
    const file = vscode.Uri.file(path.join(dir, 'callerOne.ts'));
    const doc = await vscode.workspace.openTextDocument(file);
    await vscode.window.showTextDocument(doc);
    const edit = new vscode.WorkspaceEdit();
    edit.insert(file, new vscode.Position(doc.lineCount, 0), `\nexport function probeCallerTwo(): number {\n  return ${target}(2);\n}\n`);
    assert(await vscode.workspace.applyEdit(edit), 'applyEdit failed');
    assert(await doc.save(), 'save failed');
    const r = await until(target, (a) => !a.error && JSON.stringify(a.json).includes('probeCallerTwo'), spec.updateTimeoutMs ?? 15000, api);
    return { text: r.text.slice(0, 400) };
  });

  await check('a deleted file drops out of the answer', async () => {
    fs.rmSync(path.join(dir, 'callerOne.ts'));
    const r = await until(
      target,
      (a) => !a.error && !JSON.stringify(a.json).includes('probeCallerOne') && !JSON.stringify(a.json).includes('probeCallerTwo'),
      spec.updateTimeoutMs ?? 15000,
      api,
    );
    return { text: r.text.slice(0, 300) };
  });

  await check('a deleted folder drops out of the index', async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    const deadline = Date.now() + (spec.updateTimeoutMs ?? 15000);
    for (;;) {
      await api.whenIdle();
      let message;
      try {
        await invoke({ symbol: target });
      } catch (e) {
        message = String(e && e.message ? e.message : e);
      }
      if (message && /no symbol/i.test(message)) return { message: message.slice(0, 200) };
      if (Date.now() > deadline) throw new Error(`${target} is still answered after its folder was deleted (last error: ${message ?? 'none'})`);
      await sleep(150);
    }
  });

  await check('tenure.whatBreaks opens a markdown answer', async () => {
    await vscode.commands.executeCommand('tenure.whatBreaks', spec.symbol);
    const editor = vscode.window.activeTextEditor;
    assert(editor, 'no active editor');
    assert(editor.document.languageId === 'markdown', `active editor is ${editor.document.languageId}`);
    const text = editor.document.getText();
    assert(text.includes('# What breaks'), `unexpected document:\n${text.slice(0, 500)}`);
    return { chars: text.length };
  });

  await check('tenure.reindex runs a full index again', async () => {
    await vscode.commands.executeCommand('tenure.reindex');
    const state = await api.whenIdle();
    assert(state.kind === 'ready', `state after reindex: ${JSON.stringify(state)}`);
    return state.counts;
  });

  await check('MCP server definition provider (VS Code 1.101+)', async () => {
    if (typeof vscode.lm.registerMcpServerDefinitionProvider !== 'function') return 'skip';
    // Offered through the provider; listing it needs the MCP view, which this probe does not drive.
    return { available: true };
  });

  fs.rmSync(dir, { recursive: true, force: true });
  return results;
}

/** Runs the checks and writes `{ vscodeVersion, ms, results }` to spec.out (whole, then renamed). */
async function runAndWrite(spec) {
  const t0 = Date.now();
  let results;
  try {
    results = await runChecks(spec);
  } catch (e) {
    results = [{ name: 'probe crashed', status: 'failed', error: e && e.stack ? e.stack : String(e) }];
  }
  const out = { vscodeVersion: vscode.version, ms: Date.now() - t0, results };
  if (spec.out) {
    fs.writeFileSync(spec.out + '.tmp', JSON.stringify(out, null, 2));
    fs.renameSync(spec.out + '.tmp', spec.out);
  }
  return out;
}

module.exports = { runChecks, runAndWrite };

