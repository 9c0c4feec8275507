import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { resolvePassword, type PasswordSources } from './config.js';
import { classifyPgError } from './errors.js';

/*
 * The connection to the team store: a small pool (a sync is sequential; the
 * model-call cache is read by a few concurrent calls), short timeouts so an
 * unreachable server is noticed in seconds rather than stalling local work,
 * TLS as the URL says (`sslmode=verify-full&sslrootcert=ca.pem` verifies the
 * certificate and the host name), and the password resolved only when the
 * server asks for one.
 */

export interface TeamDbOptions extends PasswordSources {
  /** How long to wait for a connection. Default 5 s. */
  readonly connectTimeoutMs?: number;
  /** Default 60 s: a pull page or a push batch, never a whole sync. */
  readonly statementTimeoutMs?: number;
  readonly maxConnections?: number;
}

export class TeamDb {
  private constructor(
    private readonly pool: Pool,
    readonly url: string,
  ) {}

  static open(url: string, options: TeamDbOptions = {}): TeamDb {
    // Loaded on first use: every CLI command's bundle holds the team store, few commands open it, and `pg` costs about 30 ms to load.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Pool: PgPool } = require('pg') as typeof import('pg');
    const pool = new PgPool({
      connectionString: url,
      password: () => resolvePassword(url, options) as Promise<string>,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      statement_timeout: options.statementTimeoutMs ?? 60_000,
      idleTimeoutMillis: 10_000,
      max: options.maxConnections ?? 4,
      application_name: 'tenure',
      keepAlive: true,
    });
    // An idle connection dropped by the server is the pool's to replace, not a crash.
    pool.on('error', () => undefined);
    return new TeamDb(pool, url);
  }

  async query<T extends QueryResultRow = Record<string, unknown>>(sql: string, params: readonly unknown[] = [], what = 'talking to the team store'): Promise<T[]> {
    try {
      return (await this.pool.query<T>(sql, params as unknown[])).rows;
    } catch (e) {
      throw classifyPgError(e, what);
    }
  }

  /** Runs `fn` in one transaction: all of it commits, or none. */
  async tx<T>(fn: (q: <R extends QueryResultRow = Record<string, unknown>>(sql: string, params?: readonly unknown[]) => Promise<R[]>) => Promise<T>, what = 'writing to the team store'): Promise<T> {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (e) {
      throw classifyPgError(e, what);
    }
    let broken = false;
    try {
      await client.query('BEGIN');
      const result = await fn(async <R extends QueryResultRow>(sql: string, params: readonly unknown[] = []) => (await client.query<R>(sql, params as unknown[])).rows);
      await client.query('COMMIT');
      return result;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw classifyPgError(e, what);
    } finally {
      client.release(broken);
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
