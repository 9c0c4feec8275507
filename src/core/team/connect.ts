import type { Workspace } from '../store/workspace.js';
import { removeConnection, withoutPassword, writeConnection, type PasswordSources } from './config.js';
import { TeamError } from './errors.js';
import { repositoryIdentity } from './identity.js';
import { TeamDb, type TeamDbOptions } from './pg.js';
import { TeamStore } from './store.js';
import { cloneId } from './sync.js';

/*
 * `tenure team connect <url>`: finds this repository in the team store (by
 * its first commit), registers it when asked and allowed (members of
 * tenure_admin), adds this clone's remote as an alias (forks and mirrors of
 * one repository meet), and keeps the connection in the user's
 * configuration — the URL without its password.
 */

export interface ConnectReport {
  readonly file: string;
  readonly url: string;
  readonly repository: { readonly id: number; readonly name: string; readonly registered: boolean };
  readonly access: string;
  readonly ci: boolean;
  readonly user: string;
  /** The URL given carried a password: it was not stored. */
  readonly passwordDropped: boolean;
  readonly vectors: 'installed' | 'available' | 'absent';
}

export async function connectWorkspace(ws: Workspace, url: string, options: PasswordSources & TeamDbOptions & { register?: boolean } = {}): Promise<ConnectReport> {
  const clean = withoutPassword(url);
  const identity = await repositoryIdentity(ws.root);
  // The password in the URL serves this connection only; it is never written down.
  const db = TeamDb.open(url, options);
  try {
    const store = new TeamStore(db);
    await store.checkSchema();
    let repo = await store.findRepository(identity.rootCommit);
    let registered = false;
    if (!repo && options.register) {
      await store.registerRepository(identity.rootCommit, identity.remote);
      registered = true;
      repo = await store.findRepository(identity.rootCommit);
    }
    if (!repo) {
      throw new TeamError('not-registered', `This repository (first commit ${identity.rootCommit.slice(0, 12)}${identity.remote ? `, ${identity.remote}` : ''}) is not in the team store. A member of tenure_admin runs \`tenure team connect <url> --register\` once.`);
    }
    if (!repo.access) throw new TeamError('denied', `This login has no access to ${repo.name}. Ask one of its admins to run \`tenure team grant <your role> read|write\`.`);
    if (!registered && identity.remote && repo.access !== 'read') await store.registerRepository(identity.rootCommit, identity.remote);
    const user = await store.whoami();
    const vectors = await store.vectorSupport();
    const clone = await cloneId(ws.db);
    const file = writeConnection(ws.root, { url: clean.url, repositoryId: repo.id, rootCommit: identity.rootCommit, remote: identity.remote, clone, connectedAt: Date.now() }, options.env);
    return { file, url: clean.url, repository: { id: repo.id, name: repo.name, registered }, access: repo.access, ci: repo.ci, user, passwordDropped: clean.hadPassword, vectors };
  } finally {
    await db.close().catch(() => undefined);
  }
}

export function disconnectWorkspace(ws: Workspace, env?: NodeJS.ProcessEnv): boolean {
  return removeConnection(ws.root, env);
}
