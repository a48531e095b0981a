import type { PoolClient } from 'pg';
import { LEGACY_TOOLS_ROLE, ToolsRoleError } from './tools-role-names';

/** This database's oid, and a role's: what pg_shdepend and the ACLs name. */
const THIS_DATABASE = '(SELECT oid FROM pg_database WHERE datname = current_database())';
const ROLE_OID = '(SELECT oid FROM pg_roles WHERE rolname = $1)';

/**
 * The roles that read the business schema as SQL tools: a SQL snippet of their names, for a table created after
 * `migrate` (seeds, examples) to grant to. Any ConvEngine tools role holding USAGE there; after `migrate` that is
 * this database's own only.
 */
export const BUSINESS_READERS_SQL = `SELECT r.rolname FROM pg_namespace n
  CROSS JOIN LATERAL aclexplode(n.nspacl) a JOIN pg_roles r ON r.oid = a.grantee
  WHERE n.nspname = 'business' AND a.privilege_type = 'USAGE' AND starts_with(r.rolname, '${LEGACY_TOOLS_ROLE}')`;

/**
 * The other databases where `role` holds a privilege or owns something (pg_shdepend records both per database; an
 * explicit CONNECT is recorded on the shared pg_database row): there it is another deployment's login.
 */
async function otherDatabasesOf(client: PoolClient, role: string): Promise<string[]> {
  const { rows } = await client.query<{ datname: string }>(
    `SELECT DISTINCT d.datname FROM pg_shdepend s
       JOIN pg_database d ON d.oid = CASE WHEN s.dbid = 0 AND s.classid = 'pg_database'::regclass THEN s.objid ELSE s.dbid END
      WHERE s.refclassid = 'pg_authid'::regclass AND s.refobjid = ${ROLE_OID} AND d.datname <> current_database()
      ORDER BY 1`,
    [role]
  );
  return rows.map((r) => r.datname);
}

/**
 * Refuses to take over (give a password, grant this database) a role with privileges in another database: it is
 * that deployment's SQL tools' login, and taking it over would break their SQL tools (a new password) or let them
 * read this database (the grants).
 */
export async function refuseAnotherDatabasesRole(client: PoolClient, role: string, configured: boolean): Promise<void> {
  const others = await otherDatabasesOf(client, role);
  if (others.length === 0) return;
  const fix = configured
    ? "point TOOLS_DATABASE_URL at a role of this database's own"
    : "or set TOOLS_DATABASE_URL to a role of this database's own";
  throw new ToolsRoleError(
    `the SQL tools' role ${role} holds privileges in database ${others.map((d) => `"${d}"`).join(', ')} too: ` +
      "another deployment's SQL tools may log in as it, so migrate will not set its password or grant it this " +
      `database (that would break their SQL tools, or let them read this one). Revoke its privileges there ${
        configured ? 'or ' : ''
      }${fix} (docs/security.md, section 4).`
  );
}

/** The ConvEngine tools roles (the legacy shared one and every database's) holding privileges in this database. */
export async function toolsRolesHere(client: PoolClient): Promise<string[]> {
  const { rows } = await client.query<{ rolname: string }>(
    `SELECT DISTINCT r.rolname FROM pg_shdepend s JOIN pg_roles r ON r.oid = s.refobjid
      WHERE s.refclassid = 'pg_authid'::regclass AND s.deptype = 'a'
        AND (s.dbid = ${THIS_DATABASE} OR (s.dbid = 0 AND s.classid = 'pg_database'::regclass AND s.objid = ${THIS_DATABASE}))
        AND starts_with(r.rolname, $1)
      ORDER BY 1`,
    [LEGACY_TOOLS_ROLE]
  );
  return rows.map((r) => r.rolname);
}

/**
 * Other ConvEngine tools roles (the legacy shared one, a template database's, the role of this database's former
 * name) holding privileges here: this database's SQL tools moved off them.
 */
export async function previousRolesOf(client: PoolClient, role: string): Promise<string[]> {
  return (await toolsRolesHere(client)).filter((r) => r !== role);
}

/** Schemas, relations and default privileges of `from`'s here, and whether each includes what the tools read. */
async function grantsOf(client: PoolClient, from: string) {
  const schemas = await client.query<{ name: string; read: boolean }>(
    `SELECT quote_ident(n.nspname) AS name, bool_or(a.privilege_type = 'USAGE') AS read
       FROM pg_namespace n CROSS JOIN LATERAL aclexplode(n.nspacl) a WHERE a.grantee = ${ROLE_OID} GROUP BY n.nspname`,
    [from]
  );
  const relations = await client.query<{ name: string; read: boolean }>(
    `SELECT c.oid::regclass::text AS name, bool_or(a.privilege_type = 'SELECT') AS read
       FROM pg_class c CROSS JOIN LATERAL aclexplode(c.relacl) a
      WHERE a.grantee = ${ROLE_OID} AND c.relkind IN ('r', 'p', 'v', 'm', 'f') GROUP BY c.oid`,
    [from]
  );
  const defaults = await client.query<{ name: string; read: boolean }>(
    `SELECT 'FOR ROLE ' || quote_ident(pg_get_userbyid(d.defaclrole))
              || coalesce(' IN SCHEMA ' || quote_ident(n.nspname), '') AS name,
            bool_or(a.privilege_type = 'SELECT') AS read
       FROM pg_default_acl d LEFT JOIN pg_namespace n ON n.oid = d.defaclnamespace
       CROSS JOIN LATERAL aclexplode(d.defaclacl) a
      WHERE a.grantee = ${ROLE_OID} AND d.defaclobjtype = 'r' GROUP BY d.defaclrole, n.nspname`,
    [from]
  );
  return { schemas: schemas.rows, relations: relations.rows, defaults: defaults.rows };
}

/** Gives `to` what `from` may read here and takes everything from `from`, its CONNECT on this database included. */
async function moveGrants(client: PoolClient, from: string, to: string): Promise<void> {
  const [f, t] = [client.escapeIdentifier(from), client.escapeIdentifier(to)];
  const { schemas, relations, defaults } = await grantsOf(client, from);
  for (const s of schemas) {
    if (s.read) await client.query(`GRANT USAGE ON SCHEMA ${s.name} TO ${t}`);
    await client.query(`REVOKE ALL ON SCHEMA ${s.name} FROM ${f}`);
  }
  for (const r of relations) {
    if (r.read) await client.query(`GRANT SELECT ON ${r.name} TO ${t}`);
    await client.query(`REVOKE ALL ON ${r.name} FROM ${f}`);
  }
  for (const d of defaults) {
    if (d.read) await client.query(`ALTER DEFAULT PRIVILEGES ${d.name} GRANT SELECT ON TABLES TO ${t}`);
    await client.query(`ALTER DEFAULT PRIVILEGES ${d.name} REVOKE ALL ON TABLES FROM ${f}`);
  }
  const database = client.escapeIdentifier(await currentDatabase(client));
  await client.query(`REVOKE CONNECT ON DATABASE ${database} FROM ${f}`);
}

async function currentDatabase(client: PoolClient): Promise<string> {
  const { rows } = await client.query<{ name: string }>('SELECT current_database() AS name');
  return rows[0]?.name ?? '';
}

/** Privileges `role` still holds here (ones migrate does not move: a function's EXECUTE, a sequence's). */
async function privilegesLeftHere(client: PoolClient, role: string): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_shdepend s
      WHERE s.refclassid = 'pg_authid'::regclass AND s.refobjid = ${ROLE_OID} AND s.dbid = ${THIS_DATABASE}`,
    [role]
  );
  return rows[0]?.n ?? 0;
}

/** An explicit CONNECT (a DBA may revoke it from PUBLIC); only the database's owner or a superuser can grant it. */
async function grantConnect(client: PoolClient, role: string): Promise<string[]> {
  const database = await currentDatabase(client);
  const { rows } = await client.query<{ may: boolean }>(
    "SELECT has_database_privilege(current_database(), 'CONNECT WITH GRANT OPTION') AS may"
  );
  if (!rows[0]?.may) {
    return [
      `could not grant CONNECT on database "${database}" to role ${role} (only its owner or a superuser can): ` +
        `before revoking CONNECT from PUBLIC, GRANT CONNECT ON DATABASE to it`,
    ];
  }
  await client.query(
    `GRANT CONNECT ON DATABASE ${client.escapeIdentifier(database)} TO ${client.escapeIdentifier(role)}`
  );
  return [];
}

/**
 * The tools roles this database's tools move off: every other one holding privileges here (`previous`, which lose
 * them all), and of those the ones that held them before this `migrate` (`moved`): on a new database, migration 0004
 * grants the legacy shared role what it then takes back, and nothing moved that an operator should hear of.
 */
export interface PreviousToolsRoles {
  previous: readonly string[];
  moved: readonly string[];
}

/**
 * Makes `role` this database's SQL tools' login: CONNECT, USAGE on the business schema and SELECT on its tables
 * (those it creates later too), moved from the roles this database's tools used before (they lose every privilege
 * here). Returns what `migrate` should say.
 */
export async function grantToolsRole(
  client: PoolClient,
  role: string,
  { previous, moved }: PreviousToolsRoles
): Promise<string[]> {
  const notes = await grantConnect(client, role);
  for (const from of previous) {
    await moveGrants(client, from, role);
    if (moved.includes(from))
      notes.push(`moved the SQL tools' privileges in this database from role ${from} to role ${role}`);
    const left = await privilegesLeftHere(client, from);
    if (left > 0) notes.push(`role ${from} still holds ${left} privilege(s) in this database: revoke them`);
  }
  const { rows } = await client.query<{ business: boolean }>(
    "SELECT to_regnamespace('business') IS NOT NULL AS business"
  );
  if (!rows[0]?.business) return notes;
  const r = client.escapeIdentifier(role);
  const { rows: reads } = await client.query<{ reads: boolean }>(
    "SELECT has_schema_privilege($1::name, 'business', 'USAGE') AS reads",
    [role]
  );
  await client.query(`GRANT USAGE ON SCHEMA business TO ${r}`);
  // A role new to this database with nothing to move from gets what migration 0004 gave the tools.
  if (!reads[0]?.reads && previous.length === 0)
    await client.query(`GRANT SELECT ON ALL TABLES IN SCHEMA business TO ${r}`);
  await client.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA business GRANT SELECT ON TABLES TO ${r}`);
  return notes;
}
