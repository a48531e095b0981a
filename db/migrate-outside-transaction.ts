import { loadModule, parseSync } from 'libpg-query';
import type { PoolClient } from 'pg';

/**
 * Migrations that must not run in a transaction. `CREATE INDEX` inside the migrator's transaction holds a lock that
 * blocks every write to the table for the whole build, minutes on a large ce_* table; `CREATE INDEX CONCURRENTLY`
 * lets writes go on but PostgreSQL refuses it inside a transaction block. A migration file opts out of the
 * transaction with this marker as its first line:
 *
 *     -- migrate: no-transaction
 *
 * Its statements then run one by one, each committed on its own, and the migration is recorded only after the last.
 * A failure leaves the ones before it applied, so `convengine migrate` runs them all again: each must be safe to
 * re-run. That is checked where it can be: only CREATE INDEX CONCURRENTLY IF NOT EXISTS, DROP INDEX CONCURRENTLY IF
 * EXISTS, DELETE and UPDATE are accepted (a DELETE or UPDATE must leave what it already did as it is). A concurrent
 * build that failed (a duplicate key, a cancelled statement) leaves its index INVALID: IF NOT EXISTS would keep that
 * broken index, so before each CREATE an INVALID index of that name is dropped and then built again.
 */
export const NO_TRANSACTION_MARKER = '-- migrate: no-transaction';

export function runsOutsideTransaction(sql: string): boolean {
  return sql.split('\n', 1)[0]?.trim() === NO_TRANSACTION_MARKER;
}

export interface IndexTarget {
  name: string;
  schema: string | null;
}

export interface OutsideTransactionStatement {
  sql: string;
  /** For CREATE INDEX CONCURRENTLY: the index to drop first when a failed build left it INVALID. */
  builds: IndexTarget | null;
}

export class MigrationStatementError extends Error {
  readonly type = 'MIGRATION_NOT_RERUNNABLE';
  constructor(
    readonly migration: string,
    reason: string
  ) {
    super(`Migration ${migration} runs outside a transaction (${NO_TRANSACTION_MARKER}), so ${reason}`);
  }
}

type ParsedStatement = { stmt: Record<string, Record<string, unknown>>; stmt_location?: number; stmt_len?: number };

/** Why a statement cannot run outside a transaction, or the index it builds (null for none). */
function checkStatement(kind: string, node: Record<string, unknown>): string | IndexTarget | null {
  if (kind === 'IndexStmt') {
    if (node.concurrent !== true || node.if_not_exists !== true || typeof node.idxname !== 'string') {
      return 'an index must be built with CREATE INDEX CONCURRENTLY IF NOT EXISTS <name>, which a re-run skips';
    }
    const relation = node.relation as { schemaname?: string } | undefined;
    return { name: node.idxname, schema: relation?.schemaname ?? null };
  }
  if (kind === 'DropStmt') {
    if (node.removeType === 'OBJECT_INDEX' && node.concurrent === true && node.missing_ok === true) return null;
    return 'only DROP INDEX CONCURRENTLY IF EXISTS may drop, which a re-run skips';
  }
  if (kind === 'DeleteStmt' || kind === 'UpdateStmt') return null;
  return `${kind.replace(/Stmt$/, '')} is not accepted: only concurrent index builds and drops, DELETE and UPDATE are; put it in a migration of its own, which runs in a transaction`;
}

/** The file's statements, each checked to be safe to re-run; throws MigrationStatementError naming the first that is not. */
export async function outsideTransactionStatements(
  migration: string,
  sql: string
): Promise<OutsideTransactionStatement[]> {
  await loadModule();
  const bytes = Buffer.from(sql, 'utf8');
  let parsed: ParsedStatement[];
  try {
    parsed = (parseSync(sql).stmts ?? []) as unknown as ParsedStatement[];
  } catch (err) {
    throw new MigrationStatementError(
      migration,
      `it is parsed before it runs, and it does not parse: ${(err as Error).message}`
    );
  }
  return parsed.map((entry, index) => {
    const [kind, node] = Object.entries(entry.stmt)[0] as [string, Record<string, unknown>];
    const checked = checkStatement(kind, node);
    if (typeof checked === 'string') throw new MigrationStatementError(migration, `statement ${index + 1}: ${checked}`);
    const start = entry.stmt_location ?? 0;
    const end = entry.stmt_len ? start + entry.stmt_len : bytes.length;
    return { sql: bytes.subarray(start, end).toString('utf8'), builds: checked };
  });
}

/** Drops the index a failed concurrent build left INVALID, so the CREATE … IF NOT EXISTS after it builds it again. */
export async function dropInvalidIndex(client: PoolClient, index: IndexTarget): Promise<void> {
  const qualified =
    (index.schema ? `${client.escapeIdentifier(index.schema)}.` : '') + client.escapeIdentifier(index.name);
  const { rows } = await client.query<{ valid: boolean }>(
    'SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass($1)',
    [qualified]
  );
  if (rows[0] && !rows[0].valid) await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${qualified}`);
}

/** Runs the statements one by one, each in its own implicit transaction. */
export async function applyOutsideTransaction(
  client: PoolClient,
  migration: string,
  statements: OutsideTransactionStatement[]
): Promise<void> {
  for (const [index, statement] of statements.entries()) {
    try {
      if (statement.builds) await dropInvalidIndex(client, statement.builds);
      await client.query(statement.sql);
    } catch (err) {
      throw new Error(
        `Migration ${migration} failed at statement ${index + 1}: ${(err as Error).message}. It runs outside a transaction: the statements before it stay applied, and running migrate again repeats them all (an index the failure left INVALID is dropped and built again).`,
        { cause: err }
      );
    }
  }
}
