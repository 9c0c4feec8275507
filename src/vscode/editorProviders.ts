import * as path from 'node:path';
import * as vscode from 'vscode';
import { LANGUAGES } from '../core/structural/inventory/languages.js';
import type { Workspace } from '../core/store/workspace.js';
import { errorMessage } from '../shared/errors.js';
import { LENS_KINDS, fileMemory, memoryLine, memoryTooltip, symbolAt, type SymbolMemory } from './memoryQueries.js';

/*
 * CodeLens and hover: one compact line per function, method and class —
 * "≥ 12 callers · 1 incident · 2 failed attempts" — read from SQLite only
 * (memoryQueries.ts: a handful of aggregate queries per file), cached per
 * file until the index or a memory changes, never waiting for the first index
 * or a language server. Both can be turned off in settings.
 */

export interface EditorHost {
  readonly log: vscode.LogOutputChannel;
  /** The workspace when its first index has settled; undefined before (providers answer nothing rather than wait). */
  workspaceIfReady(): Workspace | undefined;
  readonly onDidChangeMemory: vscode.Event<void>;
  codeLensEnabled(): boolean;
  hoverEnabled(): boolean;
  measure<T>(what: string, fn: () => Promise<T>): Promise<T>;
}

export const DOCUMENT_SELECTOR: vscode.DocumentSelector = LANGUAGES.flatMap((l) => l.extensions).map((ext) => ({ scheme: 'file', pattern: `**/*${ext}` }));

function relPath(ws: Workspace, uri: vscode.Uri): string | undefined {
  if (uri.scheme !== 'file') return undefined;
  const rel = path.relative(ws.root, uri.fsPath);
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  return rel.split(path.sep).join('/');
}

/** The line a stored symbol is on now: the stored line if its name is there, else the nearest line that names it (unsaved edits move code). */
export function currentLine(doc: vscode.TextDocument, m: Pick<SymbolMemory, 'name' | 'line'>): number | undefined {
  const re = new RegExp(`\\b${m.name.replace(/[$]/g, '\\$')}\\b`);
  const at = m.line - 1;
  if (at < doc.lineCount && re.test(doc.lineAt(at).text)) return at;
  for (let d = 1; d <= 40; d++) {
    for (const l of [at - d, at + d]) if (l >= 0 && l < doc.lineCount && re.test(doc.lineAt(l).text)) return l;
  }
  return undefined;
}

export class MemoryLens implements vscode.CodeLensProvider, vscode.HoverProvider, vscode.Disposable {
  private cache = new Map<string, Promise<SymbolMemory[]>>();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  private timer: NodeJS.Timeout | undefined;
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly host: EditorHost) {
    this.subs.push(
      host.onDidChangeMemory(() => {
        this.cache.clear();
        // Coalesce bursts (a batch of saves, an import) into one repaint.
        if (this.timer) clearTimeout(this.timer);
        this.timer = setTimeout(() => this.changed.fire(), 250);
      }),
    );
  }

  private memory(ws: Workspace, rel: string): Promise<SymbolMemory[]> {
    let p = this.cache.get(rel);
    if (!p) {
      p = this.host.measure(`lens ${rel}`, () => fileMemory(ws.db, rel)).catch((e: unknown) => {
        this.host.log.debug(`memory for ${rel}: ${errorMessage(e)}`);
        this.cache.delete(rel);
        return [];
      });
      this.cache.set(rel, p);
      if (this.cache.size > 200) this.cache.delete(this.cache.keys().next().value!);
    }
    return p;
  }

  async provideCodeLenses(doc: vscode.TextDocument, token: vscode.CancellationToken): Promise<vscode.CodeLens[]> {
    if (!this.host.codeLensEnabled()) return [];
    const ws = this.host.workspaceIfReady();
    const rel = ws && relPath(ws, doc.uri);
    if (!ws || !rel) return [];
    const mems = await this.memory(ws, rel);
    if (token.isCancellationRequested) return [];
    const lenses: vscode.CodeLens[] = [];
    for (const m of mems) {
      if (!LENS_KINDS.has(m.kind)) continue;
      const line = currentLine(doc, m);
      if (line === undefined) continue;
      const range = new vscode.Range(line, 0, line, 0);
      lenses.push(
        new vscode.CodeLens(range, {
          title: `$(type-hierarchy) ${memoryLine(m)}`,
          tooltip: `${memoryTooltip(m)}\nClick for the impact panel.`,
          command: 'tenure.showImpact',
          arguments: [m.sid],
        }),
      );
      if (m.incidents || m.decisions || m.attempts) {
        lenses.push(new vscode.CodeLens(range, { title: 'Why is this?', tooltip: 'Reasons, past attempts, rules and impact, from all four memories', command: 'tenure.whyIsThis', arguments: [m.sid] }));
      }
    }
    return lenses;
  }

  async provideHover(doc: vscode.TextDocument, pos: vscode.Position, token: vscode.CancellationToken): Promise<vscode.Hover | undefined> {
    if (!this.host.hoverEnabled()) return undefined;
    const ws = this.host.workspaceIfReady();
    const rel = ws && relPath(ws, doc.uri);
    if (!ws || !rel) return undefined;
    const range = doc.getWordRangeAtPosition(pos, /[A-Za-z_$][\w$]*/);
    if (!range) return undefined;
    const word = doc.getText(range);
    const sym = await this.host.measure('hover', () => symbolAt(ws.db, rel, pos.line + 1, range.start.character, word)).catch(() => undefined);
    if (!sym || sym.name !== word || token.isCancellationRequested) return undefined;
    const mem = (await this.memory(ws, sym.path)).find((m) => m.sid === sym.sid);
    if (!mem || token.isCancellationRequested) return undefined;
    const args = (s: string) => encodeURIComponent(JSON.stringify([s]));
    const md = new vscode.MarkdownString(undefined, true);
    md.isTrusted = { enabledCommands: ['tenure.showImpact', 'tenure.whyIsThis'] };
    md.supportThemeIcons = true;
    md.appendMarkdown(`**Tenure** · \`${escapeMd(sym.qname)}\` · ${escapeMd(memoryLine(mem))}\n\n`);
    md.appendMarkdown(`[$(type-hierarchy) Impact](command:tenure.showImpact?${args(sym.sid)} "What breaks if it changes") · [$(question) Why is this?](command:tenure.whyIsThis?${args(sym.sid)} "Reasons, past attempts, rules")\n\n`);
    md.appendMarkdown(escapeMd(memoryTooltip(mem)).replace(/\n/g, '  \n'));
    return new vscode.Hover(md, range);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.changed.dispose();
    for (const s of this.subs.splice(0)) s.dispose();
  }
}

function escapeMd(s: string): string {
  return s.replace(/[\\`*_{}[\]<>#|]/g, (c) => `\\${c}`);
}
