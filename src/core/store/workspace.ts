import * as fs from 'node:fs';
import * as path from 'node:path';
import { TenureError } from '../../shared/errors.js';
import { Db } from './db.js';
import type { Migration } from './migrations.js';

export const TENURE_DIR = '.tenure';
export const DB_FILE = 'memory.db';

export interface WorkspaceOptions {
  /** Every memory's tables, in order (src/core/workspace.ts). */
  readonly schema: readonly Migration[];
  /** Fail with `not-indexed` instead of creating a database where there is none. */
  readonly readonly?: boolean;
}

/**
 * One repository's memories: its root folder and its `.tenure/memory.db`,
 * shared by the extension, the CLI and the MCP server. Front doors open it
 * through `openWorkspace` (src/core/workspace.ts), which knows every memory's
 * schema; the memories receive it open.
 */
export class Workspace {
  private constructor(
    readonly root: string,
    readonly db: Db,
    /** The schema it was opened with: a second connection (the indexer's thread) opens the same. */
    readonly schema: readonly Migration[],
  ) {}

  static dbPath(root: string): string {
    return path.join(root, TENURE_DIR, DB_FILE);
  }

  static async open(root: string, options: WorkspaceOptions): Promise<Workspace> {
    const abs = path.resolve(root);
    const dir = path.join(abs, TENURE_DIR);
    refuseLinkedStore(dir);
    if (!options.readonly) {
      fs.mkdirSync(dir, { recursive: true });
      // The database is derived or personal: never committed by accident.
      const ignore = path.join(dir, '.gitignore');
      if (!fs.existsSync(ignore)) fs.writeFileSync(ignore, '*\n');
    }
    if (options.readonly && !fs.existsSync(Workspace.dbPath(abs))) {
      throw new TenureError('not-indexed', `Tenure has not indexed ${abs} yet. Run \`tenure index\` there first (or pass --cwd <workspace root>).`);
    }
    // Opened read-write even for queries: a database written by an older Tenure gets its
    // pending migrations before anything reads the new columns. `readonly` here means
    // "do not create a memory that does not exist yet".
    const db = await Db.open(Workspace.dbPath(abs), { migrations: options.schema });
    return new Workspace(abs, db, options.schema);
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

/**
 * The database lives inside the workspace it describes. A `.tenure` that is a
 * symlink (or not a folder) would put it — and everything Tenure writes —
 * wherever the repository's author pointed it: refused, with what to do.
 */
function refuseLinkedStore(dir: string): void {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(dir);
  } catch {
    return; // not there yet: created as a real folder
  }
  if (st.isSymbolicLink() || !st.isDirectory()) {
    throw new TenureError(
      'store-unavailable',
      `${dir} is ${st.isSymbolicLink() ? 'a symlink' : 'not a folder'}: Tenure keeps its database in a real folder inside the workspace and will not follow it. Remove it (it is not part of the repository's sources) and run \`tenure index\` again.`,
    );
  }
}
