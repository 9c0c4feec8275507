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

/**
 * The text of a tool result — what Copilot reads — and the dependents it
 * lists, read from the text the way an agent reads it: tier headings, then
 * one line per dependent. A second part carries JSON only when text and JSON
 * together fit the tool's token budget.
 */
function readResult(result) {
  const parts = result.content;
  assert(Array.isArray(parts) && parts.length >= 1, `expected at least one result part, got ${JSON.stringify(parts)}`);
  const text = parts[0] && typeof parts[0].value === 'string' ? parts[0].value : undefined;
  assert(text !== undefined, `first part is not a text part: ${JSON.stringify(parts[0])}`);
  const second = parts[1];
  const json = second && typeof second.value === 'string' ? JSON.parse(second.value) : undefined;
  return { text, json, dependents: dependentsIn(text), partTypes: parts.map((p) => p?.constructor?.name ?? typeof p) };
}

/** "  resolved (4) — …:" opens a tier; "    - A.b calls it at src/x.ts:3 — why" is a direct dependent of that tier. */
function dependentsIn(text) {
  const out = [];
  let tier;
  let section;
  for (const line of text.split('\n')) {
    if (/^direct dependents \(/.test(line)) section = 'direct';
    else if (/^\S/.test(line)) section = undefined;
    const heading = /^\s+(resolved|observed|inferred|ambiguous|dynamic) \(\d+\) — /.exec(line);
    if (heading) tier = heading[1];
    const item = /^\s+- (\S+) (calls|references|instantiates|imports|extends|implements|overrides|uses a member of) (?:it|\S+) at \S+ — (.*)$/.exec(line);
    if (section === 'direct' && tier && item) out.push({ qname: item[1], relation: item[2], tier, why: item[3] });
  }
  return out;
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

/** The panel's page loads on its own clock (a 0.5 MB bundle on a busy machine): wait for its report. */
async function renderedPanel(api, kind, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const d = await api.debug();
    const p = d.panels.find((x) => x.kind === kind);
    if ((p && p.rendered) || Date.now() > deadline) return d;
    await sleep(200);
  }
}

async function runChecks(spec) {
  const results = [];
  const check = async (name, fn) => {
    const t0 = Date.now();
    try {
      const detail = await fn();
      // A check that cannot run here says why; a bare skip is a check that passed without checking.
      if (detail === 'skip') results.push({ name, status: 'failed', ms: Date.now() - t0, error: 'skipped without saying why it cannot run here' });
      else if (detail && typeof detail === 'object' && typeof detail.skip === 'string') results.push({ name, status: 'skipped', ms: Date.now() - t0, reason: detail.skip });
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
    const contributed = ext.packageJSON.contributes.commands.map((c) => c.command);
    for (const c of contributed) assert(all.has(c), `contributed command ${c} is not registered`);
    for (const c of ['tenure.reindex', 'tenure.whatBreaks', 'tenure.whyIsThis', 'tenure.clearIndex', 'tenure.openDatabaseFolder', 'tenure.indexKnowledge', 'tenure.importEpisodes', 'tenure.setApiKey', 'tenure.showOutput']) assert(all.has(c), `missing command ${c}`);
    return { commands: contributed.length };
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

  await check(`invokeTool(${TOOL}, ${spec.symbol}) answers with text within its budget, every dependent with its tier`, async () => {
    const r = readResult(await invoke({ symbol: spec.symbol }));
    assert(r.text.trim().length > 0, 'empty text');
    for (const s of [...(spec.textIncludes ?? []), ...(spec.jsonIncludes ?? [])]) assert(r.text.includes(s), `text lacks ${JSON.stringify(s)}:\n${r.text}`);
    assert(r.dependents.length > 0, `no dependent read from the text:\n${r.text}`);
    // About four characters a token: the 1,200-token budget of what_breaks.
    assert(r.text.length < 1200 * 6, `text of ${r.text.length} characters`);
    return { text: r.text.slice(0, 600), partTypes: r.partTypes, dependents: r.dependents.length, json: r.json ? 'within budget' : 'left out (over budget)' };
  });

  // The four memories on the example: structural (indexed on start), episodic + procedural (the example's
  // episode seed, imported with the command a user runs), knowledge (offline indexing, the command's default).
  if (spec.seedFile) {
    await check('Tenure: Import Episodes fills the episodic and procedural memories', async () => {
      await vscode.commands.executeCommand('tenure.importEpisodes', spec.seedFile);
      const d = await api.debug();
      assert(d.views.timeline.length > 3, `timeline rows: ${JSON.stringify(d.views.timeline)}`);
      assert(d.views.rules.some((r) => /proposed|candidate|promoted/.test(r)), `rules rows: ${JSON.stringify(d.views.rules)}`);
      return { timeline: d.views.timeline.slice(0, 6), rules: d.views.rules };
    });
    await check('clicking an episode shows its evidence and diff', async () => {
      await vscode.commands.executeCommand('tenure.showEpisode', 8);
      const doc = vscode.window.activeTextEditor && vscode.window.activeTextEditor.document;
      assert(doc && doc.uri.scheme === 'tenure-episode', `active document: ${doc && doc.uri.toString()}`);
      const text = doc.getText();
      assert(/## Evidence/.test(text) && /## Diff/.test(text) && /high confidence/.test(text), text.slice(0, 800));
      return { head: text.split('\n')[0] };
    });
  }
  await check('Tenure: Index Knowledge fills the knowledge memory (offline)', async () => {
    await vscode.commands.executeCommand('tenure.indexKnowledge');
    const d = await api.debug();
    assert(d.views.knowledge.some((r) => /^Decisions/.test(r)), `knowledge rows: ${JSON.stringify(d.views.knowledge)}`);
    assert(d.views.knowledge.some((r) => /ADR-0007/.test(r)), `no ADR-0007 in ${JSON.stringify(d.views.knowledge)}`);
    assert(d.views.status.some((r) => /^Knowledge — \d+ documents/.test(r)), `status rows: ${JSON.stringify(d.views.status)}`);
    return { knowledge: d.views.knowledge.slice(0, 8), status: d.views.status };
  });

  // Every contributed tool, through vscode.lm.invokeTool, with the input an agent would send.
  const inputs = {
    tenure_what_happened_before: { symbol: spec.symbol },
    tenure_why_is_this: { symbol: spec.symbol },
    tenure_related_by_intent: { phrase: 'settlement retries' },
    tenure_search_knowledge: { question: 'What are the recurring failure modes in settlement?' },
    tenure_ask: { question: `I am about to change the settlement retry policy. What breaks, why is it three, has anyone tried this before?`, symbol: spec.symbol },
    tenure_record_conclusion: { conclusion: 'The e2e probe concluded that retry is called by the nightly batch by name.', symbol: spec.symbol },
  };
  const expectText = {
    tenure_what_happened_before: /FAILED|failed/,
    tenure_why_is_this: /ADR-0007/,
    tenure_related_by_intent: /RetryPolicy|SettlementService/,
    tenure_search_knowledge: /\S/,
    tenure_ask: /structural[\s\S]*knowledge|knowledge[\s\S]*structural/i,
    tenure_record_conclusion: /conclusion/i,
  };
  for (const t of (ext.packageJSON.contributes.languageModelTools ?? []).filter((t) => t.name !== TOOL)) {
    await check(`invokeTool(${t.name}) answers from its memory`, async () => {
      if (spec.confirmWrites === false && !(t.tags ?? []).includes('read-only')) return { skip: 'this run cannot confirm a writing tool in the workbench (no UI to click the confirmation)' };
      let input = inputs[t.name];
      if (!input) {
        input = {};
        for (const key of t.inputSchema.required ?? []) input[key] = key === 'question' ? `What breaks if I change ${spec.symbol}?` : spec.symbol;
      }
      const cts = new vscode.CancellationTokenSource();
      const result = await Promise.resolve(vscode.lm.invokeTool(t.name, { input, toolInvocationToken: undefined }, cts.token)).finally(() => cts.dispose());
      const r = readResult(result);
      assert(r.text.trim().length > 0, 'empty text');
      if (expectText[t.name]) assert(expectText[t.name].test(r.text), `${t.name} text does not match ${expectText[t.name]}:\n${r.text.slice(0, 1500)}`);
      if (spec.expectRestricted) assert(/restricted mode/i.test(r.text), `restricted mode is not stated:\n${r.text.slice(0, 800)}`);
      return { input, text: r.text.slice(0, 400) };
    });
  }
  if (spec.expectRestricted) {
    await check(`restricted: ${TOOL} says why it is limited`, async () => {
      const r = readResult(await invoke({ symbol: spec.symbol }));
      assert(/restricted mode/i.test(r.text), r.text.slice(0, 800));
      return { text: r.text.slice(-400) };
    });
    await check('restricted: promoting a rule writes no instruction file', async () => {
      await vscode.commands.executeCommand('tenure.rules.promote', 1);
      assert(!fs.existsSync(path.join(spec.workspace, 'AGENTS.md')), 'AGENTS.md was written in restricted mode');
      return { agentsMd: false };
    });
  }

  // Hover and CodeLens, through the same commands the editor calls.
  const file = vscode.Uri.file(path.join(spec.workspace, spec.symbolFile));
  await check('CodeLens above SettlementService.retry reads "≥ N callers · … incident · … failed attempts"', async () => {
    const doc = await vscode.workspace.openTextDocument(file);
    await vscode.window.showTextDocument(doc);
    const lenses = (await vscode.commands.executeCommand('vscode.executeCodeLensProvider', file, 100)) ?? [];
    const titles = lenses.map((l) => l.command && l.command.title).filter(Boolean);
    const line = spec.symbolLine - 1;
    const onRetry = lenses.filter((l) => l.range.start.line === line && l.command).map((l) => l.command.title);
    assert(onRetry.some((t) => /≥ \d+ callers?/.test(t)), `no caller count on line ${spec.symbolLine}: ${JSON.stringify(titles)}`);
    assert(onRetry.some((t) => /incident/.test(t) && /failed attempt/.test(t)), `no incident / failed-attempt count: ${JSON.stringify(onRetry)}`);
    return { lenses: titles.length, onRetry };
  });
  await check('hover on retry shows the memory line with links into the panels', async () => {
    const doc = await vscode.workspace.openTextDocument(file);
    const col = doc.lineAt(spec.symbolLine - 1).text.indexOf('retry(') + 2;
    const hovers = (await vscode.commands.executeCommand('vscode.executeHoverProvider', file, new vscode.Position(spec.symbolLine - 1, col))) ?? [];
    const texts = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value)));
    const ours = texts.find((t) => t.includes('**Tenure**'));
    assert(ours, `no Tenure hover among ${JSON.stringify(texts).slice(0, 800)}`);
    assert(/callers?/.test(ours) && /command:tenure\.showImpact/.test(ours) && /command:tenure\.whyIsThis/.test(ours), ours);
    return { hover: ours.slice(0, 300) };
  });

  // The panels, opened by their commands; the page reports what it rendered and any CSP violation.
  await check('"Why is this?" renders all four memories for SettlementService.retry', async () => {
    await vscode.commands.executeCommand('tenure.whyIsThis', spec.symbol);
    const d = await renderedPanel(api, 'why');
    const why = d.panels.find((p) => p.kind === 'why');
    assert(why && why.rendered, `why panel not rendered: ${JSON.stringify(d.panels)}`);
    const r = why.rendered;
    assert(r.documents > 0 && r.episodes > 0 && r.rules > 0 && r.dependents > 0, `not every memory answered: ${JSON.stringify(r)}`);
    assert(!why.cspViolations.length, `CSP violations: ${why.cspViolations.join('; ')}`);
    return r;
  });
  await check('impact panel renders the graph and tiered list', async () => {
    await vscode.commands.executeCommand('tenure.whatBreaks', spec.symbol);
    const d = await renderedPanel(api, 'impact');
    const impact = d.panels.find((p) => p.kind === 'impact');
    assert(impact && impact.rendered, `impact panel not rendered: ${JSON.stringify(d.panels)}`);
    const r = impact.rendered;
    assert(r.rows > 0 && r.nodes > 1 && r.inferred + r.resolved > 0 && r.dynamic > 0, JSON.stringify(r));
    assert(!impact.cspViolations.length, `CSP violations: ${impact.cspViolations.join('; ')}`);
    return impact.rendered;
  });

  if (api.restricted) {
    await check('restricted: no language server confirms any edge', async () => {
      const r = readResult(await invoke({ symbol: spec.symbol }));
      assert(r.dependents.length > 0, `no dependent read from the text:\n${r.text}`);
      const resolved = r.dependents.filter((d) => d.tier === 'resolved');
      assert(!resolved.length, `resolved edges in an untrusted workspace: ${JSON.stringify(resolved)}`);
      return { tiers: r.dependents.map((d) => d.tier) };
    });
  } else {
    await check("VS Code's own TypeScript server confirms the callers: resolved, with vscode:typescript as the source", async () => {
      const r = await until(
        spec.symbol,
        (a) => a.dependents.length > 0 && a.dependents.filter((d) => d.relation === 'calls').every((d) => d.tier === 'resolved'),
        180000,
        api,
      );
      const calls = r.dependents.filter((d) => d.relation === 'calls');
      for (const d of calls) assert(/vscode:typescript/.test(d.why), `source of ${d.qname}: ${d.why}`);
      assert(/\(\d+ resolved[,)]/.test(r.text), `the text does not say resolved: ${r.text.slice(0, 300)}`);
      return { callers: calls.map((d) => `${d.qname} ${d.tier} ${d.why}`) };
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
    const r = await until(target, (a) => !a.error && a.text.includes('probeCallerOne'), spec.updateTimeoutMs ?? 15000, api);
    return { text: r.text.slice(0, 400) };
  });

  await check('an edit saved in the editor is re-indexed (onDidSaveTextDocument)', async () => {
    const file = vscode.Uri.file(path.join(dir, 'callerOne.ts'));
    const doc = await vscode.workspace.openTextDocument(file);
    await vscode.window.showTextDocument(doc);
    const edit = new vscode.WorkspaceEdit();
    edit.insert(file, new vscode.Position(doc.lineCount, 0), `\nexport function probeCallerTwo(): number {\n  return ${target}(2);\n}\n`);
    assert(await vscode.workspace.applyEdit(edit), 'applyEdit failed');
    // save() is false when a save participant gave up on a busy host yet the file was written: judge by the document.
    const saved = await doc.save();
    assert(saved || !doc.isDirty, 'save failed and the document is still dirty');
    const r = await until(target, (a) => !a.error && a.text.includes('probeCallerTwo'), spec.updateTimeoutMs ?? 15000, api);
    return { text: r.text.slice(0, 400) };
  });

  await check('a deleted file drops out of the answer', async () => {
    fs.rmSync(path.join(dir, 'callerOne.ts'));
    const r = await until(
      target,
      (a) => !a.error && !a.text.includes('probeCallerOne') && !a.text.includes('probeCallerTwo'),
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

  await check('tenure.reindex runs a full index again', async () => {
    await vscode.commands.executeCommand('tenure.reindex');
    const state = await api.whenIdle();
    assert(state.kind === 'ready', `state after reindex: ${JSON.stringify(state)}`);
    return state.counts;
  });

  await check('MCP server definition provider (VS Code 1.101+): not offered unless tenure.mcp.enabled', async () => {
    const [major, minor] = vscode.version.split('.').map(Number);
    if (major < 1 || (major === 1 && minor < 101)) return { skip: `VS Code ${vscode.version} has no stable MCP server provider API (1.101+); what the provider offers is unit-tested (test/unit/vscode.mcp.test.ts)` };
    assert(vscode.workspace.getConfiguration('tenure').get('mcp.enabled') === false, 'tenure.mcp.enabled is on by default: an agent would see every tool twice');
    return { offeredByDefault: false };
  });

  fs.rmSync(dir, { recursive: true, force: true });
  // Leave the editor on the symbol for the UI steps that follow (CodeLens, hover, the palette commands).
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  const doc = await vscode.workspace.openTextDocument(file);
  const editor = await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One });
  const col = doc.lineAt(spec.symbolLine - 1).text.indexOf('retry(') + 2;
  editor.selection = new vscode.Selection(spec.symbolLine - 1, col, spec.symbolLine - 1, col);
  editor.revealRange(new vscode.Range(spec.symbolLine - 1, 0, spec.symbolLine - 1, 0), vscode.TextEditorRevealType.InCenter);
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
  let responsiveness;
  try {
    const api = await vscode.extensions.getExtension(TENURE_ID).activate();
    responsiveness = (await api.debug()).responsiveness;
  } catch (e) {
    responsiveness = { error: String(e) };
  }
  const out = { vscodeVersion: vscode.version, ms: Date.now() - t0, results, responsiveness };
  if (spec.out) {
    fs.writeFileSync(spec.out + '.tmp', JSON.stringify(out, null, 2));
    fs.renameSync(spec.out + '.tmp', spec.out);
  }
  return out;
}

/** After the UI steps: what Tenure measured (responsiveness) and what the panels and views show now. */
async function writeReport(file, extra = {}) {
  const api = await vscode.extensions.getExtension(TENURE_ID).activate();
  const d = { ...(await api.debug()), ...extra };
  fs.writeFileSync(file + '.tmp', JSON.stringify(d, null, 2));
  fs.renameSync(file + '.tmp', file);
  return d;
}

module.exports = { runChecks, runAndWrite, writeReport };

