import type * as vscode from 'vscode';
import { Ctx, type TenureApi } from './ctx.js';

let ctx: Ctx | undefined;

/**
 * Activation is cheap: it builds the context and returns. Opening the
 * database and indexing run afterwards (the parsing in worker threads), so the
 * extension host is never held up.
 */
export function activate(extension: vscode.ExtensionContext): TenureApi {
  ctx = new Ctx(extension);
  extension.subscriptions.push({ dispose: () => void ctx?.dispose() });
  void ctx.start();
  return ctx;
}

export async function deactivate(): Promise<void> {
  const c = ctx;
  ctx = undefined;
  await c?.dispose();
}
