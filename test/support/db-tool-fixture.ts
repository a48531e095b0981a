import type { ActivityDeps } from '../../activities/deps';
import { createToolDeps, type ToolHandlerContext } from '../../activities/tools/deps';
import type { PostgresQueryInterceptor } from '../../activities/tools/sql/interceptors';
import { loadSqlParser } from '../../activities/tools/sql/parser';
import type { ConfigRows } from '../../core/config/types';
import type { JsonObject } from '../../core/json';
import type { SqlParser } from '../../core/sql';
import { sessionFor, snapshotOf } from './config-rows';
import { createTestDatabase, type TestDatabase } from './database';

export interface DbToolRun {
  ctx: ToolHandlerContext;
  audits: { stage: string; payload: JsonObject }[];
}

export interface DbToolFixture {
  /** Set before the first test of the file that called useDbToolFixture. */
  tdb: TestDatabase;
  /** A DB tool call's handler context on the test database (as the tools role), and the audits it emits. */
  context(
    toolCode: string,
    args: JsonObject,
    rows?: Partial<ConfigRows>,
    interceptors?: PostgresQueryInterceptor[]
  ): DbToolRun;
}

/**
 * A test database with business.move_request (two rows), business.orders (five) and
 * business.fetch_inventory_status, and tool calls on it. Call it at the top of a test file.
 */
export function useDbToolFixture(): DbToolFixture {
  let parser: SqlParser;
  const fx = {
    context: (toolCode, args, rows = {}, interceptors = []) => {
      const audits: DbToolRun['audits'] = [];
      const tools = createToolDeps({ sqlPool: fx.tdb.toolsPool(), sqlParser: parser, env: {}, interceptors });
      const ctx: ToolHandlerContext = {
        toolCode,
        toolGroup: 'DB',
        args,
        call: { toolCode, args, callIndex: 1, idempotencyKey: 't/tool/1' },
        session: sessionFor('status please'),
        snapshot: snapshotOf(rows),
        deps: { clock: { now: () => new Date('2026-03-01T10:00:00Z') } } as ActivityDeps,
        tools,
        audit: (stage, payload) => audits.push({ stage, payload }),
      };
      return { ctx, audits };
    },
  } as DbToolFixture;
  beforeAll(async () => {
    parser = await loadSqlParser();
    fx.tdb = await createTestDatabase();
    await fx.tdb.pool.query(`
      CREATE TABLE business.move_request (connection_id text PRIMARY KEY, status text NOT NULL);
      INSERT INTO business.move_request VALUES ('CON1388', 'MOVED'), ('CON1128', 'IN_PROGRESS');
      CREATE TABLE business.orders (id int PRIMARY KEY, created_at timestamptz NOT NULL, booked date NOT NULL);
      INSERT INTO business.orders SELECT g, now() - g * interval '1 day', date '2025-02-27' + g FROM generate_series(1, 5) g;
      CREATE FUNCTION business.fetch_inventory_status(int) RETURNS text LANGUAGE sql AS 'SELECT ''IN_STOCK''';
    `);
  });
  afterAll(async () => fx.tdb.drop());
  return fx;
}
