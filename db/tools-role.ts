import { createHmac } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { TIME_FORMAT_SESSION } from './pool';

/**
 * The identity SQL tools run as (D20): a LOGIN role of its own, never the engine's. It can read
 * the business schema and nothing else, is a member of no role (so `RESET ROLE` or
 * `set_config('role', …)` gain it nothing), cannot take advisory locks (migration 0005), and carries
 * server-side limits on the role itself (read-only transactions, timeouts, temp file cap) as a
 * backstop for the per-transaction ones the executor sets.
 *
 * Its password is derived from the engine's own (HMAC), so `migrate` and every worker compute the
 * same one without storing it anywhere the tools role could read, and without a user setting. On
 * a trust-auth server (no password in DATABASE_URL) it has none. TOOLS_DATABASE_URL overrides it
 * all (docker-compose creates the role with its own password): with it set, `migrate` still makes the
 * role safe but never sets its password, which is the operator's.
 */
export const TOOLS_ROLE = 'convengine_tools_ro';

/** Server-side limits on the role: a backstop; the executor sets tighter ones per transaction. */
const ROLE_SETTINGS: Readonly<Record<string, string>> = {
  search_path: 'business',
  // The time formats the executor also pins per query, so tool SQL reads the same under the database's defaults.
  ...TIME_FORMAT_SESSION,
  default_transaction_read_only: 'on',
  statement_timeout: '60s',
  lock_timeout: '5s',
  idle_in_transaction_session_timeout: '60s',
};
/** Only a superuser may set these on a role. */
const SUPERUSER_ROLE_SETTINGS: Readonly<Record<string, string>> = { temp_file_limit: '256MB' };

export class ToolsRoleError extends Error {
  readonly type = 'TOOLS_ROLE_UNSAFE';
}

function enginePassword(databaseUrl: string): string | null {
  const password = new URL(databaseUrl).password;
  return password === '' ? null : decodeURIComponent(password);
}

/** The tools role's password for this engine login, or null on a server that needs none. */
export function toolsRolePassword(databaseUrl: string): string | null {
  const engine = enginePassword(databaseUrl);
  if (engine === null) return null;
  return createHmac('sha256', engine).update(`convengine tools role ${TOOLS_ROLE}`).digest('hex');
}

/** The engine's URL with the tools role's login: same server and database. */
export function toolsDatabaseUrl(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  const password = toolsRolePassword(databaseUrl);
  url.username = TOOLS_ROLE;
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

async function memberships(client: PoolClient): Promise<string[]> {
  const { rows } = await client.query<{ rolname: string }>(
    `SELECT g.rolname FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid
      JOIN pg_roles r ON r.oid = m.member WHERE r.rolname = $1`,
    [TOOLS_ROLE]
  );
  return rows.map((r) => r.rolname);
}

async function harden(client: PoolClient, privileges: Privileges, password: string | null): Promise<void> {
  const role = client.escapeIdentifier(TOOLS_ROLE);
  if (privileges.superuser) {
    await client.query(
      `ALTER ROLE ${role} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT CONNECTION LIMIT 64`
    );
  }
  if (password !== null) await client.query(`ALTER ROLE ${role} PASSWORD ${client.escapeLiteral(password)}`);
  for (const group of await memberships(client)) {
    await client.query(`REVOKE ${client.escapeIdentifier(group)} FROM ${role}`);
  }
  const settings = { ...ROLE_SETTINGS, ...(privileges.superuser ? SUPERUSER_ROLE_SETTINGS : {}) };
  for (const [name, value] of Object.entries(settings)) {
    await client.query(`ALTER ROLE ${role} SET ${name} = ${client.escapeLiteral(value)}`);
  }
}

/** Without the right to change the role, refuse to run on one that would give tool SQL more than reads. */
async function verify(client: PoolClient): Promise<void> {
  const { rows } = await client.query<{ rolsuper: boolean; rolbypassrls: boolean; rolcreaterole: boolean }>(
    'SELECT rolsuper, rolbypassrls, rolcreaterole FROM pg_roles WHERE rolname = $1',
    [TOOLS_ROLE]
  );
  const row = rows[0];
  const groups = await memberships(client);
  if (!row || row.rolsuper || row.rolbypassrls || row.rolcreaterole || groups.length > 0) {
    throw new ToolsRoleError(
      `Role ${TOOLS_ROLE} must be a plain login that belongs to no role (found: ${
        row ? JSON.stringify({ ...row, memberOf: groups }) : 'missing'
      }); run \`convengine migrate\` as a superuser, or fix the role by hand.`
    );
  }
}

/** Whose password the tools role has: derived from the engine's (`migrate` sets it), or the operator's own. */
export interface ToolsRolePasswordSource {
  /** The engine's connection string, whose password the role's is derived from. */
  databaseUrl: string | null;
  /** TOOLS_DATABASE_URL is set: the operator gave the role its password (docker-compose), which stays. */
  toolsDatabaseUrlSet: boolean;
}

/**
 * Creates nothing (migration 0004 creates the role); makes it safe and, unless TOOLS_DATABASE_URL is
 * set, sets its derived password when the engine may; else checks that it is safe. Making it safe
 * never changes its login (LOGIN stays, the password is not touched). Runs on every `migrate`, so an
 * existing database is brought up to date and keeps its data.
 */
export async function ensureToolsRole(client: PoolClient, source: ToolsRolePasswordSource): Promise<void> {
  const privileges = await privilegesOf(client);
  if (privileges.superuser || privileges.createRole) {
    const { databaseUrl, toolsDatabaseUrlSet } = source;
    await harden(
      client,
      privileges,
      toolsDatabaseUrlSet || databaseUrl === null ? null : toolsRolePassword(databaseUrl)
    );
  }
  await verify(client);
}

/** The connection string a pg pool was built with (the engine's DATABASE_URL), if any. */
export function connectionStringOf(pool: Pool): string | null {
  const value = (pool.options as { connectionString?: unknown }).connectionString;
  return typeof value === 'string' ? value : null;
}
