import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TeamError } from './errors.js';

/*
 * Where a workspace's team connection is kept: in the user's configuration
 * folder, one file per workspace, never inside the repository (a clone must
 * not be able to point Tenure at a server of its choosing, and nothing a
 * `git add -A` could pick up holds a secret). The URL is stored without its
 * password; the password comes from the environment, a pgpass file or the
 * editor's secret storage at connect time.
 */

export interface TeamConnection {
  /** postgresql://user@host:port/db?sslmode=…, never with a password. */
  readonly url: string;
  readonly repositoryId: number;
  readonly rootCommit: string;
  readonly remote: string | null;
  /** This clone's id in the team store: rows it pushed are not pulled back. */
  readonly clone: string;
  readonly connectedAt: number;
}

/** Environment variables read, in order: a URL for CI (no file there), and passwords. */
export const URL_ENV = 'TENURE_TEAM_URL';
export const PASSWORD_ENVS = ['TENURE_TEAM_PASSWORD', 'PGPASSWORD'] as const;

/** The folder of per-workspace connection files: TENURE_CONFIG_HOME, else $XDG_CONFIG_HOME/tenure, else ~/.config/tenure. */
export function configHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env['TENURE_CONFIG_HOME']) return env['TENURE_CONFIG_HOME'];
  const xdg = env['XDG_CONFIG_HOME'] || path.join(os.homedir(), '.config');
  return path.join(xdg, 'tenure');
}

function workspaceKey(root: string): string {
  let real = path.resolve(root);
  try {
    real = fs.realpathSync(real);
  } catch {
    /* not there yet: the path as given */
  }
  return createHash('sha256').update(real).digest('hex').slice(0, 24);
}

export function connectionFile(root: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(configHome(env), 'team', `${workspaceKey(root)}.json`);
}

/** The URL with any password taken out, and whether there was one. */
export function withoutPassword(url: string): { url: string; hadPassword: boolean } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new TeamError('invalid', `"${redact(url)}" is not a PostgreSQL URL. Use postgresql://user@host:5432/database?sslmode=verify-full`);
  }
  if (u.protocol !== 'postgresql:' && u.protocol !== 'postgres:') {
    throw new TeamError('invalid', `"${redact(url)}" is not a PostgreSQL URL (it starts with ${u.protocol}). Use postgresql://user@host:5432/database`);
  }
  const hadPassword = u.password !== '';
  u.password = '';
  return { url: u.toString(), hadPassword };
}

/** For messages: a URL with its password replaced. */
export function redact(url: string): string {
  return url.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');
}

export function readConnection(root: string, env: NodeJS.ProcessEnv = process.env): TeamConnection | undefined {
  const file = connectionFile(root, env);
  if (!fs.existsSync(file)) return undefined;
  try {
    const c = JSON.parse(fs.readFileSync(file, 'utf8')) as TeamConnection;
    if (typeof c.url === 'string' && typeof c.repositoryId === 'number' && typeof c.clone === 'string') return c;
  } catch {
    /* a damaged file reads as no connection; `team connect` writes a new one */
  }
  return undefined;
}

export function writeConnection(root: string, c: TeamConnection, env: NodeJS.ProcessEnv = process.env): string {
  const file = connectionFile(root, env);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify({ ...c, root: path.resolve(root) }, null, 2) + '\n', { mode: 0o600 });
  fs.renameSync(tmp, file);
  return file;
}

export function removeConnection(root: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const file = connectionFile(root, env);
  if (!fs.existsSync(file)) return false;
  fs.rmSync(file);
  return true;
}

/** How a password is found when the URL has none: an editor's secret storage supplies `secret`. */
export interface PasswordSources {
  readonly env?: NodeJS.ProcessEnv;
  readonly secret?: () => Promise<string | undefined>;
}

/*
 * The pgpass format libpq reads (one `host:port:database:user:password` a
 * line, `*` matching anything, `\` escaping `:` and `\`), from PGPASSFILE or
 * ~/.pgpass; libpq ignores a file others can read, and so does this.
 */
function pgpassFields(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === '\\' && i + 1 < line.length) cur += line[++i];
    else if (ch === ':' && out.length < 4) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

export function pgpassPassword(target: { host: string; port: string; database: string; user: string }, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const file = env['PGPASSFILE'] || path.join(os.homedir(), '.pgpass');
  let text: string;
  try {
    const st = fs.statSync(file);
    if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) return undefined;
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  for (const raw of text.split(/\r?\n/)) {
    if (!raw.trim() || raw.startsWith('#')) continue;
    const f = pgpassFields(raw);
    if (f.length !== 5) continue;
    const want = [target.host, target.port, target.database, target.user];
    if (want.every((w, i) => f[i] === '*' || f[i] === w)) return f[4];
  }
  return undefined;
}

/** The password for a URL: TENURE_TEAM_PASSWORD, PGPASSWORD, the secret store, then pgpass; undefined lets the server decide (trust, certificates). */
export async function resolvePassword(url: string, sources: PasswordSources = {}): Promise<string | undefined> {
  const env = sources.env ?? process.env;
  for (const name of PASSWORD_ENVS) if (env[name]) return env[name];
  const secret = await sources.secret?.();
  if (secret) return secret;
  const u = new URL(url);
  return pgpassPassword(
    { host: u.hostname || 'localhost', port: u.port || '5432', database: decodeURIComponent(u.pathname.replace(/^\//, '')) || decodeURIComponent(u.username), user: decodeURIComponent(u.username) || os.userInfo().username },
    env,
  );
}
