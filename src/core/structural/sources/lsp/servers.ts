import * as fs from 'node:fs';
import * as path from 'node:path';
import { nodeExecutable, onCleanPath, ownPackageFile } from '../../enrichment/toolProcess.js';

/*
 * Which language server answers for which inventory languages, and how to
 * start it. TypeScript/JavaScript and Python servers ship as npm
 * dependencies (typescript-language-server with the `typescript` package,
 * pyright); gopls, jdtls, rust-analyzer and clangd are used when found on
 * PATH, and any server can be given as a command (settings, --server).
 *
 * Every program comes from Tenure's own install or from PATH outside the
 * workspace, never from the repository under index: typescript-language-server
 * is given Tenure's tsserver (it would otherwise prefer the workspace's
 * node_modules/typescript), pyright is given an interpreter found outside the
 * workspace (it runs it to learn the search paths). `useWorkspaceTypescript`
 * is the user's opt-in to the project's own TypeScript; it is never read from
 * the repository.
 */

export interface ServerCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: Record<string, string>;
}

export interface LanguageServerSpec {
  /** `typescript`, `python`, `go`, … */
  readonly id: string;
  readonly displayName: string;
  /** Edge provenance: `lsp:typescript`. */
  readonly source: string;
  /** Inventory language ids it answers for. */
  readonly languages: readonly string[];
  /** How to start it for a workspace; undefined when it is not installed. */
  command(root: string): ServerCommand | undefined;
  languageId(abs: string): string;
  initializationOptions(memoryMb: number): unknown;
  /** Answer to workspace/configuration for a section. */
  configuration(section: string | undefined): unknown;
  /** Resident-memory cap default (MiB). */
  readonly memoryMb?: number;
  /** What to do when it is missing. */
  readonly hint: string;
  /**
   * Whether its document highlights' read/write kinds mean what a data edge
   * means (tsserver: the name is assigned). pyright marks `with x:`, `x[k] = v`
   * and `del x[k]` as writes of x, so its kinds are not used.
   */
  readonly highlightRoles?: boolean;
}

export interface ServerOptions {
  /** Let typescript-language-server run the workspace's own node_modules/typescript (the user's opt-in; default: Tenure's). */
  readonly useWorkspaceTypescript?: boolean;
}

const TS_LANGUAGE_IDS: Record<string, string> = { '.ts': 'typescript', '.mts': 'typescript', '.cts': 'typescript', '.tsx': 'typescriptreact', '.jsx': 'javascriptreact' };

function typescriptServer(memoryMb = 3072, options: ServerOptions = {}): LanguageServerSpec {
  return {
    id: 'typescript',
    displayName: 'typescript-language-server',
    source: 'lsp:typescript',
    languages: ['typescript', 'tsx', 'javascript'],
    memoryMb: memoryMb + 512,
    highlightRoles: true,
    hint: 'It ships with Tenure (npm dependency typescript-language-server with typescript); reinstall with `npm ci`.',
    command() {
      const cli = ownPackageFile('typescript-language-server/lib/cli.mjs');
      return cli ? { command: nodeExecutable(), args: [cli, '--stdio'] } : undefined;
    },
    languageId: (abs) => TS_LANGUAGE_IDS[path.extname(abs)] ?? 'javascript',
    initializationOptions(mem) {
      const tsserver = ownPackageFile('typescript/lib/tsserver.js');
      return {
        // `path` outranks the workspace's node_modules/typescript in typescript-language-server; `fallbackPath` does not.
        tsserver: { ...(tsserver ? (options.useWorkspaceTypescript ? { fallbackPath: tsserver } : { path: tsserver }) : {}), useSyntaxServer: 'never' },
        maxTsServerMemory: Math.max(512, mem - 512),
        disableAutomaticTypingAcquisition: true,
        preferences: { includeCompletionsForModuleExports: false },
      };
    },
    configuration: () => null,
  };
}

function pythonServer(memoryMb = 3072): LanguageServerSpec {
  let interpreter: string | undefined;
  const analysis = { diagnosticMode: 'openFilesOnly', typeCheckingMode: 'off', autoSearchPaths: true, useLibraryCodeForTypes: true };
  return {
    id: 'python',
    displayName: 'pyright',
    source: 'lsp:python',
    languages: ['python'],
    memoryMb,
    hint: 'It ships with Tenure (npm dependency pyright); reinstall with `npm ci`.',
    command(root) {
      const cli = ownPackageFile('pyright/langserver.index.js');
      // pyright runs an interpreter to learn the search paths: one found outside the workspace, never a venv checked into it.
      interpreter = onCleanPath('python3', root) ?? onCleanPath('python', root);
      return cli ? { command: nodeExecutable(), args: [`--max-old-space-size=${memoryMb}`, cli, '--stdio'] } : undefined;
    },
    languageId: () => 'python',
    initializationOptions: () => ({}),
    configuration(section) {
      // Resolution only: no diagnostics beyond open files, no type-checking rules.
      const python = { ...(interpreter ? { pythonPath: interpreter } : {}), analysis };
      if (section === 'python.analysis') return analysis;
      if (section === 'python') return python;
      if (section === undefined) return { python };
      return null;
    },
  };
}

/** A server given as a command line (`gopls`, `jdtls -data …`, `rust-analyzer`), for the languages named. */
export function commandServer(id: string, languages: readonly string[], commandLine: readonly string[], languageId?: string): LanguageServerSpec {
  const [command, ...args] = commandLine;
  return {
    id,
    displayName: path.basename(command ?? id),
    source: `lsp:${id}`,
    languages,
    hint: `Install ${command ?? id} or configure its command (tenure enrich --server ${id}=<command>).`,
    command(root) {
      if (!command) return undefined;
      const exe = path.isAbsolute(command) ? (fs.existsSync(command) ? command : undefined) : onCleanPath(command, root);
      return exe ? { command: exe, args } : undefined;
    },
    languageId: () => languageId ?? languages[0] ?? id,
    initializationOptions: () => ({}),
    configuration: () => null,
  };
}

/** Servers Tenure knows how to find on PATH, by language. */
const PATH_SERVERS: readonly { id: string; languages: string[]; command: string[]; languageId: string }[] = [
  { id: 'go', languages: ['go'], command: ['gopls'], languageId: 'go' },
  { id: 'java', languages: ['java'], command: ['jdtls'], languageId: 'java' },
];

/**
 * The servers for a workspace: the bundled ones, those found on PATH, and the
 * configured commands (`{ go: ['gopls', 'serve'] }`), which override.
 */
export function defaultServers(configured: Readonly<Record<string, readonly string[]>> = {}, memoryMb?: number, options: ServerOptions & { readonly root?: string } = {}): LanguageServerSpec[] {
  const out: LanguageServerSpec[] = [];
  const byId = new Map<string, LanguageServerSpec>();
  byId.set('typescript', typescriptServer(memoryMb, options));
  byId.set('python', pythonServer(memoryMb));
  for (const s of PATH_SERVERS) if (onCleanPath(s.command[0]!, options.root ?? process.cwd())) byId.set(s.id, commandServer(s.id, s.languages, s.command, s.languageId));
  for (const [id, cmd] of Object.entries(configured)) {
    const known = PATH_SERVERS.find((s) => s.id === id);
    const languages = id === 'typescript' ? ['typescript', 'tsx', 'javascript'] : (known?.languages ?? [id]);
    byId.set(id, commandServer(id, languages, cmd, known?.languageId));
  }
  for (const s of byId.values()) out.push(s);
  return out;
}
