import { errorMessage } from '../../shared/errors.js';
import type { Workspace } from '../store/workspace.js';
import { detectCi } from './ci.js';
import type { PasswordSources } from './config.js';
import type { TeamDbOptions } from './pg.js';
import { TeamError } from './errors.js';
import { configuredUrl, lastSyncTime, openTeam, pullChanged, recordSyncTime, sync, type SyncReport, type TeamSession } from './sync.js';

/*
 * Automatic sync for a long-lived host (`tenure watch`, `tenure mcp --watch`,
 * the extension): a sync when it starts, then every interval and soon after
 * another process writes the database (a `tenure run` in a terminal). When
 * the server does not answer, local work goes on and the next attempt comes
 * after a growing pause; nothing is lost meanwhile, the cursors wait. In
 * VS Code's restricted mode nothing is synced at all: an untrusted folder
 * reaches no server.
 *
 * The editor uses it through `startTeamSync` with `trusted` from workspace
 * trust, `secret` from SecretStorage, `onStatus` for the sidebar's team row
 * and `afterPull` to re-mine rules and re-assemble the knowledge graph.
 */

export type TeamSyncState =
  | { readonly kind: 'off'; readonly reason: string }
  | { readonly kind: 'syncing' }
  | { readonly kind: 'idle'; readonly lastSync: number; readonly report: SyncReport | null }
  | { readonly kind: 'offline'; readonly since: number; readonly message: string; readonly lastSync: number | null; readonly retryAt: number }
  | { readonly kind: 'failed'; readonly message: string; readonly lastSync: number | null };

export interface TeamSyncStatus {
  readonly state: TeamSyncState;
  /** The repository and login, once connected. */
  readonly connection: { readonly url: string; readonly repository: string; readonly access: string; readonly user: string } | null;
}

export interface TeamSyncOptions extends PasswordSources, TeamDbOptions {
  /** False in VS Code's restricted mode: nothing is synced. */
  readonly trusted: boolean;
  /** Default 60 s. */
  readonly intervalMs?: number;
  /** How often to look for other processes' writes. Default 5 s. */
  readonly pollMs?: number;
  readonly log?: (message: string) => void;
  readonly onStatus?: (status: TeamSyncStatus) => void;
  /** After a pull that brought something: what the derived memories must do (re-mine rules, re-assemble the knowledge graph). */
  readonly afterPull?: (changed: { readonly rules: boolean; readonly knowledge: boolean }, report: SyncReport) => Promise<void>;
}

export interface TeamSyncHandle {
  readonly status: TeamSyncStatus;
  /** Syncs now (or joins the sync under way). */
  syncNow(): Promise<SyncReport | undefined>;
  dispose(): Promise<void>;
}

const MAX_BACKOFF_MS = 5 * 60_000;

export function startTeamSync(ws: Workspace, options: TeamSyncOptions): TeamSyncHandle {
  const log = options.log ?? (() => undefined);
  let status: TeamSyncStatus = { state: { kind: 'off', reason: 'not started' }, connection: null };
  const set = (s: TeamSyncStatus) => {
    status = s;
    options.onStatus?.(s);
  };
  if (!options.trusted) {
    set({ state: { kind: 'off', reason: 'restricted mode: an untrusted folder is never synced' }, connection: null });
    return { get status() { return status; }, syncNow: async () => undefined, dispose: async () => undefined };
  }
  if (!configuredUrl(ws.root, options.env)) {
    set({ state: { kind: 'off', reason: 'not connected (tenure team connect <postgresql-url>)' }, connection: null });
    return { get status() { return status; }, syncNow: async () => undefined, dispose: async () => undefined };
  }
  let team: TeamSession | undefined;
  let running: Promise<SyncReport | undefined> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let poll: NodeJS.Timeout | undefined;
  let disposed = false;
  let failures = 0;
  let lastSync: number | null = null;
  let dataVersion: number | undefined;

  const schedule = (ms: number) => {
    if (disposed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void syncNow(), ms);
  };

  const once = async (): Promise<SyncReport | undefined> => {
    set({ ...status, state: { kind: 'syncing' } });
    try {
      team ??= await openTeam(ws, { ...options, ci: detectCi(options.env) });
      const report = await sync(team);
      const changed = pullChanged(report.pull);
      if ((changed.rules || changed.knowledge) && options.afterPull) await options.afterPull(changed, report);
      lastSync = Date.now();
      await recordSyncTime(team, lastSync);
      failures = 0;
      set({ state: { kind: 'idle', lastSync, report }, connection: { url: team.connection.url, repository: team.repo.name, access: team.repo.access ?? 'none', user: team.user } });
      const moved = (report.push?.episodes ?? 0) + report.pull.rows;
      if (moved) log(`team sync: pushed ${report.push?.episodes ?? 0} episodes, pulled ${report.pull.episodes} episodes and ${report.pull.rows} rows in all`);
      schedule(options.intervalMs ?? 60_000);
      return report;
    } catch (e) {
      failures++;
      const wait = Math.min(MAX_BACKOFF_MS, 5000 * 2 ** Math.min(failures - 1, 6));
      if (TeamError.is(e, 'unreachable')) {
        // The pool may hold dead connections; start afresh next time.
        await team?.close().catch(() => undefined);
        team = undefined;
        const since = status.state.kind === 'offline' ? status.state.since : Date.now();
        set({ ...status, state: { kind: 'offline', since, message: e.message, lastSync: lastSync ?? (team ? ((await lastSyncTime(team)) ?? null) : null), retryAt: Date.now() + wait } });
        log(`team store unreachable; local work continues, next try in ${Math.round(wait / 1000)} s`);
      } else {
        set({ ...status, state: { kind: 'failed', message: errorMessage(e), lastSync } });
        log(`team sync failed: ${errorMessage(e)}`);
      }
      schedule(wait);
      return undefined;
    }
  };

  const syncNow = (): Promise<SyncReport | undefined> => {
    if (disposed) return Promise.resolve(undefined);
    running ??= once().finally(() => (running = undefined));
    return running;
  };

  // Another process's commit to the database (SQLite's data_version moves): share it soon.
  const watchWrites = async () => {
    if (disposed) return;
    try {
      const v = await ws.db.dataVersion();
      if (dataVersion !== undefined && v !== dataVersion && !running && status.state.kind !== 'offline') schedule(2000);
      dataVersion = v;
    } catch {
      /* closed meanwhile */
    }
    if (!disposed) poll = setTimeout(() => void watchWrites(), options.pollMs ?? 5000);
  };

  schedule(0);
  void watchWrites();
  return {
    get status() {
      return status;
    },
    syncNow,
    async dispose() {
      disposed = true;
      if (timer) clearTimeout(timer);
      if (poll) clearTimeout(poll);
      await running?.catch(() => undefined);
      await team?.close().catch(() => undefined);
    },
  };
}
