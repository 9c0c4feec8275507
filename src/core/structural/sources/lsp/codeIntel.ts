import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CodeIntel, CodeLocation, IncomingCall, Loc, ReadyHint } from '../../enrichment/types.js';
import { LspClient, type LspClientOptions } from './client.js';
import type { LanguageServerSpec } from './servers.js';

interface LspPosition {
  line: number;
  character: number;
}
interface LspRange {
  start: LspPosition;
  end: LspPosition;
}
interface LspLocation {
  uri: string;
  range: LspRange;
}
interface LspLocationLink {
  targetUri: string;
  targetSelectionRange: LspRange;
}
interface CallHierarchyItem {
  name: string;
  uri: string;
  selectionRange: LspRange;
}

/** Inventory positions are 1-based lines and 0-based UTF-16 columns; LSP's are 0-based lines, UTF-16 characters. */
function toLspPosition(at: Loc): LspPosition {
  return { line: at.line - 1, character: at.col };
}

/** The CodeIntel port over a headless language server started by Tenure. */
export class LspCodeIntel implements CodeIntel {
  readonly client: LspClient;
  readonly name: string;
  readonly languages: readonly string[];
  private readonly root: string;

  constructor(spec: LanguageServerSpec, options: LspClientOptions) {
    this.client = new LspClient(spec, options);
    this.name = spec.source;
    this.languages = spec.languages;
    this.root = path.resolve(options.root);
  }

  private abs(rel: string): string {
    return path.join(this.root, ...rel.split('/'));
  }

  private uri(rel: string): string {
    return pathToFileURL(this.abs(rel)).href;
  }

  toLocation(uri: string, range: LspRange): CodeLocation | undefined {
    let abs: string;
    try {
      abs = fileURLToPath(uri);
    } catch {
      return undefined;
    }
    const rel = path.relative(this.root, abs);
    const external = rel.startsWith('..') || path.isAbsolute(rel) || rel.split(path.sep).includes('node_modules');
    return { path: external ? abs : rel.split(path.sep).join('/'), line: range.start.line + 1, col: range.start.character, ...(external ? { external: true } : {}) };
  }

  private locations(result: LspLocation | LspLocation[] | LspLocationLink[] | null | undefined): CodeLocation[] {
    if (!result) return [];
    const list = Array.isArray(result) ? result : [result];
    const out: CodeLocation[] = [];
    for (const l of list) {
      const range = 'targetUri' in l ? l.targetSelectionRange : l.range;
      const uri = 'targetUri' in l ? l.targetUri : l.uri;
      // An empty range at the start of a file is the module itself (pyright, for `import m` / `m.x`),
      // not the first statement's declaration: it names no symbol of the file.
      if (range.start.line === 0 && range.start.character === 0 && range.end.line === 0 && range.end.character === 0) {
        const mod = this.toLocation(uri, range);
        if (mod) out.push({ path: `module ${mod.path}`, line: 0, col: 0, external: true });
        continue;
      }
      const loc = this.toLocation(uri, range);
      if (loc) out.push(loc);
    }
    return out;
  }

  async ready(signal: AbortSignal, hint: ReadyHint = {}): Promise<void> {
    const probes = hint.probes ?? [];
    let probeStarted = 0;
    await this.client.waitReady(hint.file ? this.abs(hint.file) : undefined, probes.length
      ? async () => {
          probeStarted ||= Date.now();
          for (const p of probes) {
            if ((await this.definition(p, signal)).length) return true;
          }
          // The probes are the inventory's guesses: after a while, trust the quiet server over them.
          return Date.now() - probeStarted > 20_000;
        }
      : undefined, signal);
  }

  private async positional<R>(method: string, at: Loc, signal: AbortSignal, extra: Record<string, unknown> = {}): Promise<R | null> {
    await this.client.openDocument(this.abs(at.path));
    return this.client.request<R | null>(method, { textDocument: { uri: this.uri(at.path) }, position: toLspPosition(at), ...extra }, signal);
  }

  async definition(at: Loc, signal: AbortSignal): Promise<readonly CodeLocation[]> {
    return this.locations(await this.positional('textDocument/definition', at, signal));
  }

  async references(at: Loc, signal: AbortSignal): Promise<readonly CodeLocation[]> {
    return this.locations(await this.positional('textDocument/references', at, signal, { context: { includeDeclaration: false } }));
  }

  async highlights(at: Loc, signal: AbortSignal): Promise<readonly { at: Loc; role: 'read' | 'write' | 'text' }[]> {
    if (!this.client.spec.highlightRoles) return [];
    await this.client.ensureStarted(signal);
    if (!this.client.capabilities?.documentHighlightProvider) return [];
    const list = await this.positional<{ range: LspRange; kind?: number }[]>('textDocument/documentHighlight', at, signal);
    // DocumentHighlightKind: 1 text, 2 read, 3 write.
    return (list ?? []).map((h) => ({ at: { path: at.path, line: h.range.start.line + 1, col: h.range.start.character }, role: h.kind === 3 ? 'write' : h.kind === 2 ? 'read' : 'text' }));
  }

  async implementation(at: Loc, signal: AbortSignal): Promise<readonly CodeLocation[]> {
    // pyright has no implementation provider: overrides then follow from resolved inheritance (ResolutionStore.deriveOverrides).
    await this.client.ensureStarted(signal);
    if (!this.client.capabilities?.implementationProvider) return [];
    return this.locations(await this.positional('textDocument/implementation', at, signal));
  }

  async incomingCalls(at: Loc, signal: AbortSignal): Promise<readonly IncomingCall[]> {
    const items = await this.positional<CallHierarchyItem[]>('textDocument/prepareCallHierarchy', at, signal);
    const out: IncomingCall[] = [];
    for (const item of items ?? []) {
      const calls = await this.client.request<{ from: CallHierarchyItem; fromRanges: LspRange[] }[] | null>('callHierarchy/incomingCalls', { item }, signal);
      for (const c of calls ?? []) {
        const from = this.toLocation(c.from.uri, c.from.selectionRange);
        if (!from) continue;
        out.push({ from: { name: c.from.name, at: from }, sites: c.fromRanges.map((r) => this.toLocation(c.from.uri, r)).filter((l): l is CodeLocation => !!l) });
      }
    }
    return out;
  }

  supports(request: 'implementation' | 'references' | 'callHierarchy'): boolean {
    const caps = this.client.capabilities;
    if (!caps) return true;
    if (request === 'implementation') return !!caps.implementationProvider;
    if (request === 'references') return !!caps.referencesProvider;
    return !!caps.callHierarchyProvider;
  }

  async changed(paths: readonly string[]): Promise<void> {
    if (!paths.length || this.client.status.state !== 'running') return;
    for (const p of paths) await this.client.closeDocument(this.abs(p));
    await this.client.notify('workspace/didChangeWatchedFiles', { changes: paths.map((p) => ({ uri: this.uri(p), type: 2 })) });
  }

  async release(paths: readonly string[]): Promise<void> {
    for (const p of paths) await this.client.closeDocument(this.abs(p));
  }

  dispose(): Promise<void> {
    return this.client.dispose();
  }
}

