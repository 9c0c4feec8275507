import { sha256 } from '../../llm/runner.js';
import { chunkText, type ChunkOptions } from '../chunk.js';
import type { DocKind, SourceDocument } from '../sources/document.js';
import { collectSources, type SourceOptions } from '../sources/documents.js';
import { removeDocuments, storedDocuments, writeDocuments, type StoredDocument } from '../store/documents.js';
import { wordCount } from '../text.js';
import { checkSignal } from './batches.js';
import type { RunContext, WorkflowOutput } from './types.js';

/*
 * load_documents: sources → kn_documents and kn_chunks. Only documents whose
 * content changed are chunked and written again; documents gone from the
 * sources are removed (their chunks, mentions and citations with them).
 */

export interface DocumentStats {
  readonly total: number;
  readonly added: number;
  readonly changed: number;
  readonly removed: number;
  readonly unchanged: number;
  readonly byKind: Partial<Record<DocKind, number>>;
  readonly words: number;
}

export interface LoadDocumentsInput {
  /** Use these instead of reading the sources. */
  readonly documents?: readonly SourceDocument[];
  readonly sources: SourceOptions;
  readonly chunking: ChunkOptions;
}

export function documentHash(d: SourceDocument): string {
  // The status joins the key only when there is one: documents without it keep the hash they were stored with.
  return sha256(JSON.stringify([d.kind, d.title, d.ref ?? '', d.url ?? '', d.text, d.sections ?? [], ...(d.status ? [d.status.state, d.status.said] : [])]));
}

export interface DocumentPlan {
  /** New or changed documents, first of each source. */
  readonly write: readonly SourceDocument[];
  readonly remove: readonly StoredDocument[];
  readonly stats: DocumentStats;
}

/** What to write and remove to bring the stored documents to these. Pure. */
export function planDocuments(documents: readonly SourceDocument[], stored: ReadonlyMap<string, StoredDocument>): DocumentPlan {
  const seen = new Set<string>();
  let added = 0;
  let changed = 0;
  let unchanged = 0;
  let words = 0;
  const byKind: Partial<Record<DocKind, number>> = {};
  const write: SourceDocument[] = [];
  for (const d of documents) {
    if (seen.has(d.source)) continue;
    seen.add(d.source);
    byKind[d.kind] = (byKind[d.kind] ?? 0) + 1;
    words += wordCount(d.text);
    const k = stored.get(d.source);
    if (k && k.hash === documentHash(d)) {
      unchanged++;
      continue;
    }
    if (k) changed++;
    else added++;
    write.push(d);
  }
  const remove = [...stored.values()].filter((k) => !seen.has(k.source));
  return { write, remove, stats: { total: seen.size, added, changed, removed: remove.length, unchanged, byKind, words } };
}

export async function loadDocuments(ctx: RunContext, input: LoadDocumentsInput): Promise<WorkflowOutput<{ documents: DocumentStats }>> {
  const { db } = ctx;
  const set = input.documents ? { documents: [...input.documents], skipped: [], commits: { informative: 0 } } : await collectSources(ctx.root, input.sources);
  const stored = await storedDocuments(db);
  const plan = planDocuments(set.documents, stored);
  let chunks = 0;
  for (let i = 0; i < plan.write.length; i += 200) {
    checkSignal(ctx);
    const prepared = plan.write.slice(i, i + 200).map((d) => {
      const old = stored.get(d.source);
      return {
        document: d,
        hash: documentHash(d),
        words: wordCount(d.text),
        chunks: chunkText(d.text, input.chunking).map((c) => ({ ...c, hash: sha256(c.text) })),
        ...(old ? { replaces: old.id } : {}),
      };
    });
    await db.write((w) => writeDocuments(w, prepared));
    chunks += prepared.reduce((n, p) => n + p.chunks.length, 0);
    ctx.onProgress?.({ workflow: 'load_documents', done: Math.min(plan.write.length, i + 200), total: plan.write.length });
  }
  if (plan.remove.length) await db.write((w) => removeDocuments(w, plan.remove.map((r) => r.id)));
  const s = plan.stats;
  return {
    stats: { documents: s.total, added: s.added, changed: s.changed, removed: s.removed, unchanged: s.unchanged, chunksWritten: chunks, skippedFiles: set.skipped.length, informativeCommits: set.commits.informative },
    output: { documents: s },
  };
}
