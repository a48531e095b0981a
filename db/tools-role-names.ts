import { createHash } from 'node:crypto';

/**
 * The one cluster-wide role every database's SQL tools logged in as before the role was per database. A role is
 * the cluster's, not the database's: two deployments on one server shared it, so each `migrate` reset the other's
 * password and the role could read both databases. `migrate` moves a database off it (db/tools-role-grants.ts).
 */
export const LEGACY_TOOLS_ROLE = 'convengine_tools_ro';

/** What every tools role `migrate` names begins with: how it tells another database's tools role (or the legacy one). */
export const TOOLS_ROLE_PREFIX = `${LEGACY_TOOLS_ROLE}_`;

/** PostgreSQL's NAMEDATALEN - 1: a longer role name is cut, so two long names could become one role. */
const MAX_NAME_BYTES = 63;
const HASH_CHARS = 10;

export class ToolsRoleError extends Error {
  readonly type = 'TOOLS_ROLE_UNSAFE';
}

/**
 * The SQL tools' role of database `database`: `convengine_tools_ro_<database>`, or, for a name that is not plain
 * lower-case or would not fit in 63 bytes, a readable part of it and a hash of the whole name, so two databases
 * never share a role by being cut to the same name.
 */
export function toolsRoleOf(database: string): string {
  const plain = `${TOOLS_ROLE_PREFIX}${database}`;
  if (/^[a-z0-9_]+$/.test(database) && Buffer.byteLength(plain) <= MAX_NAME_BYTES) return plain;
  const hash = createHash('sha256').update(database).digest('hex').slice(0, HASH_CHARS);
  const room = MAX_NAME_BYTES - TOOLS_ROLE_PREFIX.length - 1 - HASH_CHARS;
  const readable = database
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .slice(0, room);
  return `${TOOLS_ROLE_PREFIX}${readable}_${hash}`;
}

/** The database a connection string names; PostgreSQL's default is the login's own name. */
export function databaseNameOf(connectionString: string): string {
  const url = new URL(connectionString);
  const named = url.pathname.length > 1 ? url.pathname.slice(1) : url.username;
  return decodeURIComponent(named);
}

/** The role a connection string logs in as (TOOLS_DATABASE_URL's), or a ToolsRoleError when it names none. */
export function loginRoleOf(connectionString: string): string {
  const role = decodeURIComponent(new URL(connectionString).username);
  if (role === '')
    throw new ToolsRoleError('TOOLS_DATABASE_URL names no role: give it the SQL tools role to log in as');
  return role;
}
