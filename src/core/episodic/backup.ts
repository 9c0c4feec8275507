import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Db } from '../store/db.js';
import type { Workspace } from '../store/workspace.js';
import { TENURE_DIR } from '../store/workspace.js';

/*
 * Episodes, approved rules and human feedback cannot be rebuilt from the
 * sources. Before anything destructive touches their tables (a migration
 * that drops or rewrites a column, a manual purge), the whole database is
 * copied with VACUUM INTO: a consistent snapshot taken while readers and
 * writers carry on.
 */

export const BACKUP_DIR = 'backups';

/**
 * Copies the database to `backups/` next to it. Takes a Db so the migration
 * runner (which has no Workspace) can call it before a destructive migration.
 */
export async function backupDb(db: Db, reason: string, now = Date.now()): Promise<string> {
  const dir = path.join(path.dirname(db.file), BACKUP_DIR);
  fs.mkdirSync(dir, { recursive: true });
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
  const file = path.join(dir, `memory-${stamp}-${reason.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 40)}.db`);
  await db.run('VACUUM INTO ?', [file]);
  return file;
}

export function backupDatabase(ws: Workspace, reason: string, now = Date.now()): Promise<string> {
  return backupDb(ws.db, reason, now);
}

/** Backups on disk, newest first. */
export function listBackups(root: string): { file: string; bytes: number; at: number }[] {
  const dir = path.join(root, TENURE_DIR, BACKUP_DIR);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.db'))
    .map((f) => {
      const st = fs.statSync(path.join(dir, f));
      return { file: path.join(dir, f), bytes: st.size, at: st.mtimeMs };
    })
    .sort((a, b) => b.at - a.at);
}
