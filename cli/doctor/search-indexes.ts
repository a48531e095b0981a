import type { Pool } from 'pg';
import { openDatabase } from '../../db/pool';
import { searchIndexDefinitionProblem } from '../../db/search-index-definitions';
import { searchIndexProblem, SEARCH_INDEX_NAMES } from '../../db/search-indexes';
import { rawDatabaseError } from '../database-failure';
import type { Finding } from './finding';

/**
 * Whether the console's text search has its trigram indexes (db/search-indexes.ts): without them it still works, but
 * reads whole tables, seconds on a large database, and `migrate` said so only once, when it could not build them (an
 * index dropped since said nothing at all), and that each is what `migrate` builds (one of that name made by hand, or
 * left from before a migration changed the search's text, is not used). Turns do not use them, so it warns, naming
 * the fix.
 */
export async function checkSearchIndexes(databaseUrl: string): Promise<Finding> {
  const handle = openDatabase(databaseUrl, { max: 1, connectionTimeoutMillis: 5_000 });
  try {
    const problem = (await searchIndexProblem(handle.pool)) ?? (await definitionProblem(handle.pool));
    if (problem !== null) return { check: 'search-indexes', level: 'warn', message: problem };
    const message = `the console search's ${SEARCH_INDEX_NAMES.length} trigram indexes are there, valid and as migrate builds them`;
    return { check: 'search-indexes', level: 'ok', message };
  } catch (err) {
    const message = `cannot read the console search's indexes: ${rawDatabaseError(handle.pool, err)}`;
    return { check: 'search-indexes', level: 'fail', message };
  } finally {
    await handle.close();
  }
}

/**
 * searchIndexDefinitionProblem, or what kept it from comparing: it builds each index on a temporary table, which a
 * hot standby or a role without TEMP refuses; the indexes are there and valid (searchIndexProblem said so), so that is
 * a warning, not a failure of the check.
 */
async function definitionProblem(pool: Pool): Promise<string | null> {
  try {
    return await searchIndexDefinitionProblem(pool);
  } catch (err) {
    return (
      `the console search's trigram indexes are there and valid, but their definitions could not be compared with ` +
      `what migrate builds (it needs a temporary table): ${rawDatabaseError(pool, err)}`
    );
  }
}
