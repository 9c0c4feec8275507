import { systemClock } from '../episodic/clock.js';
import { loadOptions } from '../episodic/options.js';
import { indexKnowledge } from '../knowledge/pipeline.js';
import { refreshRules } from '../procedural/refresh.js';
import { startTeamSync, type TeamSyncHandle, type TeamSyncOptions } from '../team/autoSync.js';
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
