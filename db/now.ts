import type { Database } from './pool';

/**
 * The database's now() less `ageMs`. Rows are dated by the database's clock; an instant taken from this host's,
 * which may run ahead of it or behind (a skewed VM, faketime), picks rows by another clock than the one that dated
 * them: a prune cutoff ahead deletes rows written a minute before, a `whatif --since` age misses or adds turns.
 */
export async function databaseNowLess(db: Database, ageMs: number): Promise<Date> {
  const { rows } = await db.$client.query<{ at: Date }>("SELECT now() - $1::float8 * interval '1 millisecond' AS at", [
    ageMs,
  ]);
  const at = rows[0]?.at;
  if (!(at instanceof Date)) throw new Error(`SELECT now() answered ${JSON.stringify(at)}, not a timestamp`);
  return at;
}
