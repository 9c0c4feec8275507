import { Workspace } from '../store/workspace.js';
import { tableExists } from './store.js';

/*
 * Front doors open the database read-only for queries (the CLI's catalog
 * commands do). A read-only connection does not migrate, so a database made
 * by an older build may lack these tables; and it cannot write, which
 * recording a conclusion must. Both helpers open a short-lived writable
 * connection only when they have to.
 */

const TABLES = ['episodes', 'rules'];

/** Makes sure the episodic and procedural tables exist, migrating through a writable connection if needed. */
export async function ensureMemoryTables(ws: Workspace): Promise<void> {
  for (const t of TABLES) {
    if (await tableExists(ws.db, t)) continue;
    const rw = await Workspace.open(ws.root);
    await rw.close();
    return;
  }
}

function isReadonlyError(e: unknown): boolean {
  const code = (e as { code?: string }).code;
  return code === 'SQLITE_READONLY' || /readonly database/i.test(String((e as Error)?.message ?? ''));
}

/** Runs a write with the workspace's connection, or with a writable one when that connection is read-only. */
export async function withWritable<T>(ws: Workspace, fn: (ws: Workspace) => Promise<T>): Promise<T> {
  try {
    await ensureMemoryTables(ws);
    return await fn(ws);
  } catch (e) {
    if (!isReadonlyError(e)) throw e;
    const rw = await Workspace.open(ws.root);
    try {
      return await fn(rw);
    } finally {
      await rw.close();
    }
  }
}
