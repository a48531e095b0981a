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

/**
 * How the search folds a text, around the text: Unicode's compatibility caseless match (NFKC, case fold, NFKC again),
 * with PostgreSQL 15's functions. NFKC, not NFC: besides making a composed é and an e with a combining accent one text
 * (NFC does that too), it makes a compatibility form its plain one (full-width ＡＢＣ１２３ as a CJK input method types
 * it, the ligature ﬁ, ™), at the cost of NFC (PostgreSQL decomposes and recomposes for either). The case fold is
 * lower(upper()) under the collation above, which folds fully (ß is SS, then ss; ſ is s), with the three fixes a full
 * case folding has over it: a final ς, which lower() makes of a word-final Σ, is σ, so `ΟΣ` finds `ΟΣΑ`; the Turkish
 * İ, which lower() makes i with a combining dot above, is i (the dot dropped among any other marks of the i); the capital ẞ, its own upper case, is ss as ß is (PostgreSQL
 * 15 has no casefold(); 18 has). The second NFKC composes what case mapping left decomposed (upper(ΐ) is Ϊ́, which
 * lower() does not recompose). It is the database function ce_search_fold (db/migrations/0030_console_search_fold.sql),
 * for the cost it declares (about 10 times lower()'s alone, paid on a row the indexes do not rule out). The index
 * expressions (db/search-indexes.ts) are this fold: when it changes, a migration drops them, and `migrate` builds
 * them again.
 */
const FOLD = { before: 'ce_search_fold(', after: ')' };

/** `text` (SQL text) as the search compares it (FOLD): what the indexes are built on. */
export function foldedText(text: string): string {
  return `${FOLD.before}${text}${FOLD.after}`;
}

const folded = (text: SQL) => sql.join([sql.raw(FOLD.before), text, sql.raw(FOLD.after)]);

/**
 * The LIKE pattern of a text that holds `query`: the query folded as the text is, and only then its `\`, `%` and `_`
 * escaped, since NFKC makes a full-width ％ or ＿ (or ﹪, ﹍) the plain one, a wildcard had it been escaped before.
 * Folded by PostgreSQL, never by JavaScript: Node's Unicode is not the server's (Node 20's ICU has Unicode 17, and
 * PostgreSQL 15 normalizes by Unicode 14 and cases by its own ICU), so a query folded in JavaScript could miss text
 * that PostgreSQL folded otherwise. Immutable functions of a bound value: the planner computes it once per statement,
 * and the trigram indexes take it as a constant.
 */
function containingPattern(query: string): SQL {
  const escaped = sql`replace(replace(replace(${folded(sql`${query}::text`)}, '\\', '\\\\'), '%', '\\%'), '_', '\\_')`;
  return sql`('%' || ${escaped} || '%')`;
}

/**
 * `text` holds `query`, both folded (FOLD) on the database, so the same on every database whatever its locale: a
 * trigram index on the folded text (db/search-indexes.ts) serves it. `%` and `_` in the query are literal text.
 */
export function textMatches(text: SQL, query: string): SQL {
  return sql`${folded(text)} LIKE ${containingPattern(query)}`;
}

/** PostgreSQL's "undefined object": here, no such collation for the database's encoding. */
const UNDEFINED_OBJECT = '42704';

/**
 * Why the console's text search cannot run on this database, with what to do, or null when it can: case-maps under the
 * collation as ce_search_fold does (doctor may run before the migration that creates it), and when PostgreSQL has no
 * such collation, reads its catalog for the reason.
 */
export async function searchCollationProblem(db: Database): Promise<string | null> {
  try {
    await db.execute(sql.raw(`SELECT lower(upper('a' COLLATE "${SEARCH_COLLATION_NAME}"))`));
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
