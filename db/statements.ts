import { DrizzleQueryError } from 'drizzle-orm';
import type { QueryResultRow } from 'pg';
import type { Database } from './pool';

/** A statement every turn runs, prepared once per pooled connection under its name. */
export interface Statement {
  /** Unique per text: a changed text needs a new name (a connection keeps the old one prepared). */
  name: string;
  text: string;
}

/**
 * Runs a named prepared statement on the pool and returns its rows. The queries every turn makes
 * skip drizzle's query building (tens of microseconds each, rebuilt on every call) and the
 * server's parsing and planning. A failure is wrapped as drizzle wraps it (DrizzleQueryError,
 * the driver's error as its cause), so callers see the same kind of error as before.
 */
export async function runStatement<R extends QueryResultRow>(
  db: Pick<Database, '$client'>,
  statement: Statement,
  values: unknown[]
): Promise<R[]> {
  try {
    const result = await db.$client.query<R>({ name: statement.name, text: statement.text, values });
    return result.rows;
  } catch (err) {
    throw new DrizzleQueryError(statement.text, values as never[], err as Error);
  }
}

/** A jsonb parameter as drizzle sends one: SQL NULL for null, else the JSON text. */
export function jsonbParam(value: unknown): string | null {
  return value === null ? null : JSON.stringify(value);
}
