import { createHash, randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { migrate, readMigrations } from '../../db/migrate';
import type { Pool, PoolClient } from 'pg';
import { createPool, openDatabase, type DbHandle } from '../../db/pool';
import { TOOLS_SESSION } from '../../db/session-settings';
import { ensureToolsRole, toolsDatabaseUrl, toolsRoleOf } from '../../db/tools-role';

/** Server used by tests; CI and the README default to the local cluster's `test` database. */
export const ADMIN_DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

// Serializes template creation across Jest workers and concurrent test runs.
const TEMPLATE_LOCK_KEY = 7_233_002;

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export async function withAdmin<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * Templates outlive a run and are shared by every checkout testing on the server. A template's business grants name
 * the tools role of the build that migrated it (one shared role before db/tools-role.ts made it per database), so
 * builds of either kind never clone each other's.
 */
const TOOLS_ROLE_SCHEME = 'tools role per database';

function templateName(): string {
  const digest = createHash('sha256').update(TOOLS_ROLE_SCHEME);
  for (const m of readMigrations()) digest.update(m.name).update(m.checksum);
  return `ce_tpl_${digest.digest('hex').slice(0, 16)}`;
}

async function ensureTemplate(admin: Client): Promise<string> {
  const name = templateName();
  await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK_KEY]);
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) {
      await admin.query(`CREATE DATABASE ${name}`);
      const handle = openDatabase(withDatabase(ADMIN_DATABASE_URL, name), { max: 1 });
      try {
        await migrate(handle.pool);
      } catch (err) {
        await handle.close();
        await admin.query(`DROP DATABASE IF EXISTS ${name}`);
        throw err;
      }
      await handle.close();
    }
    return name;
  } finally {
    await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK_KEY]);
  }
}

export interface TestDatabase extends DbHandle {
  url: string;
  name: string;
  /** The database's own SQL tools role (db/tools-role.ts), unique to it: dropped with it. */
  toolsRole: string;
  /** A pool logged in as the SQL tools role (D20), opened on first use and closed by drop(). */
  toolsPool(): Pool;
  /** Drops the database; call in afterAll. */
  drop(): Promise<void>;
}

/**
 * A fresh, fully migrated database for one test file, cloned from a template that is migrated
 * once per migration set. Files never see each other's rows, so Jest can run them in parallel.
 */
export async function createTestDatabase(
  options: { migrated?: boolean; icuLocale?: string; sqlAscii?: boolean } = {}
): Promise<TestDatabase> {
  const migrated = options.migrated ?? true;
  const name = `ce_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  if (options.icuLocale !== undefined)
    return createFromScratch(name, `LOCALE_PROVIDER icu ICU_LOCALE '${options.icuLocale}'`, migrated);
  if (options.sqlAscii) return createFromScratch(name, "ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C'", migrated);
  await withAdmin(async (admin) => {
    if (!migrated) {
      await admin.query(`CREATE DATABASE ${name}`);
      return;
    }
    const template = await ensureTemplate(admin);
    await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK_KEY]);
    try {
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
    } finally {
      await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK_KEY]);
    }
  });
  const tdb = testDatabaseNamed(name);
  // A clone's grants are the template's tools role's: it gets its own, as `migrate` gives a copied database.
  if (migrated) await withClient(tdb.pool, (client) => ensureToolsRole(client, { databaseUrl: tdb.url }));
  return tdb;
}

async function withClient<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    return await fn(client);
  } finally {
    client.release();
  }
}

/**
 * A database created from template0 with `settings` and migrated from scratch: the ICU locale `icuLocale` as its default
 * collation (tr-TR: upper('i') is İ), or the SQL_ASCII encoding, for which ICU has no collation. The shared template's
 * collation and encoding are the cluster's, and a clone cannot change them.
 */
async function createFromScratch(name: string, settings: string, migrated: boolean): Promise<TestDatabase> {
  await withAdmin((admin) => admin.query(`CREATE DATABASE ${name} ${settings} TEMPLATE template0`));
  const tdb = testDatabaseNamed(name);
  if (migrated) await migrate(tdb.pool).catch(async (err: unknown) => Promise.reject(await tdb.drop().then(() => err)));
  return tdb;
}

function testDatabaseNamed(name: string): TestDatabase {
  const url = withDatabase(ADMIN_DATABASE_URL, name);
  const handle = openDatabase(url, { max: 5 });
  let tools: Pool | null = null;
  const toolsRole = toolsRoleOf(name);
  return {
    ...handle,
    url,
    name,
    toolsRole,
    toolsPool() {
      tools ??= createPool(toolsDatabaseUrl(url), { max: 3 }, TOOLS_SESSION);
      return tools;
    },
    async drop() {
      await tools?.end().catch(() => undefined);
      await handle.close().catch(() => undefined);
      await withAdmin(async (admin) => {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.query(`DROP ROLE IF EXISTS ${toolsRole}`);
      });
    },
  };
}

/**
 * Advisory locks held by sessions of the SQL tools' login role. pg_locks is cluster-wide, and the suites
 * themselves take advisory locks (createTestDatabase clones the template under one), so only the tools
 * role's sessions say anything about the sandbox.
 */
export async function toolsRoleAdvisoryLocks(tdb: TestDatabase): Promise<number> {
  const locks = await tdb.pool.query(
    `SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND a.usename = $1`,
    [tdb.toolsRole]
  );
  return locks.rowCount ?? 0;
}

/**
 * Makes the database `name` refuse new sessions, ending the ones it has (as a restore or an operator's
 * `ALTER DATABASE … ALLOW_CONNECTIONS false` does), or accept them again.
 */
export async function setAcceptingConnections(name: string, accepting: boolean): Promise<void> {
  await withAdmin(async (admin) => {
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS ${accepting}`);
    if (accepting) return;
    const others =
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()';
    await admin.query(others, [name]);
  });
}
