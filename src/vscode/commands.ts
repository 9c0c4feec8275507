import * as vscode from 'vscode';
import { TOOLS } from '../core/tools/catalog.js';
import { TenureError, errorMessage } from '../shared/errors.js';
import type { Ctx } from './ctx.js';
import { runTool } from './lmTools.js';

/** The symbol under the cursor or the selection, as a starting guess for a prompt. */
function symbolAtCursor(): string | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor) return undefined;
  const sel = editor.selection;
  if (!sel.isEmpty && sel.isSingleLine) return editor.document.getText(sel).trim() || undefined;
  const range = editor.document.getWordRangeAtPosition(sel.active, /[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*/);
  return range ? editor.document.getText(range) : undefined;
}

async function whatBreaks(ctx: Ctx, arg?: unknown): Promise<void> {
  const spec = TOOLS.find((t) => t.name === 'what_breaks');
  if (!spec) {
    void vscode.window.showErrorMessage('Tenure: this build has no what_breaks tool.');
    return;
  }
  const symbol =
    typeof arg === 'string' && arg
      ? arg
      : await vscode.window.showInputBox({
          title: 'Tenure: What Breaks?',
          prompt: 'A symbol: a name (retry), a qualified name (SettlementService.retry) or a symbol id',
          value: symbolAtCursor(),
          ignoreFocusOut: true,
        });
  if (!symbol) return;
  try {
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: `Tenure: what breaks if ${symbol} changes`, cancellable: true },
      (_p, token) => runTool(ctx, spec, { symbol }, token),
    );
    const doc = await vscode.workspace.openTextDocument({
      language: 'markdown',
      content:
        `# What breaks if \`${symbol}\` changes\n\n${result.text}\n\n` +
        `<details><summary>JSON</summary>\n\n\`\`\`json\n${JSON.stringify(result.data, null, 2)}\n\`\`\`\n\n</details>\n`,
    });
    await vscode.window.showTextDocument(doc, { preview: true });
  } catch (e) {
    if (TenureError.is(e, 'cancelled')) return;
    ctx.log.warn(`what_breaks ${symbol}: ${errorMessage(e)}`);
    void vscode.window.showWarningMessage(`Tenure: ${errorMessage(e)}`);
  }
}

export function registerCommands(ctx: Ctx): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('tenure.reindex', () => ctx.reindex()),
    vscode.commands.registerCommand('tenure.whatBreaks', (arg?: unknown) => whatBreaks(ctx, arg)),
    vscode.commands.registerCommand('tenure.showOutput', () => ctx.log.show()),
  ];
}
