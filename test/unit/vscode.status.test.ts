import * as assert from 'node:assert/strict';
import { serverCandidates, type ExtensionManifest } from '../../src/vscode/editorServers.js';
import { describeEnrichment, languageShares, sharesText, sharesTooltip, unreadTooltip } from '../../src/vscode/statusText.js';

/*
 * What the status bar says while and after the language servers confirm
 * edges, and whether a language has a server at all: the pure parts behind
 * src/vscode/statusBar.ts and src/vscode/codeIntelBridge.ts.
 */

describe('status bar: % resolved per language', () => {
  const byLanguage = {
    typescript: { resolved: 70, inferred: 20, ambiguous: 5 },
    tsx: { resolved: 10, inferred: 5 },
    python: { inferred: 40, dynamic: 2 },
    java: { observed: 3, resolved: 1 },
  };

  it('tsx counts as TypeScript, observed counts as confirmed, largest language first', () => {
    const shares = languageShares(byLanguage);
    assert.deepEqual(
      shares.map((s) => [s.name, s.edges, s.confirmed, s.percent]),
      [
        ['TypeScript', 110, 80, 73],
        ['Python', 42, 0, 0],
        ['Java', 4, 4, 100],
      ],
    );
    assert.equal(sharesText(shares), 'resolved TS 73% · Py 0% · Java 100%');
  });

  it('a language whose server is missing says so, and why, in the tooltip; one that finished says it is up to date', () => {
    const shares = languageShares(byLanguage, {
      'vscode:typescript': { state: 'complete', languages: ['typescript', 'tsx', 'javascript'] },
      'vscode:python': { state: 'unavailable', languages: ['python'], message: 'no Python language server in this editor' },
    });
    const lines = sharesTooltip(shares);
    assert.equal(lines[0], 'TypeScript: 73% of 110 edges confirmed by a type checker or a run (vscode:typescript: up to date).');
    assert.equal(lines[1], 'Python: 0% of 42 edges confirmed by a type checker or a run — no Python language server in this editor');
    assert.match(lines[2]!, /^Java: 100% of 4 edges .*no language server in this editor speaks for it yet/);
  });

  it('languages without edges are left out; more than three are cut in the text, not in the tooltip', () => {
    const shares = languageShares({ ...byLanguage, go: { inferred: 1 }, yaml: {} });
    assert.equal(shares.length, 4);
    assert.equal(sharesText(shares), 'resolved TS 73% · Py 0% · Java 100% …');
    assert.equal(sharesTooltip(shares).length, 4);
    assert.equal(sharesText([]), '');
  });
});

describe('status bar: enrichment progress', () => {
  it('counts files against the files queued, not against every unit (no "0/1427 files" for a 139-file workspace)', () => {
    const d = describeEnrichment({ source: 'vscode:typescript', done: 0, total: 1427, files: { done: 0, total: 139 } });
    assert.equal(d.text, 'TypeScript 0/139 files');
    assert.equal(d.label, 'TypeScript: 0 of 139 files');
  });

  it('once the files are done, the symbol questions are counted as symbols', () => {
    const d = describeEnrichment({ source: 'vscode:typescript', done: 150, total: 1427, files: { done: 139, total: 139 } });
    assert.equal(d.text, 'TypeScript 11/1,288 symbols');
    assert.equal(describeEnrichment({ source: 'vscode:python', done: 1, total: 1, files: { done: 1, total: 1 } }).text, 'Python');
  });
});

describe('a language server is detected from the installed extensions before any request', () => {
  // The shapes of real manifests: VS Code's built-in TypeScript features, its grammar-only Python, git, Pylance, Tenure itself.
  const builtins: ExtensionManifest[] = [
    { id: 'vscode.typescript-language-features', packageJSON: { main: './dist/extension', activationEvents: ['onLanguage:javascript', 'onLanguage:typescript', 'onLanguage:typescriptreact'] } },
    { id: 'vscode.python', packageJSON: { contributes: { languages: [{ id: 'python' }] } } },
    { id: 'vscode.git', packageJSON: { main: './out/main', activationEvents: ['*'] } },
    { id: 'tenure.tenure', packageJSON: { main: './dist/extension.js', activationEvents: ['onLanguage:python', 'onStartupFinished'] } },
  ];
  const py = ['python'];
  const ts = ['typescript', 'typescriptreact', 'javascript', 'javascriptreact'];

  it('the built-in TypeScript features count; a grammar, an extension that activates on everything, and Tenure itself do not', () => {
    assert.deepEqual(serverCandidates(ts, builtins, 'Tenure.tenure'), ['vscode.typescript-language-features']);
    assert.deepEqual(serverCandidates(py, builtins, 'Tenure.tenure'), [], 'no Python server: the bridge gives up at once');
  });

  it('an installed Python extension counts, by activation event or by contributing the language with code to run', () => {
    const pylance = { id: 'ms-python.vscode-pylance', packageJSON: { main: './dist/extension.js', activationEvents: ['onLanguage:python'] } };
    const pyright = { id: 'ms-pyright.pyright', packageJSON: { main: './client/out/extension', contributes: { languages: [{ id: 'python' }] } } };
    assert.deepEqual(serverCandidates(py, [...builtins, pylance], 'tenure.tenure'), ['ms-python.vscode-pylance']);
    assert.deepEqual(serverCandidates(py, [...builtins, pyright], 'tenure.tenure'), ['ms-pyright.pyright']);
  });
});

describe('status bar: files in languages Tenure does not read', () => {
  it('the tooltip names them, most files first, and says nothing when there are none', () => {
    const line = unreadTooltip([
      { language: 'Rust', files: 1204, extensions: ['.rs'] },
      { language: 'C', files: 12, extensions: ['.c', '.h'] },
    ]);
    assert.equal(line, "\nNot read: 1,204 Rust files (.rs) and 12 C files (.c, .h). Tenure's structural memory reads TypeScript, JavaScript, Python, Java and Go; what these files define is in no answer.");
    assert.equal(unreadTooltip([]), '');
  });
});
