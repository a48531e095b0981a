import type { ActivityDeps } from '../../../activities/deps';
import { runDbTool } from '../../../activities/tools/db/db-tool';
import { executeTool } from '../../../activities/tools/dispatch';
import { createToolDeps, type ToolHandlerContext } from '../../../activities/tools/deps';
import type { PostgresQueryInterceptor } from '../../../activities/tools/sql/interceptors';
import { loadSqlParser } from '../../../activities/tools/sql/parser';
import { runPostgresQuery } from '../../../activities/tools/sql/postgres-query';
import type { ConfigRows } from '../../../core/config/types';
import type { McpDbToolRow, SqlGuardrailRow } from '../../../core/config/tool-rows';
import { EngineError } from '../../../core/errors';
import type { JsonObject } from '../../../core/json';
import type { SqlParser } from '../../../core/sql';
import { dbTool, mcpTool, objectSchema } from '../../../db/seed/builders';
import { sessionFor, snapshotOf } from '../../support/config-rows';
import { createTestDatabase, type TestDatabase } from '../../support/database';

let tdb: TestDatabase;
let parser: SqlParser;

beforeAll(async () => {
  parser = await loadSqlParser();
  tdb = await createTestDatabase();
  await tdb.pool.query(`
    CREATE TABLE business.move_request (connection_id text PRIMARY KEY, status text NOT NULL);
    INSERT INTO business.move_request VALUES ('CON1388', 'MOVED'), ('CON1128', 'IN_PROGRESS');
    CREATE TABLE business.orders (id int PRIMARY KEY, created_at timestamptz NOT NULL, booked date NOT NULL);
    INSERT INTO business.orders SELECT g, now() - g * interval '1 day', date '2025-02-27' + g FROM generate_series(1, 5) g;
    CREATE FUNCTION business.fetch_inventory_status(int) RETURNS text LANGUAGE sql AS 'SELECT ''IN_STOCK''';
  `);
});
afterAll(async () => tdb.drop());

interface Run {
  ctx: ToolHandlerContext;
  audits: { stage: string; payload: JsonObject }[];
}

function context(
  toolCode: string,
  args: JsonObject,
  rows: Partial<ConfigRows> = {},
  interceptors: PostgresQueryInterceptor[] = []
): Run {
  const audits: Run['audits'] = [];
  const tools = createToolDeps({ sqlPool: tdb.toolsPool(), sqlParser: parser, env: {}, interceptors });
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
}

async function failure(promise: Promise<unknown>): Promise<EngineError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e
  );
  expect(err).toBeInstanceOf(EngineError);
  return err as EngineError;
}

const MOVE_STATUS = dbTool({
  toolId: 2001,
  sqlTemplate: 'select status from move_request where connection_id = :connection_id limit :limit',
  paramSchema: objectSchema({ connection_id: { type: 'string', pattern: '^CON\\d+$' } }, ['connection_id']),
  maxRows: 200,
});

describe('ce_mcp_db_tool (D8)', () => {
  it('binds named params, adds limit = max_rows and audits MCP_DB_PREFLIGHT then MCP_DB_SQL_EXECUTION', async () => {
    const run = context('postgres.move_status', { connection_id: 'CON1388' });
    expect(await runDbTool(run.ctx, MOVE_STATUS)).toEqual({
      rows: [{ status: 'MOVED' }],
      rowCount: 1,
      truncated: false,
    });
    expect(run.audits).toEqual([
      {
        stage: 'MCP_DB_PREFLIGHT',
        payload: {
          tool_code: 'postgres.move_status',
          tool_group: expect.any(String),
          tool_id: 2001,
          attempt: 1,
          max_retries: 0,
          sql_auto_repair_enabled: false,
          sql_before: MOVE_STATUS.sqlTemplate,
          sql_after: MOVE_STATUS.sqlTemplate,
          params: { connection_id: 'CON1388', limit: 200 },
          preflight_diagnostics: { guardrail: 'ALLOWED', policy_enforced: true, bound: ['connection_id', 'limit'] },
        },
      },
      {
        stage: 'MCP_DB_SQL_EXECUTION',
        payload: expect.objectContaining({
          params: { connection_id: 'CON1388', limit: 200 },
          row_count: 1,
          rows: [{ status: 'MOVED' }],
        }),
      },
    ]);
  });

  it('validates args against param_schema (in the executor) as non-retryable TOOL_ARGS_INVALID', async () => {
    const rows = {
      mcpTools: [mcpTool({ toolId: 2001, toolCode: 't', toolGroup: 'DB', intentCode: 'ANY', stateCode: 'ANY' })],
      mcpDbTools: [MOVE_STATUS],
    };
    const missing = await failure(executeTool(context('t', {}, rows).ctx, null));
    expect(missing).toMatchObject({ type: 'TOOL_ARGS_INVALID', retryable: false });
    expect(missing.message).toContain("must have required property 'connection_id'");
    const pattern = await failure(executeTool(context('t', { connection_id: "x' or 1=1 --" }, rows).ctx, null));
    expect(pattern.message).toContain('args.connection_id must match pattern');
    const extra = await failure(executeTool(context('t', { connection_id: 'CON1388', admin: true }, rows).ctx, null));
    expect(extra.message).toContain('args has "admin", which the tool does not accept');
  });

  it('expands ${identifier} placeholders only with listed plain identifiers', async () => {
    const row: McpDbToolRow = dbTool({
      toolId: 2,
      sqlTemplate: 'select count(*)::int as n from ${table}',
      allowedIdentifiers: { table: ['move_request', 'orders'] },
    });
    expect(await runDbTool(context('t', { table: 'orders' }).ctx, row)).toMatchObject({ rows: [{ n: 5 }] });
    const notListed = await failure(runDbTool(context('t', { table: 'secrets' }).ctx, row));
    expect(notListed.message).toContain('not in allowed_identifiers.table');
    const injected = await failure(runDbTool(context('t', { table: 'orders; drop table orders' }).ctx, row));
    expect(injected).toMatchObject({ type: 'TOOL_ARGS_INVALID' });
    expect(injected.message).toContain('must be a plain identifier');
  });

  it.each([
    ['null', null],
    ['without the name', { other: ['orders'] }],
    ['with an empty list', { table: [] }],
  ])('allows no identifier when allowed_identifiers is %s (fails closed)', async (_case, allowedIdentifiers) => {
    const row = dbTool({ toolId: 6, sqlTemplate: 'select count(*)::int as n from ${table}', allowedIdentifiers });
    const refused = await failure(runDbTool(context('t', { table: 'orders' }).ctx, row));
    expect(refused).toMatchObject({ type: 'TOOL_ARGS_INVALID' });
    expect(refused.message).toBe(
      'DB tool t: identifier ${table} has no allowed_identifiers entry, so no identifier is allowed'
    );
  });

  it('allows WITH … SELECT templates and caps rows at max_rows', async () => {
    const row = dbTool({
      toolId: 3,
      sqlTemplate: 'with o as (select id from orders) select id from o order by id',
      maxRows: 2,
    });
    expect(await runDbTool(context('t', {}).ctx, row)).toEqual({
      rows: [{ id: 1 }, { id: 2 }],
      rowCount: 2,
      truncated: true,
    });
  });

  it('enforces the function policy in safe mode only; writes are refused either way', async () => {
    const md5 = (safeMode: boolean) => dbTool({ toolId: 4, sqlTemplate: "select md5('a') as h", safeMode });
    const refused = await failure(runDbTool(context('t', {}).ctx, md5(true)));
    expect(refused).toMatchObject({ type: 'SQL_GUARDRAIL_REJECTED', retryable: false });
    expect(refused.message).toContain('MD5');
    expect(await runDbTool(context('t', {}).ctx, md5(false))).toMatchObject({ rowCount: 1 });
    const write = dbTool({ toolId: 5, sqlTemplate: 'delete from orders', safeMode: false });
    expect((await failure(runDbTool(context('t', {}).ctx, write))).message).toContain(
      'DELETE statements are not allowed'
    );
  });
});

const guardrailRows = (rows: [string, string][]): SqlGuardrailRow[] =>
  rows.map(([ruleType, matchValue], i) => ({
    guardrailId: i + 1,
    ruleType,
    matchValue,
    description: null,
    enabled: true,
  }));

describe('postgres.query (§7.3, §14 #46–48)', () => {
  it.each([
    'DELETE FROM orders',
    'update orders set id = 1',
    "INSERT INTO orders VALUES (9, now(), '2025-01-01')",
    'DROP TABLE orders',
    'TRUNCATE orders',
    'ALTER TABLE orders ADD c int',
    'CREATE TABLE x (a int)',
    'MERGE INTO orders o USING orders p ON o.id = p.id WHEN MATCHED THEN DELETE',
    'CALL p()',
    'select * into t2 from orders',
    'select * from orders for update',
    'select 1; select 2',
  ])('46 refuses %j without executing it', async (sql) => {
    const run = context('postgres.query', { query: sql });
    const err = await failure(runPostgresQuery(run.ctx));
    expect(err).toMatchObject({ type: 'SQL_GUARDRAIL_REJECTED', retryable: false });
    expect(run.audits.map((a) => a.stage)).toEqual(['DYNAMIC_SQL_EXECUTION_ERROR']);
    const r = await tdb.pool.query<{ n: number }>('select count(*)::int as n from business.orders');
    expect(r.rows[0]?.n).toBe(5);
  });

  it.each(['select 1;', 'with x as (select 1 as v) select * from x', 'select id from orders -- delete from orders'])(
    '46 runs %j',
    async (sql) => {
      const run = context('postgres.query', { sql });
      expect(await runPostgresQuery(run.ctx)).toMatchObject({ status: 'SUCCESS' });
      expect(run.audits.map((a) => a.stage)).toEqual(['MCP_DB_PREFLIGHT', 'DYNAMIC_SQL_EXECUTION']);
    }
  );

  it('audits MCP_DB_PREFLIGHT with the SQL before and after the interceptors, before running it', async () => {
    const query = "select id from orders where created_at = '2025-02-29' and id < :max";
    const run = context('postgres.query', { query, params: { max: 3 } });
    expect(await runPostgresQuery(run.ctx)).toMatchObject({ status: 'SUCCESS' });
    const preflight = run.audits.find((a) => a.stage === 'MCP_DB_PREFLIGHT')?.payload;
    expect(preflight).toMatchObject({
      tool_code: 'postgres.query',
      attempt: 1,
      sql_before: query,
      sql_after: query.replace('2025-02-29', '2025-03-01'),
      params_before: { max: 3 },
      params_after: { max: 3 },
      preflight_diagnostics: { guardrail: 'ALLOWED', bound: ['max'] },
    });
    expect(preflight?.['preflight_diagnostics']).toHaveProperty('interceptors', [expect.any(String)]);
  });

  it('binds named params and reports a missing query or param clearly', async () => {
    const out = await runPostgresQuery(
      context('postgres.query', { query: 'select id from orders where id < :max order by id', params: { max: 3 } }).ctx
    );
    expect(out).toMatchObject({ rowCount: 2, rows: [{ id: 1 }, { id: 2 }] });
    expect((await failure(runPostgresQuery(context('postgres.query', {}).ctx))).message).toContain(
      'missing required parameter "query"'
    );
    const missing = await failure(runPostgresQuery(context('postgres.query', { query: 'select :a' }).ctx));
    expect(missing).toMatchObject({ type: 'TOOL_ARGS_INVALID' });
  });

  it('47 applies ce_mcp_sql_guardrail rows', async () => {
    const rows = {
      sqlGuardrails: guardrailRows([
        ['BLOCK_FUNCTION', 'upper'],
        ['ALLOW_FUNCTION', 'fetch_inventory_status'],
        ['ALLOW_FUNCTION', 'pg_sleep'],
        ['BLOCK_KEYWORD', 'explain'],
      ]),
    };
    const run = (query: string) => runPostgresQuery(context('postgres.query', { query }, rows).ctx);
    expect((await failure(run("select upper('a')"))).message).toContain('uses blocked function: UPPER');
    expect((await failure(run('select pg_sleep(1)'))).message).toContain('PG_SLEEP, which sleeps');
    expect(await run('select fetch_inventory_status(1) as s')).toMatchObject({ rows: [{ s: 'IN_STOCK' }] });
    expect(await run('select count(*)::int as n from orders')).toMatchObject({ rows: [{ n: 5 }] });
    expect((await failure(run("select md5('a')"))).message).toContain('function not present in the allowlist: MD5');
    expect((await failure(run('select 1 as explain'))).message).toContain('blocked keyword: EXPLAIN');
  });

  it('48 rewrites epoch conversions on timestamp/date columns and non-leap Feb 29 before the guardrail', async () => {
    const sql =
      "select o.id from orders o where to_timestamp(o.created_at/1000.0) > now() - interval '3 days' and o.booked <> '2025-02-29' order by o.id";
    const run = context('postgres.query', { query: sql });
    const out = (await runPostgresQuery(run.ctx)) as JsonObject;
    expect(out['sql']).toBe(
      "select o.id from orders o where o.created_at > now() - interval '3 days' and o.booked <> '2025-03-01' order by o.id"
    );
    // id 2 is booked on 2025-03-01, so the rewritten literal excludes it (the original would not even parse as a date).
    expect(out['rows']).toEqual([{ id: 1 }]);
    expect(out['interceptors']).toEqual(['DefaultPostgresQueryInterceptor']);
  });

  it('48 runs consumer interceptors first, and the guardrail checks what they produce', async () => {
    const calls: string[] = [];
    const consumer: PostgresQueryInterceptor = {
      name: 'TenantFilter',
      supports: (ctx) => ctx.toolCode === 'postgres.query',
      intercept: async (sql) => {
        calls.push(`consumer saw: ${sql}`);
        return sql.replace('from orders', 'from orders where id > 3');
      },
    };
    const out = (await runPostgresQuery(
      context('postgres.query', { query: 'select id from orders' }, {}, [consumer]).ctx
    )) as JsonObject;
    expect(out['rows']).toEqual([{ id: 4 }, { id: 5 }]);
    expect(out['interceptors']).toEqual(['TenantFilter']);
    const sneaky: PostgresQueryInterceptor = {
      name: 'Sneaky',
      supports: () => true,
      intercept: async () => 'delete from orders',
    };
    const err = await failure(runPostgresQuery(context('postgres.query', { query: 'select 1' }, {}, [sneaky]).ctx));
    expect(err.type).toBe('SQL_GUARDRAIL_REJECTED');
    expect(calls).toEqual(['consumer saw: select id from orders']);
  });
});
