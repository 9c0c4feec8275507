import type { UnreadLanguage } from './inventory/discover.js';
import { unreadLine } from './lookup.js';
import { StructuralStore, unreadLanguages } from './store.js';
import { EDGE_TIERS, type EdgeTier } from '../model/tiers.js';
import type { SkipKind } from '../model/skips.js';
import type { Db } from '../store/db.js';
import type { Workspace } from '../store/workspace.js';

export interface StatusReport {
  readonly root: string;
  readonly indexedAt: string | null;
  readonly files: number;
  readonly filesByLanguage: Record<string, number>;
  readonly skipped: readonly { path: string; kind: SkipKind; reason: string }[];
  readonly filesWithSyntaxErrors: number;
  readonly symbols: number;
  readonly edges: number;
  readonly edgesByTier: Record<EdgeTier, number>;
  readonly edgesBySource: Record<string, number>;
  /** Source files in languages the inventory does not read, by language. */
  readonly unread: readonly UnreadLanguage[];
}

export async function getStatus(ws: Workspace): Promise<StatusReport> {
  const db = ws.db;
  const at = await db.get<{ value: string }>("SELECT value FROM meta WHERE key = 'structural.indexedAt'");
  const langs = await db.all<{ language: string | null; n: number }>('SELECT language, count(*) AS n FROM files WHERE skip_reason IS NULL GROUP BY language');
  const skipped = [...(await new StructuralStore(db).walkSkips()), ...(await db.all<{ path: string; kind: SkipKind; reason: string }>('SELECT path, skip_kind AS kind, skip_reason AS reason FROM files WHERE skip_reason IS NOT NULL ORDER BY path'))].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const errs = await db.get<{ n: number }>('SELECT count(*) AS n FROM files WHERE error_nodes > 0');
  const symbols = await db.get<{ n: number }>("SELECT count(*) AS n FROM symbols WHERE kind != 'module'");
  const tiers = await db.all<{ tier: EdgeTier; n: number }>('SELECT tier, count(*) AS n FROM edges GROUP BY tier');
  const sources = await db.all<{ source: string; n: number }>('SELECT source, count(*) AS n FROM edges GROUP BY source');
  const edgesByTier = Object.fromEntries(EDGE_TIERS.map((t) => [t, 0])) as Record<EdgeTier, number>;
  for (const t of tiers) edgesByTier[t.tier] = t.n;
  return {
    root: ws.root,
    indexedAt: at ? new Date(Number(at.value)).toISOString() : null,
    files: langs.reduce((n, l) => n + l.n, 0),
    filesByLanguage: Object.fromEntries(langs.map((l) => [l.language ?? 'unknown', l.n])),
    skipped,
    filesWithSyntaxErrors: errs?.n ?? 0,
    symbols: symbols?.n ?? 0,
    edges: tiers.reduce((n, t) => n + t.n, 0),
    edgesByTier,
    edgesBySource: Object.fromEntries(sources.map((s) => [s.source, s.n])),
    unread: await unreadLanguages(db),
  };
}


/** Whether the source declares any symbol yet (what artifacts and traces attach to); generated and endpoint symbols do not count. */
export async function hasSourceSymbols(db: Db): Promise<boolean> {
  return !!(await db.get<{ n: number }>("SELECT count(*) AS n FROM symbols WHERE origin IS NULL AND kind != 'module'"))?.n;
}

export function renderStatus(s: StatusReport): string {
  if (!s.indexedAt) return `Tenure has not indexed ${s.root} yet. Run \`tenure index\`.`;
  const lines = [
    `Workspace ${s.root}, indexed ${s.indexedAt}`,
    `Files: ${s.files} (${Object.entries(s.filesByLanguage).map(([l, n]) => `${l} ${n}`).join(', ')}); ${s.skipped.length} skipped; ${s.filesWithSyntaxErrors} with syntax errors (indexed as far as they parse)`,
    `Symbols: ${s.symbols}. Edges: ${s.edges} — ${EDGE_TIERS.map((t) => `${t} ${s.edgesByTier[t]}`).join(', ')}`,
    `Edge sources: ${Object.entries(s.edgesBySource).map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}`,
  ];
  if (s.unread.length) lines.push(unreadLine(s.unread));
  for (const sk of s.skipped.slice(0, 10)) lines.push(`  skipped ${sk.path}: ${sk.reason}`);
  if (s.skipped.length > 10) lines.push(`  … and ${s.skipped.length - 10} more (--json lists them all)`);
  return lines.join('\n');
}
