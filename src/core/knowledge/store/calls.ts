import type { CachedAnswer, CallRecord, CallStore, RejectedReply } from '../../llm/types.js';
import type { Db } from '../../store/db.js';

/*
 * The model-call cache and ledger on SQLite (llm_cache, llm_calls,
 * llm_rejects, created with the knowledge memory's tables): the runner's
 * CallStore port, and the totals the status view shows.
 */

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // A damaged row reads as a miss: the runner validates whatever it gets.
    return undefined;
  }
}

export class SqliteCallStore implements CallStore {
  constructor(private readonly db: Db) {}

  async cached(key: string): Promise<{ readonly output: unknown } | undefined> {
    const hit = await this.db.get<{ output: string }>('SELECT output FROM llm_cache WHERE key = ?', [key]);
    return hit ? { output: parse(hit.output) } : undefined;
  }

  async remember(a: CachedAnswer): Promise<void> {
    await this.db.write((d) =>
      d.run('INSERT OR REPLACE INTO llm_cache (key, task, model, prompt_version, output, input_tokens, output_tokens, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
        a.key,
        a.task,
        a.model,
        a.promptVersion,
        JSON.stringify(a.output),
        a.usage.inputTokens,
        a.usage.outputTokens,
        Date.now(),
      ]),
    );
  }

  async logCall(c: CallRecord): Promise<number> {
    const r = await this.db.write((d) =>
      d.run('INSERT INTO llm_calls (run_id, task, model, status, attempts, input_tokens, output_tokens, ms, error, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)', [
        c.runId,
        c.task,
        c.model,
        c.status,
        c.attempts,
        c.usage.inputTokens,
        c.usage.outputTokens,
        c.ms,
        c.error,
        Date.now(),
      ]),
    );
    return r.lastID;
  }

  async setCallStatus(callId: number, status: 'repaired' | 'dropped'): Promise<void> {
    await this.db.write((d) => d.run('UPDATE llm_calls SET status = ? WHERE id = ?', [status, callId]));
  }

  async reject(r: RejectedReply): Promise<void> {
    await this.db.write((d) => d.run('INSERT INTO llm_rejects (run_id, key, task, model, error, output, at) VALUES (?, ?, ?, ?, ?, ?, ?)', [r.runId, r.key, r.task, r.model, r.error, r.output, Date.now()]));
  }
}

export interface SpendRow {
  readonly model: string;
  readonly task: string;
  readonly calls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly failed: number;
  readonly dropped: number;
  readonly repaired: number;
}

/** What model calls cost, by model and task, over every run; with the rejects and cache entries. */
export async function callTotals(db: Db): Promise<{ spend: SpendRow[]; rejects: number; cacheEntries: number }> {
  const spend = await db.all<{ model: string; task: string; calls: number; i: number | null; o: number | null; failed: number | null; dropped: number | null; repaired: number | null }>(
    `SELECT model, task, count(*) AS calls, sum(input_tokens) AS i, sum(output_tokens) AS o, sum(status = 'failed') AS failed, sum(status = 'dropped') AS dropped, sum(status = 'repaired') AS repaired
     FROM llm_calls GROUP BY model, task ORDER BY model, task`,
  );
  const rejects = await db.get<{ n: number }>('SELECT count(*) AS n FROM llm_rejects');
  const cache = await db.get<{ n: number }>('SELECT count(*) AS n FROM llm_cache');
  return {
    spend: spend.map((s) => ({ model: s.model, task: s.task, calls: s.calls, inputTokens: s.i ?? 0, outputTokens: s.o ?? 0, failed: s.failed ?? 0, dropped: s.dropped ?? 0, repaired: s.repaired ?? 0 })),
    rejects: rejects?.n ?? 0,
    cacheEntries: cache?.n ?? 0,
  };
}
