import { runDbTool } from '../../../activities/tools/db/db-tool';
import { executeTool } from '../../../activities/tools/dispatch';
import type { McpDbToolRow } from '../../../core/config/tool-rows';
import { dbTool, mcpTool, objectSchema } from '../../../db/seed/builders';
import { useDbToolFixture } from '../../support/db-tool-fixture';
import { engineFailure as failure } from '../../support/engine-failure';

const { context } = useDbToolFixture();

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
