import { DrizzleQueryError } from 'drizzle-orm';
import type { QueryResultRow } from 'pg';
import { storableJson } from '../core/text/storable-output';
import { cancellableQuery, isStatementCancellation } from './cancellation';
import { retryOnConnectionLoss } from './connection-loss';
import type { Database } from './pool';

/** A statement every turn runs, prepared once per pooled connection under its name. */
export interface Statement {
  /** Unique per text: a changed text needs a new name (a connection keeps the old one prepared). */
  name: string;
  text: string;
  /**
   * Safe to apply twice (a read, or a write keyed or guarded so that a second one changes nothing):
   * sent again on a fresh connection when its own was lost (db/connection-loss.ts).
   */
  resendable?: boolean;
}

/**
 * Runs a named prepared statement on the pool and returns its rows. The queries every turn makes
 * skip drizzle's query building (tens of microseconds each, rebuilt on every call) and the
 * server's parsing and planning. A resendable statement outlives a lost connection, so a database
 * reconnect does not spend an attempt of the activity around it (a tool call has few, D16). A
 * failure is wrapped as drizzle wraps it (DrizzleQueryError, the driver's error as its cause), so
 * callers see the same kind of error as before; a cancelled one (db/cancellation.ts: the activity it runs for was
 * cancelled) rejects with the cancellation's reason, not as the database's failure.
 */
export async function runStatement<R extends QueryResultRow>(
  db: Pick<Database, '$client'>,
  statement: Statement,
  values: unknown[]
): Promise<R[]> {
  const send = () => cancellableQuery<R>(db.$client, { name: statement.name, text: statement.text, values });
  try {
    const result = await (statement.resendable ? retryOnConnectionLoss(send) : send());
    return result.rows;
  } catch (err) {
    if (isStatementCancellation(err)) throw err;
    throw new DrizzleQueryError(statement.text, values as never[], err as Error);
  }
}

/** A jsonb parameter as drizzle sends one: SQL NULL for null, else the JSON text, as PostgreSQL can store it. */
export function jsonbParam(value: unknown): string | null {
  return value === null ? null : storableJson(value);
}
