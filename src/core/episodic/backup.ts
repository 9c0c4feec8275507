import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Workspace } from '../store/workspace.js';

/*
 * Episodes, approved rules and human feedback cannot be rebuilt from the
 * sources, so the whole database can be copied before anything destructive
 * touches their tables (`tenure episodes backup`). VACUUM INTO takes a
 * consistent snapshot while readers and writers carry on.
 */

const BACKUP_DIR = 'backups';

/** Copies the database to `backups/` next to it; returns the copy's path. */
export async function backupDatabase(ws: Workspace, reason: string, now = Date.now()): Promise<string> {
  const dir = path.join(path.dirname(ws.db.file), BACKUP_DIR);
  fs.mkdirSync(dir, { recursive: true });
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
  const file = path.join(dir, `memory-${stamp}-${reason.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 40)}.db`);
  await ws.db.run('VACUUM INTO ?', [file]);
  return file;
}
