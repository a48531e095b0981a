import { DrizzleQueryError, sql, type SQL } from 'drizzle-orm';
import { sqlStateOf } from './error-text';
import type { Database } from './pool';

/**
 * A collation whose case mapping is the same on every database (ICU's root locale), for the console's text search's
 * ILIKE: the database's own would make it follow its locale, and under tr-TR `hi review` ILIKE `%REVIEW%` is false (I
 * lower-cases to dotless ı there). PostgreSQL has it only when built with ICU, and only in a database whose encoding
 * ICU supports (not SQL_ASCII).
 */
export const SEARCH_COLLATION_NAME = 'und-x-icu';

/** `text` with case folded the same on every database (above): what the search compares. */
export function foldedText(text: string): string {
  return `lower((${text}) COLLATE "${SEARCH_COLLATION_NAME}")`;
}

/**
 * `text` ILIKE `pattern`, with case folded the same on every database (above). Written as PostgreSQL runs that ILIKE
 * (like.c lower-cases both under the collation, then matches as LIKE), so the same rows match, and a trigram index on
 * the folded text (db/search-indexes.ts) can serve it, which it cannot for ILIKE under another collation.
 */
export function textMatches(text: SQL, pattern: string): SQL {
  const collation = sql.raw(`"${SEARCH_COLLATION_NAME}"`);
  return sql`lower((${text}) COLLATE ${collation}) LIKE lower(${pattern}::text COLLATE ${collation})`;
}

/** PostgreSQL's "undefined object": here, no such collation for the database's encoding. */
const UNDEFINED_OBJECT = '42704';

/**
 * Why the console's text search cannot run on this database, with what to do, or null when it can: runs the search's
 * own expression (textMatches), and when PostgreSQL has no such collation, reads its catalog for the reason.
 */
export async function searchCollationProblem(db: Database): Promise<string | null> {
  try {
    await db.execute(sql`SELECT ${textMatches(sql`'a'`, 'A')}`);
    return null;
  } catch (err) {
    if (sqlStateOf(err instanceof DrizzleQueryError ? err.cause : err) !== UNDEFINED_OBJECT) throw err;
  }
  const { rows } = await db.execute<{ icu: number; named: boolean; encoding: string }>(sql`
    SELECT count(*) FILTER (WHERE collprovider = 'i')::int AS icu,
      bool_or(collname = ${SEARCH_COLLATION_NAME}) AS named,
      pg_encoding_to_char((SELECT encoding FROM pg_database WHERE datname = current_database())) AS encoding
    FROM pg_collation`);
  const catalog = rows[0] ?? { icu: 0, named: false, encoding: 'unknown' };
  const lacks =
    `PostgreSQL has no collation "${SEARCH_COLLATION_NAME}" for this database, ` +
    "which the console's text search (q) uses";
  if (catalog.icu === 0) {
    return (
      `${lacks}: the server was built without ICU. ` +
      'Run a PostgreSQL built with ICU (the PGDG packages and the official Docker images are)'
    );
  }
  if (catalog.named) {
    return (
      `${lacks}: ICU has no collation for the database's encoding ${catalog.encoding}. ` +
      "Create the database with ENCODING 'UTF8'"
    );
  }
  return (
    `${lacks}: it was dropped. ` +
    `Create it again: CREATE COLLATION "${SEARCH_COLLATION_NAME}" (provider = icu, locale = 'und')`
  );
}
