import type { Db } from '../../store/db.js';
import { forgetPartition } from './communities.js';
import { hasTable } from './rows.js';

/*
 * The record of pipeline runs and their workflows (kn_runs, kn_workflows),
 * and what the knowledge memory keeps in meta: when it was last indexed, and
 * the fingerprints of the graph and of the symbols the last completed run
 * saw (equal fingerprints let a later run skip the graph workflows).
 */

const INDEXED_AT = 'knowledge.indexedAt';
const GRAPH_HASH = 'knowledge.graphHash';
const SYMBOLS_HASH = 'knowledge.symbolsHash';

export type RunStatus = 'done' | 'stopped' | 'failed';
export type WorkflowStatus = RunStatus | 'skipped';

export async function startRun(db: Db, run: { mode: 'offline' | 'model'; model: string; embedder: string; budgetTokens: number | null }): Promise<number> {
  const { lastID } = await db.write((d) =>
    d.run('INSERT INTO kn_runs (started_at, mode, model, embedder, status, budget_tokens) VALUES (?, ?, ?, ?, ?, ?)', [Date.now(), run.mode, run.model, run.embedder, 'running', run.budgetTokens]),
  );
  return lastID;
}

export async function startWorkflow(db: Db, runId: number, name: string): Promise<void> {
  await db.write((d) => d.run('INSERT OR REPLACE INTO kn_workflows (run_id, name, status, started_at) VALUES (?, ?, ?, ?)', [runId, name, 'running', Date.now()]));
}

export async function finishWorkflow(db: Db, runId: number, name: string, status: WorkflowStatus, stats: Record<string, number | string>): Promise<void> {
  await db.write((d) => d.run('UPDATE kn_workflows SET status = ?, finished_at = ?, stats = ? WHERE run_id = ? AND name = ?', [status, Date.now(), JSON.stringify(stats), runId, name]));
}

/**
 * Closes a run with its report. A run that finished every workflow records
 * the fingerprints it built; any other forgets the last ones, so the next
 * run rebuilds rather than trusts a half-written graph.
 */
export async function finishRun(
  db: Db,
  runId: number,
  end: { status: RunStatus; spentTokens: number; message: string | null; report: unknown; graphHash?: string; symbolsHash?: string },
): Promise<void> {
  await db.write(async (d) => {
    await d.run('UPDATE kn_runs SET finished_at = ?, status = ?, spent_tokens = ?, message = ?, report = ? WHERE id = ?', [Date.now(), end.status, end.spentTokens, end.message, JSON.stringify(end.report), runId]);
    if (end.status === 'done') {
      await d.run('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [INDEXED_AT, String(Date.now())]);
      if (end.graphHash) await d.run('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [GRAPH_HASH, end.graphHash]);
      if (end.symbolsHash) await d.run('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [SYMBOLS_HASH, end.symbolsHash]);
    } else {
      await d.run('DELETE FROM meta WHERE key IN (?, ?)', [GRAPH_HASH, SYMBOLS_HASH]);
    }
  });
}

async function metaValue(db: Db, key: string): Promise<string | undefined> {
  return (await db.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [key]))?.value;
}

/** The graph fingerprint of the last completed run. */
export function lastGraphHash(db: Db): Promise<string | undefined> {
  return metaValue(db, GRAPH_HASH);
}

/** The symbols fingerprint of the last completed run. */
export function lastSymbolsHash(db: Db): Promise<string | undefined> {
  return metaValue(db, SYMBOLS_HASH);
}

/** When the last run that finished every workflow ended (epoch ms); undefined before one has. */
export async function indexedAt(db: Db): Promise<number | undefined> {
  const v = await metaValue(db, INDEXED_AT);
  return v === undefined ? undefined : Number(v);
}

export interface RunSummary {
  readonly id: number;
  readonly mode: string;
  readonly model: string;
  readonly status: string;
  readonly startedAt: number;
  readonly spentTokens: number;
  readonly message: string | null;
}

export async function recentRuns(db: Db, limit: number): Promise<RunSummary[]> {
  return db.all<RunSummary>('SELECT id, mode, model, status, started_at AS startedAt, spent_tokens AS spentTokens, message FROM kn_runs ORDER BY id DESC LIMIT ?', [limit]);
}

/**
 * Forgets the knowledge graph and the documents it was built from, so the
 * next run rebuilds them; the model answers (extractions, summaries, reports,
 * embeddings, llm_cache) stay, so a rebuild costs no model call twice.
 */
export async function clearKnowledge(db: Db): Promise<void> {
  if (!(await hasTable(db, 'kn_documents'))) return;
  await db.write(async (d) => {
    await d.run('DELETE FROM kn_entities');
    await d.run('DELETE FROM kn_communities');
    await d.run('DELETE FROM kn_documents');
    await forgetPartition(d);
    await d.run('DELETE FROM meta WHERE key = ?', [INDEXED_AT]);
  });
}
