import * as crypto from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { locationOf, resolveOneSymbol } from '../core/structural/lookup.js';
import type { SymbolRef } from '../core/model/symbolRef.js';
import { whatBreaks } from '../core/structural/impact/whatBreaks.js';
import type { Workspace } from '../core/store/workspace.js';
import { errorMessage } from '../shared/errors.js';
import { FromWebview, PanelStateSchema, type ToWebview } from '../webview/protocol.js';
import type { MemoryOptions } from '../core/episodic/options.js';
import { answerAbout } from '../core/compose/ask.js';
import { clockFromEnv } from '../core/episodic/clock.js';

/*
 * The two webview panels, "Why is this?" and the impact panel. Each is one
 * reusable panel (asking about another symbol replaces its content), built
 * with a strict Content-Security-Policy (a fresh nonce per page, no inline
 * code, no eval), `localResourceRoots` limited to the extension's own
 * dist/webview and media folders, and every message from the page validated
 * (src/webview/protocol.ts) before it is acted on. Their state (symbol,
 * depth, hidden tiers) is kept by the page and restored after a reload by a
 * serializer.
 */

export type PanelKind = 'impact' | 'why';
export const PANEL_VIEW_TYPES: Record<PanelKind, string> = { impact: 'tenure.impact', why: 'tenure.why' };
const TITLES: Record<PanelKind, string> = { impact: 'Impact', why: 'Why is this?' };

export interface PanelHost {
  readonly extensionUri: vscode.Uri;
  readonly log: vscode.LogOutputChannel;
  readonly restricted: boolean;
  workspaceForQuery(token: vscode.CancellationToken): Promise<Workspace>;
  memoryOptions(): MemoryOptions;
  /** Runs work without blocking the caller's UI: errors are logged. */
  measure<T>(what: string, fn: () => Promise<T>): Promise<T>;
  /** A symbol the user just looked at: its edges are confirmed by the language servers first. */
  prioritizeEnrichment(p: { symbols: readonly string[] }): void;
}

/** What the e2e test and `Tenure: Show Log` see of what a page rendered and whether its CSP held. */
export interface PanelReport {
  readonly kind: PanelKind;
  readonly symbol: string | undefined;
  readonly rendered: Record<string, number> | undefined;
  readonly cspViolations: readonly string[];
}

export function nonce(): string {
  return crypto.randomBytes(18).toString('base64').replace(/[^A-Za-z0-9]/g, '');
}

/** The page: one script (by nonce), the codicon font, Tenure's stylesheet; nothing inline, nothing remote. */
export function panelHtml(webview: vscode.Webview, extensionUri: vscode.Uri, kind: PanelKind): string {
  const n = nonce();
  const asset = (...p: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...p)).toString();
  const csp = [
    "default-src 'none'",
    `img-src ${webview.cspSource} data:`,
    `style-src ${webview.cspSource} 'nonce-${n}'`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${n}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" nonce="${n}" href="${asset('dist', 'webview', 'codicon.css')}" id="vscode-codicon-stylesheet">
<link rel="stylesheet" nonce="${n}" href="${asset('media', 'tenure.css')}">${
    // cytoscape injects this rule as an inline <style> unless an element with its id exists: give it one, under the nonce.
    kind === 'impact' ? `\n<style nonce="${n}" id="__________cytoscape_stylesheet">.__________cytoscape_container { position: relative; }</style>` : ''
  }
<title>Tenure: ${TITLES[kind]}</title>
</head>
<body class="tenure-${kind}">
<main id="root" data-view="${kind}" tabindex="-1"><p class="loading">Loading…</p></main>
<script nonce="${n}" src="${asset('dist', 'webview', `${kind}.js`)}"></script>
</body>
</html>`;
}

class Panel implements vscode.Disposable {
  private symbol: string | undefined;
  private depth = 2;
  private ready = false;
  private pending: ToWebview | undefined;
  private seq = 0;
  private readonly disposables: vscode.Disposable[] = [];
  rendered: Record<string, number> | undefined;
  readonly cspViolations: string[] = [];
  private renderWaiters: Array<() => void> = [];

  constructor(
    readonly kind: PanelKind,
    readonly panel: vscode.WebviewPanel,
    private readonly host: PanelHost,
    private readonly onDispose: () => void,
    private readonly openOther: (kind: PanelKind, symbol: string) => void,
  ) {
    panel.iconPath = vscode.Uri.joinPath(host.extensionUri, 'media', 'tenure.svg');
    panel.webview.options = { enableScripts: true, enableCommandUris: false, localResourceRoots: localRoots(host.extensionUri) };
    panel.webview.html = panelHtml(panel.webview, host.extensionUri, kind);
    this.disposables.push(
      panel.webview.onDidReceiveMessage((raw: unknown) => void this.onMessage(raw)),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  get currentSymbol(): string | undefined {
    return this.symbol;
  }

  whenRendered(): Promise<void> {
    return new Promise((r) => this.renderWaiters.push(r));
  }

  async show(symbol: string, depth?: number, reveal = true): Promise<void> {
    this.symbol = symbol;
    if (depth) this.depth = depth;
    if (reveal) this.panel.reveal(undefined, false);
    const seq = ++this.seq;
    this.rendered = undefined;
    this.post({ type: 'loading', symbol });
    const cts = new vscode.CancellationTokenSource();
    try {
      const message = await this.host.measure(`${this.kind} ${symbol}`, async (): Promise<ToWebview> => {
        const ws = await this.host.workspaceForQuery(cts.token);
        const target = await resolveOneSymbol(ws.db, symbol, { root: ws.root });
        this.panel.title = `${TITLES[this.kind]}: ${target.name}`;
        this.host.prioritizeEnrichment({ symbols: [target.sid] });
        if (this.kind === 'impact') {
          const result = await whatBreaks(ws.db, target, this.depth);
          return { type: 'impact', view: { result, restricted: this.host.restricted, generatedAt: Date.now() } };
        }
        // Asked at a line (the cursor inside a function, `path:line`): the comment there leads the knowledge part.
        const asked = locationOf(symbol);
        const a = await answerAbout(ws, target, { clock: clockFromEnv(), options: this.host.memoryOptions(), depth: this.depth, limit: 8, ...(asked ? { line: asked.line } : {}) });
        return { type: 'why', view: { target, restricted: this.host.restricted, structural: a.structural, knowledge: a.knowledge, episodic: a.episodic, procedural: a.procedural, generatedAt: Date.now() } };
      });
      if (seq === this.seq) this.post(message);
    } catch (e) {
      if (seq !== this.seq) return;
      this.host.log.warn(`${this.kind} panel for ${symbol}: ${errorMessage(e)}`);
      this.post({ type: 'error', message: errorMessage(e), symbol });
    } finally {
      cts.dispose();
    }
  }

  private post(message: ToWebview): void {
    if (!this.ready) {
      this.pending = message;
      return;
    }
    void this.panel.webview.postMessage(message);
  }

  private async onMessage(raw: unknown): Promise<void> {
    const parsed = FromWebview.safeParse(raw);
    if (!parsed.success) {
      this.host.log.warn(`Dropped an invalid message from the ${this.kind} panel: ${JSON.stringify(raw)?.slice(0, 200)}`);
      return;
    }
    const m = parsed.data;
    switch (m.type) {
      case 'ready':
        this.ready = true;
        if (this.pending) {
          void this.panel.webview.postMessage(this.pending);
          this.pending = undefined;
        }
        return;
      case 'open':
        return openSite(this.host, m.path, m.line, m.col);
      case 'openUrl':
        void vscode.env.openExternal(vscode.Uri.parse(m.url));
        return;
      case 'setDepth':
        if (this.symbol) await this.show(this.symbol, m.depth, false);
        return;
      case 'showImpact':
        this.openOther('impact', m.symbol);
        return;
      case 'showWhy':
        this.openOther('why', m.symbol);
        return;
      case 'runCommand':
        void vscode.commands.executeCommand(m.command);
        return;
      case 'cspViolation':
        this.cspViolations.push(`${m.directive}: ${m.blocked}`);
        this.host.log.error(`Content-Security-Policy violation in the ${this.kind} panel: ${m.directive} blocked ${m.blocked}`);
        return;
      case 'rendered':
        this.rendered = m.stats;
        for (const w of this.renderWaiters.splice(0)) w();
        return;
    }
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
    for (const w of this.renderWaiters.splice(0)) w();
    this.onDispose();
  }
}

function localRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(extensionUri, 'media')];
}

/** Opens a workspace-relative location; anything that resolves outside the workspace is refused. */
export async function openSite(host: Pick<PanelHost, 'log'>, rel: string, line: number, col = 0): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
  if (!folder) return;
  const abs = path.resolve(folder.uri.fsPath, rel);
  const within = path.relative(folder.uri.fsPath, abs);
  if (within.startsWith('..') || path.isAbsolute(within)) {
    host.log.warn(`Refused to open ${rel}: outside the workspace`);
    return;
  }
  try {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(abs));
    const pos = new vscode.Position(Math.max(0, line - 1), Math.max(0, col));
    await vscode.window.showTextDocument(doc, { selection: new vscode.Range(pos, pos), viewColumn: vscode.ViewColumn.One, preview: true });
  } catch (e) {
    void vscode.window.showWarningMessage(`Tenure: cannot open ${rel}: ${errorMessage(e)}`);
  }
}

/** Owns the two panels: creates, reuses, restores after reload, and reports what they rendered. */
export class Panels implements vscode.Disposable {
  private readonly open = new Map<PanelKind, Panel>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly host: PanelHost) {
    for (const kind of ['impact', 'why'] as const) {
      if (typeof vscode.window.registerWebviewPanelSerializer !== 'function') continue;
      this.disposables.push(
        vscode.window.registerWebviewPanelSerializer(PANEL_VIEW_TYPES[kind], {
          deserializeWebviewPanel: async (panel, state: unknown) => {
            const s = PanelStateSchema.safeParse(state ?? {});
            const p = this.adopt(kind, panel);
            if (s.success && s.data.symbol) await p.show(s.data.symbol, s.data.depth, false);
            else p.panel.dispose();
          },
        }),
      );
    }
  }

  private adopt(kind: PanelKind, panel: vscode.WebviewPanel): Panel {
    this.open.get(kind)?.panel.dispose();
    const p = new Panel(kind, panel, this.host, () => {
      if (this.open.get(kind) === p) this.open.delete(kind);
    }, (k, s) => void this.show(k, s));
    this.open.set(kind, p);
    return p;
  }

  async show(kind: PanelKind, symbol: string | SymbolRef, depth?: number): Promise<void> {
    const sym = typeof symbol === 'string' ? symbol : symbol.sid;
    let p = this.open.get(kind);
    if (!p) {
      // Beside the code, and in the same column as the other Tenure panel when one is open: the code stays visible.
      const other = [...this.open.values()].find((o) => o.kind !== kind)?.panel.viewColumn;
      const panel = vscode.window.createWebviewPanel(PANEL_VIEW_TYPES[kind], TITLES[kind], { viewColumn: other ?? vscode.ViewColumn.Beside, preserveFocus: false }, {
        enableScripts: true,
        enableFindWidget: true,
        localResourceRoots: localRoots(this.host.extensionUri),
      });
      p = this.adopt(kind, panel);
    }
    const rendered = p.whenRendered();
    const shown = p.show(sym, depth);
    await shown;
    // Resolve when the page has drawn it (or after a bound: a hidden panel may not render until shown).
    await Promise.race([rendered, new Promise((r) => setTimeout(r, 5000))]);
  }

  report(): PanelReport[] {
    return [...this.open.values()].map((p) => ({ kind: p.kind, symbol: p.currentSymbol, rendered: p.rendered, cspViolations: [...p.cspViolations] }));
  }

  /** Re-asks every open panel's question (after the index or a memory changed). */
  refresh(): void {
    for (const p of this.open.values()) if (p.currentSymbol && p.panel.visible) void p.show(p.currentSymbol, undefined, false);
  }

  dispose(): void {
    for (const p of this.open.values()) p.panel.dispose();
    this.open.clear();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

