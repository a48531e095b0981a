import { createHmac } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import {
  grantToolsRole,
  previousRolesOf,
  refuseAnotherDatabasesRole,
  type PreviousToolsRoles,
} from './tools-role-grants';
import { databaseNameOf, loginRoleOf, toolsRoleOf, ToolsRoleError } from './tools-role-names';
import { applyRoleSettings } from './tools-role-settings';

export { LEGACY_TOOLS_ROLE, toolsRoleOf, ToolsRoleError } from './tools-role-names';

/**
 * The identity SQL tools run as (D20): a LOGIN role of its own, never the engine's, and one per database
 * (`convengine_tools_ro_<database>`, db/tools-role-names.ts): a role is the cluster's, and a shared one let two
 * deployments on one server reset each other's password and read each other's business data. It can read the
 * business schema and nothing else, is a member of no role (so `RESET ROLE` or `set_config('role', …)` gain it
 * nothing), cannot take advisory locks (migration 0005), and carries server-side limits on the role itself
 * (read-only transactions, timeouts, temp file cap) as a backstop for the per-transaction ones the executor sets.
 *
 * Its password is derived from the engine's own (HMAC) and the role's name, so `migrate` and every worker compute
 * the same one without storing it anywhere the tools role could read, and without a user setting. On a trust-auth
 * server (no password in DATABASE_URL) it has none. TOOLS_DATABASE_URL overrides it all (docker-compose creates the
 * role with its own password): its login is then the tools role, and `migrate` still makes that role safe but never
 * sets its password, which is the operator's.
 */

function enginePassword(databaseUrl: string): string | null {
  const password = new URL(databaseUrl).password;
  return password === '' ? null : decodeURIComponent(password);
}

/** The tools role's password for this engine login, or null on a server that needs none. */
export function toolsRolePassword(databaseUrl: string, role = toolsRoleOf(databaseNameOf(databaseUrl))): string | null {
  const engine = enginePassword(databaseUrl);
  if (engine === null) return null;
  return createHmac('sha256', engine).update(`convengine tools role ${role}`).digest('hex');
}

/** The engine's URL with the tools role's login: same server and database, that database's own role. */
export function toolsDatabaseUrl(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  const password = toolsRolePassword(databaseUrl);
  url.username = toolsRoleOf(databaseNameOf(databaseUrl));
  url.password = password ?? '';
  return url.toString();
}

/** The login SQL tools use: TOOLS_DATABASE_URL (`configured`), else the derived one (toolsDatabaseUrl). */
export interface ToolsLogin {
  url: string;
  configured: boolean;
}

export function toolsLoginOf(toolsDatabaseUrlSetting: string | undefined, databaseUrl: string): ToolsLogin {
  return toolsDatabaseUrlSetting === undefined
    ? { url: toolsDatabaseUrl(databaseUrl), configured: false }
    : { url: toolsDatabaseUrlSetting, configured: true };
}

interface Privileges {
  superuser: boolean;
  createRole: boolean;
}

async function privilegesOf(client: PoolClient): Promise<Privileges> {
  const { rows } = await client.query<{ rolsuper: boolean; rolcreaterole: boolean }>(
    'SELECT rolsuper, rolcreaterole FROM pg_roles WHERE rolname = current_user'
  );
  return { superuser: rows[0]?.rolsuper ?? false, createRole: rows[0]?.rolcreaterole ?? false };
}

async function memberships(client: PoolClient, role: string): Promise<string[]> {
  const { rows } = await client.query<{ rolname: string }>(
    `SELECT g.rolname FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid
      JOIN pg_roles r ON r.oid = m.member WHERE r.rolname = $1`,
    [role]
  );
  return rows.map((r) => r.rolname);
}

async function createIfMissing(client: PoolClient, role: string): Promise<void> {
  const { rowCount } = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
  if (rowCount === 0) await client.query(`CREATE ROLE ${client.escapeIdentifier(role)} LOGIN NOINHERIT`);
}

async function harden(client: PoolClient, privileges: Privileges, target: ToolsRoleTarget): Promise<string[]> {
  const role = client.escapeIdentifier(target.role);
  if (privileges.superuser) {
    await client.query(
      `ALTER ROLE ${role} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT CONNECTION LIMIT 64`
    );
  }
  if (target.password !== null) {
    await client.query(`ALTER ROLE ${role} PASSWORD ${client.escapeLiteral(target.password)}`);
  }
  for (const group of await memberships(client, target.role)) {
    await client.query(`REVOKE ${client.escapeIdentifier(group)} FROM ${role}`);
  }
  return applyRoleSettings(client, target.role, privileges.superuser, target.previous.moved);
}

/** Without the right to change the role, refuse to run on one that would give tool SQL more than reads. */
async function verify(client: PoolClient, role: string): Promise<void> {
  const { rows } = await client.query<{ rolsuper: boolean; rolbypassrls: boolean; rolcreaterole: boolean }>(
    'SELECT rolsuper, rolbypassrls, rolcreaterole FROM pg_roles WHERE rolname = $1',
    [role]
  );
  const row = rows[0];
  const groups = await memberships(client, role);
  if (!row || row.rolsuper || row.rolbypassrls || row.rolcreaterole || groups.length > 0) {
    throw new ToolsRoleError(
      `Role ${role} must be a plain login that belongs to no role (found: ${
        row ? JSON.stringify({ ...row, memberOf: groups }) : 'missing'
      }); run \`convengine migrate\` as a superuser or a role with CREATEROLE, or create and fix the role by hand.`
    );
  }
}

/** Which role the SQL tools log in as, and whose password it has: derived from the engine's, or the operator's. */
export interface ToolsRoleSource {
  /** The engine's connection string, whose password the role's is derived from. */
  databaseUrl: string | null;
  /** TOOLS_DATABASE_URL when set: its login is the tools role, with the operator's password (docker-compose), which stays. */
  toolsDatabaseUrl?: string | undefined;
  /**
   * The tools roles that held privileges here before this `migrate` applied its migrations (toolsRolesHere); unset,
   * every role the tools move off is said to be moved.
   */
  heldBefore?: readonly string[] | undefined;
}

interface ToolsRoleTarget {
  role: string;
  /** The password to give it, null to leave it alone. */
  password: string | null;
  /** The ConvEngine tools roles this database's tools move off (db/tools-role-grants.ts). */
  previous: PreviousToolsRoles;
}

/** What `migrate` did to the tools role: its name, and what an operator should hear of it. */
export interface ToolsRoleReport {
  role: string;
  notes: string[];
}

type Queryable = Pick<PoolClient, 'query'>;

/** The SQL tools' role of this database: TOOLS_DATABASE_URL's login, else `convengine_tools_ro_<database>`. */
async function toolsRoleHere(client: Queryable, toolsDatabaseUrl: string | undefined): Promise<string> {
  if (toolsDatabaseUrl !== undefined) return loginRoleOf(toolsDatabaseUrl);
  const { rows } = await client.query<{ name: string }>('SELECT current_database() AS name');
  return toolsRoleOf(rows[0]?.name ?? '');
}

/**
 * Why `migrate` cannot go on as DATABASE_URL's login, before it changes anything: the SQL tools' role does not exist
 * and the login may not create it (neither SUPERUSER nor CREATEROLE); null when it can. A role a DBA created is
 * used as it is, so then no CREATEROLE is needed.
 */
export async function toolsRoleCreationRefusal(
  client: Queryable,
  toolsDatabaseUrl: string | undefined
): Promise<string | null> {
  const role = await toolsRoleHere(client, toolsDatabaseUrl);
  const { rows } = await client.query<{ login: string; exists: boolean; creates: boolean }>(
    `SELECT current_user AS login, EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1) AS exists,
            (SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user) AS creates`,
    [role]
  );
  const row = rows[0];
  if (row === undefined || row.exists || row.creates) return null;
  const created =
    toolsDatabaseUrl === undefined
      ? `or have a DBA create it (CREATE ROLE ${role} LOGIN NOINHERIT PASSWORD '…') and set TOOLS_DATABASE_URL to its login`
      : "or have a DBA create it (CREATE ROLE … LOGIN NOINHERIT) with TOOLS_DATABASE_URL's password";
  return (
    `the SQL tools' role ${role} does not exist and DATABASE_URL's role ${row.login} may not create it (it has ` +
    `neither CREATEROLE nor SUPERUSER): grant it CREATEROLE (ALTER ROLE ${row.login} CREATEROLE), ${created}; ` +
    'migrate then uses the role as it is (docs/security.md, section 4)'
  );
}

async function targetOf(client: PoolClient, source: ToolsRoleSource): Promise<ToolsRoleTarget> {
  const { databaseUrl, toolsDatabaseUrl } = source;
  const role = await toolsRoleHere(client, toolsDatabaseUrl);
  const password = toolsDatabaseUrl !== undefined || databaseUrl === null ? null : toolsRolePassword(databaseUrl, role);
  const previous = await previousRolesOf(client, role);
  const moved = previous.filter((r) => source.heldBefore?.includes(r) ?? true);
  return { role, password, previous: { previous, moved } };
}

/**
 * Makes this database's SQL tools role (TOOLS_DATABASE_URL's login, else `convengine_tools_ro_<database>`) safe and
 * able to read the business schema, in one transaction: creates it and, unless TOOLS_DATABASE_URL is set, sets its
 * derived password when the engine may; else checks that it is safe. Moves the privileges of the role the tools used
 * before (the shared `convengine_tools_ro` of older builds) to it. Refuses a role that holds privileges in another
 * database. Making it safe never changes its login (LOGIN stays, the password is not touched). Runs on every
 * `migrate`, so an existing database is brought up to date and keeps its data.
 */
export async function ensureToolsRole(client: PoolClient, source: ToolsRoleSource): Promise<ToolsRoleReport> {
  await client.query('BEGIN');
  try {
    const target = await targetOf(client, source);
    await refuseAnotherDatabasesRole(client, target.role, source.toolsDatabaseUrl !== undefined);
    const privileges = await privilegesOf(client);
    const notes: string[] = [];
    if (privileges.superuser || privileges.createRole) {
      await createIfMissing(client, target.role);
      notes.push(...(await harden(client, privileges, target)));
    }
    await verify(client, target.role);
    notes.push(...(await grantToolsRole(client, target.role, target.previous)));
    await client.query('COMMIT');
    return { role: target.role, notes };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/** The connection string a pg pool was built with (the engine's DATABASE_URL), if any. */
export function connectionStringOf(pool: Pool): string | null {
  const value = (pool.options as { connectionString?: unknown }).connectionString;
  return typeof value === 'string' ? value : null;
}
