import { executeReadOnly } from '../../../activities/tools/sql/executor';
import { loadSqlParser } from '../../../activities/tools/sql/parser';
import { bindNamedParams, checkReadOnlySql, type SqlParser } from '../../../core/sql';
import { seedPacks } from '../../../db/seed';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { LEGITIMATE } from '../../support/sql-legitimate-corpus';

/**
 * The legitimate analytics corpus, allowed by the guardrail and actually run as the tools role
 * against the seeded business tables: what the guard lets through, the server accepts.
 */
let tdb: TestDatabase;
let parser: SqlParser;

beforeAll(async () => {
  parser = await loadSqlParser();
  tdb = await createTestDatabase();
  await seedPacks(tdb.db, ['zapper-semantic']);
});
afterAll(async () => tdb.drop());

it.each(LEGITIMATE.map((q) => [q.sql, q.params ?? {}] as const))('runs %j', async (sql, params) => {
  expect(checkReadOnlySql(sql, parser)).toMatchObject({ allowed: true });
  const bound = bindNamedParams(sql, params);
  const out = await executeReadOnly(
    { pool: tdb.toolsPool() },
    { text: bound.text, values: bound.values, maxRows: 500, statementTimeoutMs: 5000 }
  );
  expect(out.truncated).toBe(false);
  expect(Array.isArray(out.rows)).toBe(true);
});
