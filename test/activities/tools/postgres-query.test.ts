import type { PostgresQueryInterceptor } from '../../../activities/tools/sql/interceptors';
import { runPostgresQuery } from '../../../activities/tools/sql/postgres-query';
import type { SqlGuardrailRow } from '../../../core/config/tool-rows';
import type { JsonObject } from '../../../core/json';
import { useDbToolFixture } from '../../support/db-tool-fixture';
import { engineFailure as failure } from '../../support/engine-failure';

const fx = useDbToolFixture();
const { context } = fx;

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
    const r = await fx.tdb.pool.query<{ n: number }>('select count(*)::int as n from business.orders');
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
