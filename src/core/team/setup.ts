import type { TeamDb } from './pg.js';
import { GRANTS_SQL, ROLES_SQL, TEAM_MIGRATIONS } from './schema.js';

/*
 * `tenure team setup`: makes (or brings up to date) the team store in one
 * database, as a role that may create roles and schemas (a superuser, or a
 * CREATEROLE role with CREATE on the database). Idempotent: run it again
 * after upgrading Tenure to apply new migrations. Objects are owned by the
 * NOLOGIN role tenure_owner, so no person's login bypasses row-level
 * security by owning a table.
 */

export interface SetupReport {
  readonly applied: readonly string[];
  readonly admins: readonly string[];
}

export async function setupTeamStore(db: TeamDb, options: { admins?: readonly string[] } = {}): Promise<SetupReport> {
  const applied: string[] = [];
  await db.tx(async (q) => {
    await q(ROLES_SQL);
    // The owner grants membership from its definer functions (tenure.grant_access); admins are members too.
    await q('GRANT tenure_member TO tenure_owner WITH ADMIN OPTION');
    await q('GRANT tenure_member TO tenure_admin');
    await q(`DO $$ BEGIN IF NOT pg_has_role(current_user, 'tenure_owner', 'MEMBER') THEN EXECUTE format('GRANT tenure_owner TO %I', current_user); END IF; END $$`);
    await q('CREATE SCHEMA IF NOT EXISTS tenure AUTHORIZATION tenure_owner');
    await q('SET LOCAL ROLE tenure_owner');
    await q('CREATE TABLE IF NOT EXISTS tenure.schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    // One setup at a time: a second waits here, then finds the migrations applied.
    await q('LOCK TABLE tenure.schema_migrations IN EXCLUSIVE MODE');
    const done = new Set((await q<{ id: string }>('SELECT id FROM tenure.schema_migrations')).map((r) => r.id));
    for (const m of TEAM_MIGRATIONS) {
      if (done.has(m.id)) continue;
      await q(m.sql);
      await q('INSERT INTO tenure.schema_migrations (id) VALUES ($1)', [m.id]);
      applied.push(m.id);
    }
    await q(GRANTS_SQL);
    await q('GRANT SELECT ON tenure.schema_migrations TO tenure_member');
    await q('RESET ROLE');
    for (const admin of options.admins ?? []) await q(`GRANT tenure_admin TO ${quoteIdent(admin)}`);
  }, 'setting up the team store');
  return { applied, admins: options.admins ?? [] };
}

/** A role name as an SQL identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
