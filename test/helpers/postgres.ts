import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/*
 * A real PostgreSQL server for the team store's tests and benchmark: a
 * cluster of its own in a temporary folder, on a free local port, started
 * with the machine's initdb and pg_ctl (Debian's `postgresql` package puts
 * them under /usr/lib/postgresql/<version>/bin) and stopped by its pid.
 * No system cluster is touched. Without PostgreSQL the tests fail loudly,
 * unless TENURE_TEST_NO_POSTGRES says this machine has none; then they are
 * reported as not run, with that reason.
 */

export const NO_POSTGRES_ENV = 'TENURE_TEST_NO_POSTGRES';

export class PostgresMissing extends Error {
  override readonly name = 'PostgresMissing';
}

/** The folder holding initdb, pg_ctl and postgres: TENURE_PG_BIN, else the newest /usr/lib/postgresql/<version>/bin. */
export function findPostgresBin(): string | undefined {
  const explicit = process.env['TENURE_PG_BIN'];
  if (explicit && fs.existsSync(path.join(explicit, 'initdb'))) return explicit;
  const base = '/usr/lib/postgresql';
  if (!fs.existsSync(base)) return undefined;
  const versions = fs
    .readdirSync(base)
    .filter((v) => fs.existsSync(path.join(base, v, 'bin', 'initdb')) && fs.existsSync(path.join(base, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(base, versions[0], 'bin') : undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface PostgresServer {
  readonly port: number;
  readonly host: string;
  /** The superuser the cluster was made with (no password on the local port: trust). */
  readonly superuser: string;
  readonly dataDir: string;
  readonly pid: number;
  /** `postgresql://user[:password]@127.0.0.1:port/db`. */
  url(user?: string, db?: string, password?: string): string;
  /** Runs SQL as the superuser through psql-free means: the caller uses `pg`. */
  stop(): Promise<void>;
  /** Stops the server at once, as a crash would; `start()` brings it back on the same port. */
  kill(): void;
  start(): Promise<void>;
}

export interface StartOptions {
  /** Extra postgresql.conf lines (ssl = on, …). */
  readonly conf?: readonly string[];
  /** Extra pg_hba.conf lines, placed before the default trust lines. */
  readonly hba?: readonly string[];
  /** Files to copy into the data folder before start (server.crt, server.key). */
  readonly files?: Readonly<Record<string, string>>;
}

function run(bin: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): void {
  const r = spawnSync(bin, args, { encoding: 'utf8', env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`${path.basename(bin)} ${args.join(' ')} failed (${r.status ?? r.signal}): ${r.stderr || r.stdout}`);
}

/**
 * Starts a fresh cluster. PostgreSQL refuses to run as root, so when the
 * tests run as root the cluster belongs to `nobody`-like user `postgres`
 * if it exists (Debian's package creates it).
 */
export async function startPostgres(options: StartOptions = {}): Promise<PostgresServer> {
  const bin = findPostgresBin();
  if (!bin) {
    throw new PostgresMissing(
      `PostgreSQL was not found (no initdb and pg_ctl under /usr/lib/postgresql/*/bin, TENURE_PG_BIN unset). Install Debian's \`postgresql\` package (.ci/run does), or set ${NO_POSTGRES_ENV}=1 to run without the team store's tests.`,
    );
  }
  const asRoot = process.getuid?.() === 0;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tenure-pg-'));
  const dataDir = path.join(tmp, 'data');
  const sockDir = path.join(tmp, 'sock');
  fs.mkdirSync(sockDir);
  let uid: number | undefined;
  let gid: number | undefined;
  if (asRoot) {
    const id = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const g = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    if (id.status !== 0) throw new PostgresMissing('The tests run as root and there is no `postgres` user to own a cluster (PostgreSQL will not run as root).');
    uid = Number(id.stdout.trim());
    gid = Number(g.stdout.trim());
    fs.chmodSync(tmp, 0o755);
    fs.chownSync(tmp, uid, gid);
    fs.chownSync(sockDir, uid, gid);
  }
  const superuser = 'tenure_test_admin';
  const asUser = (cmd: string, args: readonly string[]): [string, string[]] =>
    asRoot ? ['setpriv', ['--reuid', String(uid), '--regid', String(gid), '--clear-groups', '--', cmd, ...args]] : [cmd, [...args]];
  const [c1, a1] = asUser(path.join(bin, 'initdb'), ['-D', dataDir, '-U', superuser, '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  run(c1, a1);
  const port = await freePort();
  const conf = [
    `port = ${port}`,
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = '${sockDir}'`,
    'fsync = off',
    'synchronous_commit = off',
    'full_page_writes = off',
    'max_connections = 120',
    'shared_buffers = 128MB',
    ...(options.conf ?? []),
  ];
  fs.appendFileSync(path.join(dataDir, 'postgresql.conf'), `\n${conf.join('\n')}\n`);
  if (options.hba?.length) {
    const hbaFile = path.join(dataDir, 'pg_hba.conf');
    fs.writeFileSync(hbaFile, `${options.hba.join('\n')}\n${fs.readFileSync(hbaFile, 'utf8')}`);
  }
  for (const [name, content] of Object.entries(options.files ?? {})) {
    const f = path.join(dataDir, name);
    fs.writeFileSync(f, content, { mode: 0o600 });
    if (asRoot) fs.chownSync(f, uid!, gid!);
  }
  const logFile = path.join(tmp, 'server.log');
  if (asRoot) {
    fs.writeFileSync(logFile, '');
    fs.chownSync(logFile, uid!, gid!);
  }
  let pid = 0;
  const start = async () => {
    const [c, a] = asUser(path.join(bin, 'pg_ctl'), ['-D', dataDir, '-l', logFile, '-w', '-t', '60', '-o', `-p ${port}`, 'start']);
    try {
      run(c, a);
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').slice(-2000) : ''}`);
    }
    pid = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  };
  await start();
  const server: PostgresServer = {
    port,
    host: '127.0.0.1',
    superuser,
    dataDir,
    get pid() {
      return pid;
    },
    url(user = superuser, db = 'postgres', password?: string) {
      return `postgresql://${encodeURIComponent(user)}${password ? `:${encodeURIComponent(password)}` : ''}@127.0.0.1:${port}/${db}`;
    },
    kill() {
      // Immediate shutdown: every backend quits at once with no checkpoint, as after a crash (the next start recovers).
      // A SIGKILLed postmaster can linger as a zombie where nothing reaps it, and then blocks the restart.
      const [c, a] = asUser(path.join(bin, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
      run(c, a);
    },
    start,
    async stop() {
      if (pid) {
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          /* already gone */
        }
        // The postmaster exits once every backend has; give it a few seconds, then make sure.
        for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
        if (alive(pid)) process.kill(pid, 'SIGKILL');
        // Backends of a killed postmaster exit on their own; wait for the pid file to stop mattering.
        for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
      }
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
  return server;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * For a suite: a server started before it and stopped after it, or — when
 * TENURE_TEST_NO_POSTGRES is set — the suite skipped with the reason
 * printed. Anything else that keeps PostgreSQL from starting fails the suite.
 */
export function withPostgres(suite: Mocha.Suite, options: StartOptions = {}): () => PostgresServer {
  let server: PostgresServer | undefined;
  suite.beforeAll(async function () {
    this.timeout(120_000);
    if (process.env[NO_POSTGRES_ENV]) {
      process.stdout.write(`      (team store tests not run: ${NO_POSTGRES_ENV} says this machine has no PostgreSQL)\n`);
      this.skip();
    }
    server = await startPostgres(options);
  });
  suite.afterAll(async function () {
    this.timeout(60_000);
    await server?.stop();
  });
  return () => {
    if (!server) throw new Error('PostgreSQL is not running');
    return server;
  };
}
