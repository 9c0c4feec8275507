/**
 * Team-store failures, matched by `reason`, never by message text. Every
 * message says what to do next. `unreachable` is the one local work
 * continues through: the memories keep working on SQLite and a later sync
 * catches up.
 */
export type TeamErrorReason =
  | 'not-connected' // no connection configured for this workspace
  | 'unreachable' // the server did not answer (down, network, DNS, TLS handshake)
  | 'auth' // the server refused the login (password, pg_hba, certificate)
  | 'denied' // the login has no (or too little) access to this repository
  | 'not-registered' // the repository is not in the team store yet
  | 'schema' // the team store's tables are missing or from another Tenure version
  | 'no-repository' // the workspace is not a git repository with a commit
  | 'restricted' // VS Code's restricted mode: nothing is synced
  | 'invalid'; // a bad URL, role name or access level

export class TeamError extends Error {
  override readonly name = 'TeamError';
  constructor(
    readonly reason: TeamErrorReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  static is(value: unknown, reason?: TeamErrorReason): value is TeamError {
    return value instanceof TeamError && (reason === undefined || value.reason === reason);
  }
}

/** PostgreSQL's SQLSTATE of a failed query, when there is one. */
export function sqlState(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** Node's network error codes that mean "no server there" rather than "the server said no". */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'ECONNABORTED']);

/** Classifies a driver error once, so callers match on reasons. */
export function classifyPgError(e: unknown, what: string): TeamError {
  if (TeamError.is(e)) return e;
  const msg = e instanceof Error ? e.message : String(e);
  const code = (e as { code?: unknown } | null)?.code;
  const state = sqlState(e);
  if (typeof code === 'string' && UNREACHABLE.has(code)) {
    return new TeamError('unreachable', `The team store is unreachable (${code}) while ${what}. Local work continues; \`tenure team sync\` catches up once it answers.`, { cause: e });
  }
  if (/timeout|Connection terminated|connect ECONN|self[- ]signed|certificate|hostname|SSL|ssl/i.test(msg) && !state) {
    const tls = /certificate|hostname|SSL|ssl|self[- ]signed/i.test(msg);
    return new TeamError(
      tls ? 'auth' : 'unreachable',
      tls
        ? `The team store's TLS certificate was not accepted while ${what}: ${msg}. With sslmode=verify-full, pass the CA with sslrootcert=<file> and connect to the host name the certificate names.`
        : `The team store did not answer while ${what} (${msg}). Local work continues; \`tenure team sync\` catches up once it answers.`,
      { cause: e },
    );
  }
  if (state === '28P01' || state === '28000') {
    return new TeamError('auth', `The team store refused the login while ${what}: ${msg}. Give the password with PGPASSWORD or TENURE_TEAM_PASSWORD, a pgpass file, or (in VS Code) the stored secret.`, { cause: e });
  }
  if (state === '42501') return new TeamError('denied', `The team store refused this while ${what}: ${msg}. Ask a repository admin for access (\`tenure team grant <role> read|write|admin\`).`, { cause: e });
  if (state === '3F000' || state === '42P01' || state === '42883') {
    return new TeamError('schema', `The team store's tables are missing while ${what} (${msg}). A database admin runs \`tenure team setup <postgresql-url>\` once.`, { cause: e });
  }
  if (state && state.startsWith('08')) return new TeamError('unreachable', `The connection to the team store broke while ${what} (${msg}). Local work continues; a later sync catches up.`, { cause: e });
  if (state === '57P01' || state === '57P02' || state === '57P03') return new TeamError('unreachable', `The team store is shutting down or starting while ${what} (${msg}). A later sync catches up.`, { cause: e });
  return new TeamError('invalid', `The team store failed while ${what}: ${msg}`, { cause: e });
}
