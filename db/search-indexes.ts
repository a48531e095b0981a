import type { ClientBase, PoolClient } from 'pg';
import { dropInvalidIndex } from './migrate-outside-transaction';
import { foldedText } from './search-collation';

/**
 * Trigram indexes for the console's conversation search (api/console/conversation-text.ts, matchingRows):
 * without them a search reads every USER_INPUT audit row and every history row, seconds at a million audit rows. They
 * need the pg_trgm extension, which PostgreSQL ships among its contrib modules and a database owner may create (a
 * trusted extension), but which a managed database may not offer. So they are not a migration, which would fail there:
 * each `migrate` creates the extension if it can and builds any index missing, CONCURRENTLY so turns keep writing;
 * where it cannot, it says so and the search works as it did, reading the tables. The text is folded (NFKC, full case
 * folding under ICU's root locale) before pg_trgm sees it (foldedText), so an index finds what the search finds on any
 * database locale (pg_trgm's own case folding follows the database's). The expressions are the search's own: a fold
 * that changes needs a migration that drops these (as 0031 does), or IF NOT EXISTS keeps the old ones.
 */
export function searchIndexes(ops: string): SearchIndex[] {
  // One text per index: a multicolumn one was not used for the OR of its columns (a BitmapOr of two indexes is).
  const gin = (name: string, table: string, text: string, where = '') => ({
    name,
    table,
    using: `USING gin (${foldedText(text)} ${ops})${where}`,
  });
  return [
    gin('ce_conversation_id_trgm_idx', 'ce_conversation', 'conversation_id::text'),
    gin('ce_conversation_last_user_text_trgm_idx', 'ce_conversation', 'last_user_text'),
    gin('ce_history_user_input_trgm_idx', 'ce_conversation_history', 'user_input'),
    gin('ce_history_reply_trgm_idx', 'ce_conversation_history', 'ce_reply_search_text(assistant_output)'),
    gin('ce_audit_user_input_trgm_idx', 'ce_audit', `payload_json ->> 'text'`, ` WHERE stage = 'USER_INPUT'`),
  ];
}

/** One index of the search: `CREATE INDEX <name> ON <table> <using>`. */
export interface SearchIndex {
  name: string;
  table: string;
  /** Its method, key and predicate: `USING gin (…)[ WHERE …]`. */
  using: string;
}

export const SEARCH_INDEX_NAMES = searchIndexes('').map((index) => index.name);

/** The schema pg_trgm is created in, null where it is not. */
export async function installedTrigramSchema(db: Pick<ClientBase, 'query'>): Promise<string | null> {
  const { rows } = await db.query<{ schema: string }>(
    `SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
      WHERE e.extname = 'pg_trgm'`
  );
  return rows[0]?.schema ?? null;
}

/** pg_trgm's schema, created there when it can be; or why it cannot. */
async function trigramSchema(client: PoolClient): Promise<{ schema: string } | { refused: string }> {
  let schema = await installedTrigramSchema(client);
  if (schema === null) {
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    } catch (err) {
      return { refused: (err as Error).message };
    }
    schema = await installedTrigramSchema(client);
  }
  return schema !== null ? { schema } : { refused: 'it is not installed' };
}

/** What the search reads without its indexes, and how to give it them. */
export const withoutIndexes = (
  why: string,
  fix = 'Have the database offer pg_trgm (CREATE EXTENSION pg_trgm) and run'
) =>
  `console search (q) has no trigram index (${why}): it works, but reads whole tables, slow on a large database. ` +
  `${fix} \`convengine migrate\` again`;

/** pg_trgm as the database has it: created, offered by the server (not yet created), or neither. */
async function trigramState(db: Pick<ClientBase, 'query'>): Promise<'installed' | 'offered' | 'absent'> {
  const { rows } = await db.query<{ installed: boolean; offered: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') AS installed,
            EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') AS offered`
  );
  return rows[0]?.installed ? 'installed' : rows[0]?.offered ? 'offered' : 'absent';
}

/**
 * Why the console search reads whole tables, with the fix, or null when every index of it is there and valid: the
 * check `convengine doctor` and the API's readiness run (a migrate that could not build them said so once, at the
 * time; an index dropped since, or a build that failed, says nothing otherwise). An index a build left INVALID (one
 * that failed, or one under way) is missing: PostgreSQL does not use it.
 */
export async function searchIndexProblem(db: Pick<ClientBase, 'query'>): Promise<string | null> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT want.name FROM unnest($1::text[]) AS want(name)
       LEFT JOIN pg_index i ON i.indexrelid = to_regclass(quote_ident(want.name))
      WHERE i.indisvalid IS NOT TRUE ORDER BY want.name`,
    [SEARCH_INDEX_NAMES]
  );
  if (rows.length === 0) return null;
  const missing = rows.map((r) => r.name);
  const trigram = await trigramState(db);
  if (trigram === 'absent') {
    const fix = "Install PostgreSQL's contrib modules on the server (or ask the provider to offer pg_trgm), then run";
    return withoutIndexes('the server does not offer the pg_trgm extension', fix);
  }
  if (trigram === 'offered') {
    const fix = 'Run, as the database owner or a superuser (who may create the extension),';
    return withoutIndexes('the pg_trgm extension is not created in this database', fix);
  }
  const which = missing.length === SEARCH_INDEX_NAMES.length ? 'all of them' : missing.join(', ');
  const why = `${which} missing or invalid: dropped, or a build that failed or is under way`;
  return withoutIndexes(why, 'Run');
}

/** Builds the search's missing indexes; returns what to tell the operator (nothing when all are there). */
export async function ensureSearchIndexes(client: PoolClient): Promise<string[]> {
  const trigram = await trigramSchema(client);
  if ('refused' in trigram) return [withoutIndexes(`the pg_trgm extension could not be created: ${trigram.refused}`)];
  const notes: string[] = [];
  for (const index of searchIndexes(`${client.escapeIdentifier(trigram.schema)}.gin_trgm_ops`)) {
    try {
      await dropInvalidIndex(client, { name: index.name, schema: null });
      await client.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${index.name} ON ${index.table} ${index.using}`);
    } catch (err) {
      notes.push(withoutIndexes(`${index.name} could not be built: ${(err as Error).message}`));
    }
  }
  return notes;
}
