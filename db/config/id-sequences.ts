import { sql } from 'drizzle-orm';
import type { Database } from '../pool';

/** Anything that can run a statement: the database or an open transaction. */
type Executor = Pick<Database, 'execute'>;

/**
 * Moves every config table's ID sequence past its largest ID (migration 0011). A trigger already
 * does this after each INSERT/UPDATE statement; writers that load rows with explicit IDs (the
 * seeder, config apply, imports) call it once more at the end, so a bulk load done with
 * triggers off still leaves no sequence behind. Sequences never move backwards.
 */
export async function syncConfigIdSequences(db: Executor): Promise<void> {
  await db.execute(sql`SELECT ce_sync_config_id_sequences()`);
}
