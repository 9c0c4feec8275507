import type { CachedAnswer, CallRecord, CallStore, RejectedReply } from '../llm/types.js';
import { TeamError } from './errors.js';
import type { TeamSession } from './sync.js';

/*
 * The LLM layer's CallStore port on the team store, so a model pass is paid
 * once per team: a cached answer any clone or CI stored for the same model,
 * task, prompt version and messages is used instead of calling the model,
 * and the ledger records who spent what. `TieredCallStore` puts it behind
 * the workspace's own store: local first, then the team's; answers are
 * written to both (a pull later brings the team's answers here as well). When the server
 * stops answering, the tier steps aside for a minute and the local store
 * carries on; `tenure team sync` shares what was stored meanwhile.
 */

export class PgCallStore implements CallStore {
  constructor(private readonly team: TeamSession) {}

  private get repo(): number {
    return this.team.repo.id;
  }

  async cached(key: string): Promise<{ readonly output: unknown } | undefined> {
    const r = await this.team.store.db.query<{ output: string }>('SELECT output FROM tenure.llm_cache WHERE repo_id = $1 AND key = $2', [this.repo, key], 'reading the model-call cache');
    if (!r[0]) return undefined;
    try {
      return { output: JSON.parse(r[0].output) as unknown };
    } catch {
      return undefined;
    }
  }

  async remember(a: CachedAnswer): Promise<void> {
    await this.team.store.db.query(
      `INSERT INTO tenure.llm_cache (repo_id, clone, key, task, model, prompt_version, output, input_tokens, output_tokens, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (repo_id, key) DO NOTHING`,
      [this.repo, this.team.connection.clone, a.key, a.task, a.model, a.promptVersion, JSON.stringify(a.output), a.usage.inputTokens, a.usage.outputTokens, Date.now()],
      'storing a model answer',
    );
  }

  async logCall(c: CallRecord): Promise<number> {
    const r = await this.team.store.db.query<{ id: string }>(
      `INSERT INTO tenure.llm_calls (repo_id, clone, run, task, model, status, attempts, input_tokens, output_tokens, ms, error, at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`,
      [this.repo, this.team.connection.clone, c.runId === null ? null : `${this.team.connection.clone}:run:${c.runId}`, c.task, c.model, c.status, c.attempts, c.usage.inputTokens, c.usage.outputTokens, Math.round(c.ms), c.error, Date.now()],
      'logging a model call',
    );
    return Number(r[0]!.id);
  }

  async setCallStatus(callId: number, status: 'repaired' | 'dropped'): Promise<void> {
    await this.team.store.db.query('UPDATE tenure.llm_calls SET status = $3 WHERE repo_id = $1 AND id = $2', [this.repo, callId, status], 'amending a model call');
  }

  async reject(r: RejectedReply): Promise<void> {
    await this.team.store.db.query(
      'INSERT INTO tenure.llm_rejects (repo_id, clone, key, task, model, error, output, at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [this.repo, this.team.connection.clone, r.key, r.task, r.model, r.error, r.output, Date.now()],
      'recording a rejected reply',
    );
  }
}

const BACKOFF_MS = 60_000;

export class TieredCallStore implements CallStore {
  private downUntil = 0;
  /** Local ledger id → the team's, for amending a call's status in both. */
  private readonly teamIds = new Map<number, number>();
  /** Answers found in the team's cache rather than here. */
  teamHits = 0;

  constructor(
    private readonly local: CallStore,
    private readonly team: CallStore,
    private readonly log: (message: string) => void = () => undefined,
  ) {}

  private async tryTeam<T>(fn: () => Promise<T>): Promise<T | undefined> {
    if (Date.now() < this.downUntil) return undefined;
    try {
      return await fn();
    } catch (e) {
      if (TeamError.is(e, 'unreachable') || TeamError.is(e, 'auth')) {
        this.downUntil = Date.now() + BACKOFF_MS;
        this.log(`team model-call cache unavailable (${e.message}); using the local one`);
        return undefined;
      }
      throw e;
    }
  }

  async cached(key: string): Promise<{ readonly output: unknown } | undefined> {
    const here = await this.local.cached(key);
    if (here) return here;
    const there = await this.tryTeam(() => this.team.cached(key));
    if (there) this.teamHits++;
    return there;
  }

  async remember(a: CachedAnswer): Promise<void> {
    await this.local.remember(a);
    await this.tryTeam(() => this.team.remember(a));
  }

  async logCall(c: CallRecord): Promise<number> {
    const id = await this.local.logCall(c);
    const teamId = await this.tryTeam(() => this.team.logCall(c));
    if (teamId !== undefined) this.teamIds.set(id, teamId);
    return id;
  }

  async setCallStatus(callId: number, status: 'repaired' | 'dropped'): Promise<void> {
    await this.local.setCallStatus(callId, status);
    const teamId = this.teamIds.get(callId);
    if (teamId !== undefined) await this.tryTeam(() => this.team.setCallStatus(teamId, status));
  }

  async reject(r: RejectedReply): Promise<void> {
    await this.local.reject(r);
    await this.tryTeam(() => this.team.reject(r));
  }
}
