import { LspCodeIntel } from '../sources/lsp/codeIntel.js';
import { defaultServers, type LanguageServerSpec } from '../sources/lsp/servers.js';
import type { Db } from '../../store/db.js';
import { BackgroundEnricher } from './background.js';
import { CodeIntelResolver } from './codeIntelResolver.js';
import { describeResolverReport } from './enrich.js';
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
}

/**
 * Language-server resolvers for the languages the workspace has, each over a
 * server Tenure starts itself (CLI, MCP). In VS Code the bridge to the
 * editor's running servers is used instead.
 */
export async function headlessResolvers(db: Db, options: HeadlessOptions): Promise<EdgeResolver[]> {
  const present = new Set((await db.all<{ language: string }>('SELECT DISTINCT language FROM files WHERE language IS NOT NULL AND skip_reason IS NULL')).map((r) => r.language));
  const specs: LanguageServerSpec[] = defaultServers(options.servers ?? {}, options.memoryCapMb).filter(
    (s) => s.languages.some((l) => present.has(l)) && (!options.only || options.only.includes(s.id)),
  );
  return specs.map(
    (spec) =>
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
