import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Pool, PoolClient } from 'pg';
import {
  applyOutsideTransaction,
  outsideTransactionStatements,
  runsOutsideTransaction,
  type OutsideTransactionStatement,
} from './migrate-outside-transaction';
import { withMigrationLock, type MigrationLockWait } from './migration-lock';
import { ensureSearchIndexes } from './search-indexes';
import {
  connectionStringOf,
  ensureToolsRole,
  toolsRoleCreationRefusal,
  ToolsRoleError,
  type ToolsRoleReport,
} from './tools-role';
import { toolsRolesHere } from './tools-role-grants';

export const MIGRATIONS_DIR = join(__dirname, 'migrations');

/**
 * Shipped migrations that replaced one a database may already have applied, and that one's name and checksum.
 * Applying the new one records the old one too, so an older build started on the same database (a rollback, a
 * rolling deploy) finds it applied instead of running it again, which would fail or lock the table.
 */
const SUPERSEDES: Readonly<Record<string, { name: string; checksum: string }>> = {
  // 0018 built its index inside the migrator's transaction, blocking writes to ce_turn_request for the whole build.
  '0019_turn_request_key_unique_concurrently.sql': {
    name: '0018_turn_request_key_unique.sql',
    checksum: '68b96915d0c3740e355bb7b4efb71478ca86152343137e7b9ed7394eeeb12c84',
  },
};

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrationReport {
  applied: string[];
  alreadyApplied: string[];
  /** Applied migrations this build does not ship: a newer build migrated the database (SchemaState.unknown). */
  unknown: string[];
  /** The SQL tools' role of this database, and what `migrate` should say of it (a move, a stricter limit kept). */
  toolsRole: ToolsRoleReport;
  /** Why the console search has no trigram index, when it has none (db/search-indexes.ts); empty when it has them. */
  searchIndexes: string[];
}

export class MigrationChecksumError extends Error {
  readonly type = 'MIGRATION_CHECKSUM_MISMATCH';
  constructor(readonly migration: string) {
    super(`Migration ${migration} was changed after it was applied; add a new migration instead.`);
  }
}

export function readMigrations(dir = MIGRATIONS_DIR): MigrationFile[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

export interface MigrateOptions {
  /**
   * TOOLS_DATABASE_URL, when set: its login is the tools role, whose password is the operator's and which migrate
   * leaves alone (it still makes the role safe). Unset: the database's own role, given the password derived from
   * the engine's (db/tools-role.ts).
   */
  toolsDatabaseUrl?: string | undefined;
  /** How a migrator waits for another's lock: bounded (MIGRATE_LOCK_WAIT_MS), and said where it runs. */
  lockWait?: MigrationLockWait;
}

/**
 * Applies pending migrations in order, each in its own transaction (or none, for a file marked
 * `-- migrate: no-transaction`: db/migrate-outside-transaction.ts), builds the console search's trigram indexes where
 * the database offers pg_trgm (db/search-indexes.ts), then brings the SQL tools' role up to date (db/tools-role.ts).
 * Re-running is a no-op.
 */
export async function migrate(
  pool: Pool,
  dir = MIGRATIONS_DIR,
  options: MigrateOptions = {}
): Promise<MigrationReport> {
  return withMigrationLock(pool, options.lockWait ?? {}, async (client) => {
    // Before any migration: a login that cannot make the tools role would fail after half of them.
    const refusal = await toolsRoleCreationRefusal(client, options.toolsDatabaseUrl);
    if (refusal !== null) throw new ToolsRoleError(refusal);
    // Before the migrations: on a new database 0004 grants the legacy shared role what the tools role then takes.
    const heldBefore = await toolsRolesHere(client);
    const report = await applyPending(client, readMigrations(dir));
    // On this build's tables: a test's own set of migrations (another dir) has none of them.
    const searchIndexes = dir === MIGRATIONS_DIR ? await ensureSearchIndexes(client) : [];
    const source = { databaseUrl: connectionStringOf(pool), toolsDatabaseUrl: options.toolsDatabaseUrl, heldBefore };
    return { ...report, searchIndexes, toolsRole: await withRetry(() => ensureToolsRole(client, source)) };
  });
}

/** How the database's applied migrations compare with the ones this build ships. */
export interface SchemaState {
  /** Shipped migrations the database has not applied, in order. */
  pending: MigrationFile[];
  /** Applied migrations whose file changed since (MigrationChecksumError when migrating). */
  changed: string[];
  /** Shipped migrations the database has applied. */
  appliedCount: number;
  /**
   * Applied migrations this build does not ship, in order: a newer build migrated the database (a rollback, or
   * older processes left running during an upgrade). This build runs on it (docs/operations.md, "Upgrades and
   * rollbacks"), but an operator must know it is not the schema this build was tested on.
   */
  unknown: string[];
}

/** Names a build records without shipping them: the migrations its own ones replaced (SUPERSEDES). */
const SUPERSEDED = new Set(Object.values(SUPERSEDES).map((s) => s.name));

function compareApplied(files: MigrationFile[], applied: ReadonlyMap<string, string>): SchemaState {
  const pending = files.filter((f) => !applied.has(f.name));
  const changed = files.filter((f) => applied.has(f.name) && applied.get(f.name) !== f.checksum).map((f) => f.name);
  // Shipped ones only: a superseded migration's record (SUPERSEDES) is not one more applied.
  const appliedCount = files.filter((f) => applied.has(f.name)).length;
  const shipped = new Set(files.map((f) => f.name));
  const unknown = [...applied.keys()].filter((name) => !shipped.has(name) && !SUPERSEDED.has(name)).sort();
  return { pending, changed, appliedCount, unknown };
}

/**
 * What `convengine migrate` and `convengine start` print of a migration they ran (one wording for both, so an operator
 * who migrates through `start` learns the same): each migration applied, the SQL tools role's notes, the counts.
 */
export function migrationReportLines(report: MigrationReport): string[] {
  return [
    ...report.applied.map((name) => `applied ${name}`),
    ...report.toolsRole.notes.map((note) => `SQL tools role: ${note}`),
    ...report.searchIndexes,
    `${report.applied.length} migration(s) applied, ${report.alreadyApplied.length} already applied`,
  ];
}

/** What `migrate`, `doctor` and readiness say of a database a newer build migrated. */
export function newerSchemaWarning(unknown: readonly string[]): string {
  return (
    `the database has ${unknown.length} migration(s) this build does not know (${unknown.join(', ')}): ` +
    'a newer build migrated it. This build runs on it (a rollback), but deploy the newer build again, or see ' +
    'docs/operations.md, "Upgrades and rollbacks"'
  );
}

/**
 * What `doctor`, and a command that failed on the database, say of one that lacks migrations this build needs;
 * null when it has them all.
 */
export function notMigratedMessage(state: SchemaState): string | null {
  if (state.appliedCount === 0) return 'no migration applied: run `convengine migrate`';
  if (state.pending.length === 0) return null;
  const names = state.pending.map((m) => m.name).join(', ');
  return `${state.pending.length} migration(s) not applied (${names}): run \`convengine migrate\``;
}

type Queryable = Pick<Pool, 'query'> | PoolClient;

async function appliedMigrations(client: Queryable): Promise<Map<string, string>> {
  const { rows } = await client.query<{ name: string; checksum: string }>(
    'SELECT name, checksum FROM ce_schema_migrations'
  );
  return new Map(rows.map((r) => [r.name, r.checksum]));
}

/** Read-only: what `migrate` would apply (and refuse) on this database; a database never migrated has every file pending. */
export async function schemaState(client: Queryable, files: MigrationFile[] = readMigrations()): Promise<SchemaState> {
  const { rows } = await client.query<{ table: string | null }>(
    "SELECT to_regclass('ce_schema_migrations')::text AS table"
  );
  if (!rows[0]?.table) return compareApplied(files, new Map());
  return compareApplied(files, await appliedMigrations(client));
}

async function applyPending(
  client: PoolClient,
  files: MigrationFile[]
): Promise<Omit<MigrationReport, 'toolsRole' | 'searchIndexes'>> {
  await client.query(`CREATE TABLE IF NOT EXISTS ce_schema_migrations (
    name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  const state = compareApplied(files, await appliedMigrations(client));
  if (state.changed[0] !== undefined) throw new MigrationChecksumError(state.changed[0]);
  const alreadyApplied = files.filter((f) => !state.pending.includes(f)).map((f) => f.name);
  const report = { applied: [] as string[], alreadyApplied, unknown: state.unknown };
  const outside = new Map<string, OutsideTransactionStatement[]>();
  for (const file of state.pending) {
    if (runsOutsideTransaction(file.sql))
      outside.set(file.name, await outsideTransactionStatements(file.name, file.sql));
  }
  for (const file of state.pending) {
    const statements = outside.get(file.name);
    if (statements) {
      await applyOutsideTransaction(client, file.name, statements);
      await recordApplied(client, file);
    } else {
      await applyInTransaction(client, file);
    }
    report.applied.push(file.name);
  }
  return report;
}

async function applyInTransaction(client: PoolClient, file: MigrationFile): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(file.sql);
    await recordApplied(client, file);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw new Error(`Migration ${file.name} failed: ${(err as Error).message}`, { cause: err });
  }
}

/** Records the migration, and the one it supersedes (SUPERSEDES) if the database lacks it. */
async function recordApplied(client: PoolClient, file: MigrationFile): Promise<void> {
  const superseded = SUPERSEDES[file.name];
  const records = [[file.name, file.checksum], ...(superseded ? [[superseded.name, superseded.checksum]] : [])];
  for (const [name, checksum] of records) {
    await client.query(
      'INSERT INTO ce_schema_migrations (name, checksum) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING',
      [name, checksum]
    );
  }
}

/** The role is cluster-wide: migrators of two databases may update it at once ("tuple concurrently updated"). */
async function withRetry<T>(fn: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (attempt >= attempts || (code !== 'XX000' && code !== '40001' && code !== '40P01')) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}
