import * as path from 'node:path';
import * as vscode from 'vscode';
import { CodeIntelResolver } from '../core/structural/enrichment/codeIntelResolver.js';
import {
  ResolverUnavailableError,
  type CodeIntel,
  type CodeLocation,
  type IncomingCall,
  type Loc,
  type ReadyHint,
} from '../core/structural/enrichment/types.js';
import { serverCandidates } from './editorServers.js';

/*
 * The CodeIntel port over the language servers VS Code is already running
 * (the built-in TypeScript server, Pylance/Pyright, gopls, …), through
 * vscode.execute*Provider commands. Nothing is started: Tenure asks the
 * editor's own servers, so their answers match what the user sees.
 *
 * Wiring (in the extension's context object), roughly:
 *
 *   const gate = new UserIdleGate();                       // yields to typing
 *   const resolvers = editorResolvers(root);               // ts + python bridges
 *   const pass = new EnrichmentPass(ws.db, resolvers, { root, signal, idle: () => gate.idle(), pauseMs: 25, onProgress });
 *   await pass.prioritize({ files: openEditorPaths, symbols: [lastQueriedSid] });
 *   void pass.run();   // after each index; progress is stored, so a reload resumes
 */

const REQUEST_TIMEOUT_MS = 10_000;

function race<T>(p: Thenable<T>, signal: AbortSignal, what: string, timeoutMs = REQUEST_TIMEOUT_MS): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(new Error('cancelled'));
    const timer = setTimeout(() => reject(new Error(`${what} did not answer within ${timeoutMs} ms`)), timeoutMs);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error('cancelled'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    Promise.resolve(p).then(
      (v) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/** One language family the editor may have a server for. */
export interface EditorLanguage {
  /** `typescript`, `python`, …: becomes the edges' source `vscode:<id>`. */
  readonly id: string;
  /** How a person names it: "TypeScript", "Python". */
  readonly display: string;
  /** The inventory's language ids it answers for. */
  readonly languages: readonly string[];
  /** VS Code's language ids for the same files (what extensions activate on). */
  readonly vscodeLanguages: readonly string[];
  /** An extension that provides one, for the message when none is installed. */
  readonly suggestion: string;
}

export class CodeIntelBridge implements CodeIntel {
  readonly name: string;
  readonly languages: readonly string[];

  constructor(
    private readonly root: string,
    private readonly language: EditorLanguage,
    /** Tenure's own extension id: it provides no definitions, whatever it activates on. */
    private readonly selfId: string,
  ) {
    this.name = `vscode:${language.id}`;
    this.languages = language.languages;
  }

  private uri(rel: string): vscode.Uri {
    return vscode.Uri.file(path.join(this.root, ...rel.split('/')));
  }

  private toLocation(uri: vscode.Uri, range: vscode.Range): CodeLocation {
    const rel = path.relative(this.root, uri.fsPath);
    const external = uri.scheme !== 'file' || rel.startsWith('..') || path.isAbsolute(rel) || rel.split(path.sep).includes('node_modules');
    return { path: external ? uri.toString() : rel.split(path.sep).join('/'), line: range.start.line + 1, col: range.start.character, ...(external ? { external: true } : {}) };
  }

  private locations(result: readonly (vscode.Location | vscode.LocationLink)[] | undefined): CodeLocation[] {
    return (result ?? []).map((l) => ('targetUri' in l ? this.toLocation(l.targetUri, l.targetSelectionRange ?? l.targetRange) : this.toLocation(l.uri, l.range)));
  }

  private position(at: Loc): vscode.Position {
    return new vscode.Position(at.line - 1, at.col);
  }

  /**
   * The editor's server loads a project when one of its files is opened;
   * until then it answers partially. Open the hinted file, then ask the
   * probes until one has a definition (the inventory linked them across files).
   */
  async ready(signal: AbortSignal, hint: ReadyHint = {}): Promise<void> {
    // Decided from the manifests, before any request: a missing server costs nothing, not a minute of waiting.
    if (!serverCandidates(this.language.vscodeLanguages, vscode.extensions.all, this.selfId).length) {
      throw new ResolverUnavailableError(
        this.name,
        `no ${this.language.display} language server in this editor (no installed extension provides ${this.language.display}; ${this.language.suggestion} does); ${this.language.display} edges keep their inventory tier.`,
      );
    }
    if (hint.file) await race(vscode.workspace.openTextDocument(this.uri(hint.file)), signal, 'openTextDocument', 30_000);
    const probes = hint.probes ?? [];
    if (!probes.length) return;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      for (const p of probes) {
        const defs = await this.definition(p, signal).catch(() => []);
        if (defs.length) return;
      }
      await new Promise((r) => setTimeout(r, 1000));
      if (signal.aborted) throw new Error('cancelled');
    }
    throw new ResolverUnavailableError(this.name, `VS Code's ${this.language.display} language server did not load the project within 60 s (is its extension enabled?); edges keep their inventory tier.`);
  }

  async definition(at: Loc, signal: AbortSignal): Promise<readonly CodeLocation[]> {
    return this.locations(await race(vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[]>('vscode.executeDefinitionProvider', this.uri(at.path), this.position(at)), signal, 'definition'));
  }

  async references(at: Loc, signal: AbortSignal): Promise<readonly CodeLocation[]> {
    const refs = await race(vscode.commands.executeCommand<vscode.Location[]>('vscode.executeReferenceProvider', this.uri(at.path), this.position(at)), signal, 'references', 30_000);
    // Reference providers include the declaration itself.
    return this.locations(refs).filter((l) => !(l.path === at.path && l.line === at.line && l.col === at.col));
  }

  async implementation(at: Loc, signal: AbortSignal): Promise<readonly CodeLocation[]> {
    return this.locations(await race(vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[]>('vscode.executeImplementationProvider', this.uri(at.path), this.position(at)), signal, 'implementation', 30_000));
  }

  async incomingCalls(at: Loc, signal: AbortSignal): Promise<readonly IncomingCall[]> {
    const items = await race(vscode.commands.executeCommand<vscode.CallHierarchyItem[]>('vscode.prepareCallHierarchy', this.uri(at.path), this.position(at)), signal, 'prepareCallHierarchy');
    const out: IncomingCall[] = [];
    for (const item of items ?? []) {
      const calls = await race(vscode.commands.executeCommand<vscode.CallHierarchyIncomingCall[]>('vscode.provideIncomingCalls', item), signal, 'incomingCalls', 30_000);
      for (const c of calls ?? []) {
        out.push({ from: { name: c.from.name, at: this.toLocation(c.from.uri, c.from.selectionRange) }, sites: c.fromRanges.map((r) => this.toLocation(c.from.uri, r)) });
      }
    }
    return out;
  }

  async dispose(): Promise<void> {
    // The servers belong to VS Code.
  }
}

/** The languages VS Code ships a server for (TypeScript) or commonly has one for (Python). */
export const EDITOR_LANGUAGES: readonly EditorLanguage[] = [
  {
    id: 'typescript',
    display: 'TypeScript',
    languages: ['typescript', 'tsx', 'javascript'],
    vscodeLanguages: ['typescript', 'typescriptreact', 'javascript', 'javascriptreact'],
    suggestion: "VS Code's built-in TypeScript and JavaScript Language Features",
  },
  { id: 'python', display: 'Python', languages: ['python'], vscodeLanguages: ['python'], suggestion: 'the Python extension (Pylance or Pyright)' },
];

/** Bridges for the languages VS Code ships or commonly has servers for. */
export function editorResolvers(root: string, selfId: string): CodeIntelResolver[] {
  // One request at a time: the editor's server also serves the user.
  return EDITOR_LANGUAGES.map((l) => new CodeIntelResolver(new CodeIntelBridge(root, l, selfId), { concurrency: 1 }));
}

/**
 * Yields to the user: `idle()` resolves once no document has changed for
 * `quietMs`, so enrichment never competes with typing.
 */
export class UserIdleGate implements vscode.Disposable {
  private last = 0;
  private readonly sub: vscode.Disposable;

  constructor(private readonly quietMs = 1500) {
    this.sub = vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.document.uri.scheme === 'file') this.last = Date.now();
    });
  }

  async idle(): Promise<void> {
    for (;;) {
      const wait = this.last + this.quietMs - Date.now();
      if (wait <= 0) return;
      await new Promise((r) => setTimeout(r, wait));
    }
  }

  dispose(): void {
    this.sub.dispose();
  }
}
