import type { Pool, PoolClient } from 'pg';
import { installedTrigramSchema, searchIndexes, type SearchIndex } from './search-indexes';

/** An index of the search as the database has it and as `migrate` builds it, each `USING …` (pg_get_indexdef). */
interface DifferingIndex {
  name: string;
  found: string;
  wanted: string;
}

/** pg_get_indexdef's text from its method on (`USING gin (…) WHERE …`): what an index is, whatever its name and table. */
const DEFINITION = String.raw`substring(pg_get_indexdef(i.indexrelid) from ' USING .*$')`;

/**
 * The definition `migrate` gives `index`, as PostgreSQL writes it back: built on an empty temporary copy of its table's
 * columns (no row read, no lock on the table), in the caller's transaction, which is rolled back.
 */
async function wantedDefinition(client: PoolClient, index: SearchIndex, n: number): Promise<string> {
  const probe = `ce_search_index_probe_${n}`;
  await client.query(`CREATE TEMPORARY TABLE ${probe} (LIKE ${index.table}) ON COMMIT DROP`);
  await client.query(`CREATE INDEX ${probe}_idx ON ${probe} ${index.using}`);
  const { rows } = await client.query<{ def: string }>(
    `SELECT ${DEFINITION} AS def FROM pg_index i WHERE i.indexrelid = '${probe}_idx'::regclass`
  );
  return rows[0]?.def.trim() ?? '';
}

/** The search's indexes that are there and valid but are not what `migrate` builds: another key, method or table. */
async function differingIndexes(client: PoolClient, trigramSchema: string): Promise<DifferingIndex[]> {
  const differing: DifferingIndex[] = [];
  const indexes = searchIndexes(`${client.escapeIdentifier(trigramSchema)}.gin_trgm_ops`);
  for (const [n, index] of indexes.entries()) {
    const { rows } = await client.query<{ def: string; onTable: boolean }>(
      `SELECT ${DEFINITION} AS def, i.indrelid = to_regclass($2) AS "onTable"
         FROM pg_index i WHERE i.indexrelid = to_regclass(quote_ident($1)) AND i.indisvalid`,
      [index.name, index.table]
    );
    const present = rows[0];
    if (!present) continue; // Missing or invalid: searchIndexProblem says so.
    const wanted = `${index.table} ${await wantedDefinition(client, index, n)}`;
    const found = `${present.onTable ? index.table : 'another table'} ${present.def.trim()}`;
    if (found !== wanted) differing.push({ name: index.name, found, wanted });
  }
  return differing;
}

/**
 * Whether an index of the console search with the right name has the wrong definition: one made by hand, or one built
 * before a migration changed the search's text (0031: ce_search_fold, not lower()), which `migrate` keeps, as it builds
 * only the indexes whose name is missing (IF NOT EXISTS). The search cannot use such an index and reads whole tables.
 * Null when every index there is as `migrate` builds it (a missing one is searchIndexProblem's), or pg_trgm is not
 * created (searchIndexProblem says so). For `convengine doctor`: it creates temporary tables, not for a readiness probe.
 */
export async function searchIndexDefinitionProblem(pool: Pool): Promise<string | null> {
  const client = await pool.connect();
  try {
    const trigramSchema = await installedTrigramSchema(client);
    if (trigramSchema === null) return null;
    await client.query('BEGIN');
    const differing = await differingIndexes(client, trigramSchema);
    if (differing.length === 0) return null;
    const drops = differing.map((d) => `DROP INDEX CONCURRENTLY ${d.name};`).join(' ');
    const said = differing.map((d) => `${d.name} is ON ${d.found}, migrate builds it ON ${d.wanted}`).join('; ');
    return (
      `console search (q) has an index that is not what migrate builds, which the search does not use (it reads ` +
      `whole tables, slow on a large database): ${said}. Drop it (${drops}) and run \`convengine migrate\` again, ` +
      'which builds it as it should be'
    );
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release();
  }
}
