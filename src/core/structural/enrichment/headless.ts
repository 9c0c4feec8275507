import { LspCodeIntel } from '../sources/lsp/codeIntel.js';
import { defaultServers, type LanguageServerSpec } from '../sources/lsp/servers.js';
import { indexerAvailable, scipIndexerResolver } from '../sources/scip/indexers.js';
import { TscResolver, tscAvailable } from '../sources/tsc/resolver.js';
import type { Db } from '../../store/db.js';
import { BackgroundEnricher } from './background.js';
import { CodeIntelResolver } from './codeIntelResolver.js';
import { describeResolverReport } from './enrich.js';
import { ResolutionStore } from './store.js';
import type { EdgeResolver } from './types.js';

export interface HeadlessOptions {
  readonly root: string;
  /** Commands per language id that override the defaults: `{ go: ['gopls'] }`. */
  readonly servers?: Readonly<Record<string, readonly string[]>>;
  /** Only these server ids (`typescript`, `python`, `go`, …). */
  readonly only?: readonly string[];
  readonly requestTimeoutMs?: number;
  readonly readyTimeoutMs?: number;
  readonly memoryCapMb?: number;
  readonly concurrency?: number;
  readonly log?: (message: string) => void;
  /**
   * Offer a first-pass resolver before each language server (the TypeScript
   * compiler; scip-python for Python) for the passes where most files lack
   * type-checked resolution (default true; the pass decides, EnrichOptions.firstPass).
   */
  readonly firstPass?: boolean;
  /** Let typescript-language-server run the workspace's own TypeScript: the user's opt-in, never read from the repository. */
  readonly useWorkspaceTypescript?: boolean;
}

/**
 * Language-server resolvers for the languages the workspace has, each over a
 * server Tenure starts itself (CLI, MCP). In VS Code the bridge to the
 * editor's running servers is used instead.
 */
export async function headlessResolvers(db: Db, options: HeadlessOptions): Promise<EdgeResolver[]> {
  const present = new Set(await new ResolutionStore(db).languagesPresent());
  const specs: LanguageServerSpec[] = defaultServers(options.servers ?? {}, options.memoryCapMb, { root: options.root, ...(options.useWorkspaceTypescript ? { useWorkspaceTypescript: true } : {}) }).filter(
    (s) => s.languages.some((l) => present.has(l)) && (!options.only || options.only.includes(s.id)),
  );
  const out: EdgeResolver[] = [];
  for (const spec of specs) {
    // The first pass answers what a whole workspace needs at once; the server after it keeps it fresh.
    const first = options.firstPass !== false && !options.servers?.[spec.id] ? firstPassFor(spec.id, options) : undefined;
    if (first) out.push(first);
    out.push(
      new CodeIntelResolver(
        new LspCodeIntel(spec, {
          root: options.root,
          ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
          ...(options.readyTimeoutMs ? { readyTimeoutMs: options.readyTimeoutMs } : {}),
          ...(options.memoryCapMb ? { memoryCapMb: options.memoryCapMb } : {}),
          ...(options.log ? { log: options.log } : {}),
        }),
        options.concurrency ? { concurrency: options.concurrency } : {},
      ),
    );
  }
  return out;
}

/**
 * The whole-workspace resolver for a server's language, where Tenure ships
 * one: the TypeScript compiler for typescript-language-server (the same
 * checker, without a request per site; the workspace's own TypeScript when
 * the user opted in is the server's alone), scip-python for pyright (pyright's
 * checker, as an indexer).
 */
function firstPassFor(id: string, options: HeadlessOptions): EdgeResolver | undefined {
  if (id === 'typescript' && !options.useWorkspaceTypescript && tscAvailable()) return new TscResolver(options.memoryCapMb ? { memoryMb: options.memoryCapMb } : {});
  if (id === 'python' && indexerAvailable('scip-python')) return scipIndexerResolver('scip-python', options.root, { firstPass: true });
  return undefined;
}

/**
 * Background enrichment for a long-lived headless host (`tenure watch`,
 * `tenure mcp --watch`): the language servers start on the first pass and
 * stay up, so an edit costs the changed file and its importers only. Call
 * schedule() after every index update; dispose() stops the servers.
 */
export async function headlessEnricher(db: Db, options: HeadlessOptions & { readonly onReport?: (line: string) => void }): Promise<BackgroundEnricher> {
  const resolvers = await headlessResolvers(db, options);
  return new BackgroundEnricher(db, resolvers, {
    root: options.root,
    debounceMs: 1500,
    ...(options.log ? { log: options.log } : {}),
    onReport: (report) => {
      for (const r of report.resolvers) {
        if (r.files || r.message) options.onReport?.(`enriched with ${describeResolverReport(r)}`);
      }
    },
  });
}
