import { openDatabase } from '../../db/pool';
import { searchIndexProblem, SEARCH_INDEX_NAMES } from '../../db/search-indexes';
import { databaseError } from '../database-failure';
import type { Finding } from './checks';

/**
 * Whether the console's text search has its trigram indexes (db/search-indexes.ts): without them it still works, but
 * reads whole tables, seconds on a large database, and `migrate` said so only once, when it could not build them (an
 * index dropped since said nothing at all). Turns do not use them, so it warns, naming the fix.
 */
export async function checkSearchIndexes(databaseUrl: string): Promise<Finding> {
  const handle = openDatabase(databaseUrl, { max: 1, connectionTimeoutMillis: 5_000 });
  try {
    const problem = await searchIndexProblem(handle.pool);
    if (problem !== null) return { check: 'search-indexes', level: 'warn', message: problem };
    const message = `the console search's ${SEARCH_INDEX_NAMES.length} trigram indexes are there and valid`;
    return { check: 'search-indexes', level: 'ok', message };
  } catch (err) {
    const message = `cannot read the console search's indexes: ${databaseError(handle.pool, err)}`;
    return { check: 'search-indexes', level: 'fail', message };
  } finally {
    await handle.close();
  }
}
