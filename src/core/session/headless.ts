import { errorMessage } from '../../shared/errors.js';
import { headlessEnricher } from '../structural/enrichment/headless.js';
import type { Session } from './session.js';
import { startSessionTeamSync } from './teamSync.js';
import { watchFiles } from './watch.js';

export interface KeepFresh {
  close(): Promise<void>;
}

/**
 * What `tenure watch` and `tenure mcp --watch` add to a session once it has
 * indexed: the workspace's files watched, and, unless `enrich` is off,
 * language servers started by Tenure confirming the edges in the background
 * after the first index and each batch; and, when the workspace is connected
 * to a team store, automatic sync with it.
 */
export async function keepFresh(session: Session, opts: { enrich: boolean; log: (m: string) => void; onReport: (line: string) => void; teamSync?: boolean }): Promise<KeepFresh> {
  const ws = session.workspace;
  if (opts.enrich) {
    const enricher = await headlessEnricher(ws.db, { root: ws.root, log: opts.log, onReport: opts.onReport });
    session.attachEnricher(enricher);
    session.scheduleEnrichment(0);
  }
  const watch = watchFiles(ws.root, (paths) => session.changed(paths), (e) => opts.log(errorMessage(e)));
  // A workspace connected to a team store (`tenure team connect`) syncs while the host runs; a command line is a trusted host.
  const team = opts.teamSync === false ? undefined : startSessionTeamSync(session, { trusted: true, log: opts.log });
  return {
    async close() {
      watch.close();
      await team?.dispose();
    },
  };
}
