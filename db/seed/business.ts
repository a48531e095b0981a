import { sql, type SQL } from 'drizzle-orm';
import { BUSINESS_READERS_SQL } from '../tools-role-grants';
import type { BusinessTable } from './types';

/** Runs SQL inside the seeding transaction. */
export interface SqlExecutor {
  execute(query: SQL): Promise<unknown>;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

function ident(name: string): SQL {
  if (!IDENTIFIER.test(name))
    throw new Error(`business table/column name "${name}" must be a lower-case SQL identifier`);
  return sql`${sql.identifier(name)}`;
}

/**
 * Creates the table in schema `business` if needed, lets the read-only tools role read it, and
 * upserts the rows by primary key (seeding twice never duplicates a row).
 */
export async function applyBusinessTable(tx: SqlExecutor, table: BusinessTable): Promise<number> {
  const name = sql`business.${ident(table.name)}`;
  const columns = Object.entries(table.columns).map(([column, type]) => sql`${ident(column)} ${sql.raw(type)}`);
  const primaryKey = sql.join(table.primaryKey.map(ident), sql`, `);
  await tx.execute(
    sql`CREATE TABLE IF NOT EXISTS ${name} (${sql.join(columns, sql`, `)}, PRIMARY KEY (${primaryKey}))`
  );
  // The SQL tools' role of this database (db/tools-role.ts): migrate gave it USAGE on the schema.
  await tx.execute(
    sql.raw(`DO $$ DECLARE reader text; BEGIN
      FOR reader IN ${BUSINESS_READERS_SQL} LOOP
        EXECUTE format('GRANT SELECT ON business.%I TO %I', '${table.name}', reader);
      END LOOP;
    END $$`)
  );
  if (table.rows.length === 0) return 0;
  const names = Object.keys(table.columns);
  const values = table.rows.map(
    (row) =>
      sql`(${sql.join(
        names.map((n) => sql`${row[n] ?? null}`),
        sql`, `
      )})`
  );
  const updates = names
    .filter((n) => !table.primaryKey.includes(n))
    .map((n) => sql`${ident(n)} = excluded.${ident(n)}`);
  const onConflict = updates.length > 0 ? sql`DO UPDATE SET ${sql.join(updates, sql`, `)}` : sql`DO NOTHING`;
  await tx.execute(
    sql`INSERT INTO ${name} (${sql.join(names.map(ident), sql`, `)}) VALUES ${sql.join(values, sql`, `)}
        ON CONFLICT (${primaryKey}) ${onConflict}`
  );
  return table.rows.length;
}
