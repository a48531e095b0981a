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

/**
 * The kinds of object a tools role may hold privileges on here: how a query lists `from`'s (each name quoted with
 * quote_ident), the GRANT's object word, and the privileges the SQL tools read with, which move; the rest do not.
 */
interface ObjectKind {
  on: 'SCHEMA' | 'TABLE' | 'SEQUENCE' | 'ROUTINE';
  reads: readonly string[];
  /** Rows of `name` (quoted) and `privileges`, for the role $1. */
  sql: string;
}

const RELATIONS_OF = (relkinds: string) => `SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS name,
         array_agg(a.privilege_type) AS privileges
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace CROSS JOIN LATERAL aclexplode(c.relacl) a
   WHERE a.grantee = ${ROLE_OID} AND c.relkind IN (${relkinds}) GROUP BY n.nspname, c.relname`;

const OBJECT_KINDS: readonly ObjectKind[] = [
  {
    on: 'SCHEMA',
    reads: ['USAGE'],
    sql: `SELECT quote_ident(n.nspname) AS name, array_agg(a.privilege_type) AS privileges
            FROM pg_namespace n CROSS JOIN LATERAL aclexplode(n.nspacl) a WHERE a.grantee = ${ROLE_OID} GROUP BY n.nspname`,
  },
  { on: 'TABLE', reads: ['SELECT'], sql: RELATIONS_OF("'r', 'p', 'v', 'm', 'f'") },
  // A tool's nextval() would write: only what reads a sequence (currval, lastval, SELECT) moves.
  { on: 'SEQUENCE', reads: ['USAGE', 'SELECT'], sql: RELATIONS_OF("'S'") },
  {
    on: 'ROUTINE',
    reads: ['EXECUTE'],
    sql: `SELECT quote_ident(n.nspname) || '.' || quote_ident(p.proname)
                 || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS name,
                 array_agg(a.privilege_type) AS privileges
            FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace CROSS JOIN LATERAL aclexplode(p.proacl) a
           WHERE a.grantee = ${ROLE_OID} GROUP BY n.nspname, p.proname, p.oid`,
  },
];

/** Default privileges by pg_default_acl.defaclobjtype: the object word of ALTER DEFAULT PRIVILEGES, what moves. */
const DEFAULT_KINDS: Readonly<Record<string, { on: string; reads: readonly string[] }>> = {
  r: { on: 'TABLES', reads: ['SELECT'] },
  S: { on: 'SEQUENCES', reads: ['USAGE', 'SELECT'] },
  f: { on: 'FUNCTIONS', reads: ['EXECUTE'] },
  T: { on: 'TYPES', reads: ['USAGE'] },
  n: { on: 'SCHEMAS', reads: ['USAGE'] },
};

interface Held {
  name: string;
  privileges: string[];
}

/** `from`'s default privileges here: `FOR ROLE … [IN SCHEMA …]`, the kind of object, the privileges. */
async function defaultsOf(client: PoolClient, from: string) {
  const { rows } = await client.query<Held & { kind: string }>(
    `SELECT 'FOR ROLE ' || quote_ident(pg_get_userbyid(d.defaclrole))
              || coalesce(' IN SCHEMA ' || quote_ident(n.nspname), '') AS name,
            d.defaclobjtype::text AS kind, array_agg(a.privilege_type) AS privileges
       FROM pg_default_acl d LEFT JOIN pg_namespace n ON n.oid = d.defaclnamespace
       CROSS JOIN LATERAL aclexplode(d.defaclacl) a
      WHERE a.grantee = ${ROLE_OID} GROUP BY d.defaclrole, n.nspname, d.defaclobjtype`,
    [from]
  );
  return rows;
}

const readsOf = (held: Held, reads: readonly string[]): string[] => reads.filter((p) => held.privileges.includes(p));

/**
 * Gives `to` what `from` may read here (USAGE on schemas, SELECT on tables, a sequence's USAGE and SELECT, EXECUTE
 * on functions, and the default privileges that give them) and takes everything from `from`, its CONNECT on this
 * database included.
 */
async function moveGrants(client: PoolClient, from: string, to: string): Promise<void> {
  const [f, t] = [client.escapeIdentifier(from), client.escapeIdentifier(to)];
  for (const kind of OBJECT_KINDS) {
    const { rows } = await client.query<Held>(kind.sql, [from]);
    for (const held of rows) {
      const reads = readsOf(held, kind.reads);
      if (reads.length > 0) await client.query(`GRANT ${reads.join(', ')} ON ${kind.on} ${held.name} TO ${t}`);
      await client.query(`REVOKE ALL ON ${kind.on} ${held.name} FROM ${f}`);
    }
  }
  for (const held of await defaultsOf(client, from)) {
    const kind = DEFAULT_KINDS[held.kind];
    if (kind === undefined) continue;
    const reads = readsOf(held, kind.reads);
    if (reads.length > 0)
      await client.query(`ALTER DEFAULT PRIVILEGES ${held.name} GRANT ${reads.join(', ')} ON ${kind.on} TO ${t}`);
    await client.query(`ALTER DEFAULT PRIVILEGES ${held.name} REVOKE ALL ON ${kind.on} FROM ${f}`);
  }
  const database = client.escapeIdentifier(await currentDatabase(client));
  await client.query(`REVOKE CONNECT ON DATABASE ${database} FROM ${f}`);
}

async function currentDatabase(client: PoolClient): Promise<string> {
  const { rows } = await client.query<{ name: string }>('SELECT current_database() AS name');
  return rows[0]?.name ?? '';
}

/** Privileges `role` still holds here (ones migrate does not move: a large object's, a column's, a type's). */
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
