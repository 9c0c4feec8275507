import { errorMessage } from '../../shared/errors.js';
import { describeAge, systemClock } from '../episodic/clock.js';
import { loadOptions } from '../episodic/options.js';
import { indexKnowledge } from '../knowledge/pipeline.js';
import { refreshRules } from '../procedural/refresh.js';
import { SqliteCallStore } from '../knowledge/store/calls.js';
import type { CallStore } from '../llm/types.js';
import type { Workspace } from '../store/workspace.js';
import { startTeamSync, type TeamSyncHandle, type TeamSyncOptions, type TeamSyncStatus } from '../team/autoSync.js';
import { PgCallStore, TieredCallStore } from '../team/calls.js';
import { detectCi } from '../team/ci.js';
import type { PasswordSources } from '../team/config.js';
import { configuredUrl, openTeam, push, recordSyncTime, type PushReport, type TeamSession } from '../team/sync.js';
import type { Session } from './session.js';

/*
 * The session's hook into the team store: automatic sync while a host runs,
 * and what follows a pull that brought something — rules re-mined from the
 * episodes now here, and the knowledge graph re-assembled offline from the
 * team's model answers (no model call: the offline pass prefers a stored
 * model result wherever there is one). Hosts: `tenure watch`, `tenure mcp
 * --watch` (through keepFresh) and the extension (which passes trust, its
 * secret storage and a status callback).
 */

export function startSessionTeamSync(session: Session, options: Omit<TeamSyncOptions, 'afterPull'>): TeamSyncHandle {
  const ws = session.workspace;
  return startTeamSync(ws, {
    ...options,
    afterPull: async (changed) => {
      if (changed.rules) await refreshRules(ws, loadOptions(ws.root), systemClock);
      if (changed.knowledge) {
        const r = await indexKnowledge(ws, { log: (m) => options.log?.(m) });
        options.log?.(`knowledge re-assembled from the team's model answers: ${r.entities} entities, ${r.communities.total} communities (${r.status})`);
      }
    },
  });
}

/**
 * For a model pass in a workspace connected to a team store: the team's
 * model-call cache in front of the model (what anyone on the team paid for is
 * not paid again), and `finish` to share the pass's answers and its record.
 * Undefined when not connected, untrusted, or the store does not answer (the
 * pass then stays local until the next sync). Used by `tenure knowledge
 * index`, and by the editor's knowledge command as `calls` of indexKnowledge.
 */
export async function openTeamModelCalls(
  ws: Workspace,
  options: PasswordSources & { readonly trusted: boolean; readonly log?: (message: string) => void },
): Promise<{ readonly calls: CallStore; readonly teamHits: () => number; finish(): Promise<PushReport | undefined> } | undefined> {
  const log = options.log ?? (() => undefined);
  if (!options.trusted || !configuredUrl(ws.root, options.env)) return undefined;
  let t: TeamSession;
  try {
    t = await openTeam(ws, { ...options, ci: detectCi(options.env) });
  } catch (e) {
    log(`the team store is not used for this pass (${errorMessage(e)}): its answers stay here until the next sync`);
    return undefined;
  }
  const tiered = new TieredCallStore(new SqliteCallStore(ws.db), new PgCallStore(t), log);
  return {
    calls: tiered,
    teamHits: () => tiered.teamHits,
    async finish() {
      try {
        const r = t.repo.access !== 'read' ? await push(t) : undefined;
        await recordSyncTime(t, Date.now());
        return r;
      } catch (e) {
        log(`the pass is stored here, but sharing it with the team store failed: ${errorMessage(e)}`);
        return undefined;
      } finally {
        await t.close();
      }
    },
  };
}

/**
 * The sidebar's team row: undefined when there is nothing to say (not
 * connected), else a label's description and a tooltip. Pure, so the
 * editor's row and its test read the same words.
 */
export function describeTeamSync(status: TeamSyncStatus, now: number): { readonly description: string; readonly tooltip: string; readonly healthy: boolean } | undefined {
  const s = status.state;
  const c = status.connection;
  const where = c ? `${c.repository} as ${c.user} (${c.access})` : 'the team store';
  const ago = (t: number | null) => (t === null ? 'never synced' : `synced ${describeAge(now - t)}`);
  switch (s.kind) {
    case 'off':
      return s.reason.startsWith('not connected') ? undefined : { description: 'off', tooltip: `Team store: ${s.reason}.`, healthy: true };
    case 'syncing':
      return { description: 'syncing…', tooltip: `Syncing with ${where}.`, healthy: true };
    case 'idle':
      return { description: `${where} · ${ago(s.lastSync)}`, tooltip: `Connected to ${c?.url ?? 'the team store'}. Episodes, conclusions, rules and the knowledge index are shared; answers read this clone's copy.`, healthy: true };
    case 'offline':
      return { description: `unreachable · ${ago(s.lastSync)}`, tooltip: `The team store does not answer (${s.message}). Local work continues; next try in ${Math.max(0, Math.round((s.retryAt - now) / 1000))} s.`, healthy: false };
    case 'failed':
      return { description: `sync failed · ${ago(s.lastSync)}`, tooltip: `Team sync failed: ${s.message}. Run \`tenure team status\` in a terminal for details.`, healthy: false };
  }
}

