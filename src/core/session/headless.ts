import { errorMessage } from '../../shared/errors.js';
import { headlessEnricher } from '../structural/enrichment/headless.js';
import type { Session } from './session.js';
import { watchFiles } from './watch.js';

export interface KeepFresh {
  close(): Promise<void>;
}

/**
 * What `tenure watch` and `tenure mcp --watch` add to a session once it has
 * indexed: the workspace's files watched, and, unless `enrich` is off,
 * language servers started by Tenure confirming the edges in the background
 * after the first index and each batch.
 */
export async function keepFresh(session: Session, opts: { enrich: boolean; log: (m: string) => void; onReport: (line: string) => void }): Promise<KeepFresh> {
  const ws = session.workspace;
  if (opts.enrich) {
    const enricher = await headlessEnricher(ws.db, { root: ws.root, log: opts.log, onReport: opts.onReport });
    session.attachEnricher(enricher);
    session.scheduleEnrichment(0);
  }
  const watch = watchFiles(ws.root, (paths) => session.changed(paths), (e) => opts.log(errorMessage(e)));
  return {
    async close() {
      watch.close();
    },
  };
}
