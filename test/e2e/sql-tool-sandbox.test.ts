import type { McpToolRow } from '../../core/config/tool-rows';
import { migrate } from '../../db/migrate';
import { seedPacks } from '../../db/seed';
import { mcpTool } from '../../db/seed/builders';
import { ApiHarness, type ApiJson } from '../support/api-harness';
import { toolsRoleAdvisoryLocks } from '../support/database';
import { configRow } from '../support/config-rows';
import { answer, ORDER, ORDER_STATUS, ORDER_TRACE, orderConfig } from '../support/order-config';

/**
 * The SQL tool sandbox through the HTTP API, as a hostile caller would try it (issue #12): the
 * caller sends SQL of its choice to postgres.query through a direct tool_request (the config
 * author allowed that here; by default it is refused). The database is a parameter: the test
 * database lives on the server DATABASE_URL names (the machine's PostgreSQL by default, or the
 * embedded one).
 */
const SECRET = 'XYZZY-4242-secret-of-another-user';
const STATEMENT_TIMEOUT_MS = 400;

const postgresQuery = (allowDirectRequest: boolean | null): McpToolRow =>
  mcpTool({
    toolId: 5009,
    toolCode: 'postgres.query',
    toolGroup: 'DB',
    intentCode: ORDER,
    stateCode: 'ANALYZE',
    maxAttempts: 2,
    initialIntervalMs: 100,
    allowDirectRequest,
  });

describe('SQL tool sandbox through the HTTP API', () => {
  let h: ApiHarness;

  /** The planner (scripted) answers without calling a tool, so the only tool that runs is the request's own. */
  const ask = (query: string) =>
    h.request('POST', '/api/v1/conversation/message', {
      json: {
        message: 'Check order ORD-7017 status.',
        inputParams: { tool_request: { tool_code: 'postgres.query', args: { query } } },
      },
    });

  const execution = (res: { json(): ApiJson }) => res.json().context?.mcp?.toolExecution as ApiJson;

  const configure = async (allowDirectRequest: boolean | null) => {
    await h.wf.mcp.configure({
      ...orderConfig({
        configs: [configRow('McpDbExecutor', 'STATEMENT_TIMEOUT_MS', String(STATEMENT_TIMEOUT_MS))],
      }),
      mcpTools: [ORDER_STATUS, ORDER_TRACE, postgresQuery(allowDirectRequest)],
    });
  };

  beforeAll(async () => {
    h = await ApiHarness.start();
    await seedPacks(h.wf.mcp.deps.db, ['zapper-semantic']);
    await configure(true);
    h.wf.mcp.llm.setScript([{ ...answer('Checked.'), persistent: true }]);
    const victim = await h.request('POST', '/api/v1/conversation/message', { json: { message: `hello ${SECRET}` } });
    expect(victim.status).toBe(200);
  });
  afterAll(async () => h?.stop());

  it('runs legitimate analytics on the business schema as the tools role', async () => {
    const res = await ask(
      'select status_code, count(*) as n from zp_disco_request group by status_code order by status_code'
    );
    expect(res.status === 200 ? 200 : res.body).toBe(200);
    expect(execution(res)).toMatchObject({ status: 'SUCCESS', result: { status: 'SUCCESS' } });
    expect(execution(res).result.rows.length).toBeGreaterThan(0);
  });

  it.each([
    ['the conversation table', `select user_text from public.ce_conversation`],
    ['the audit table by its unqualified name', `select payload::text from ce_audit`],
    ['the conversation table through a subquery', `select (select count(*) from public.ce_conversation) as n`],
    ['SQL given as text', `select query_to_xml('select * from public.ce_conversation', true, true, '')`],
    ['a cast error that echoes data', `select (select user_text from public.ce_conversation limit 1)::int`],
    ['the catalog', `select query from pg_stat_activity`],
    ['information_schema', `select table_name from information_schema.tables`],
    ['a server file', `select pg_read_file('/etc/passwd')`],
  ])('cannot read %s, and nothing of another conversation reaches the response', async (_what, query) => {
    const res = await ask(query);
    expect(res.status).toBe(200);
    expect(execution(res)).toMatchObject({ status: 'ERROR', toolExecuted: false });
    expect(res.body).not.toContain(SECRET);
    expect(res.body).not.toContain('root:');
  });

  it.each([
    ["select set_config('role', 'postgres', false)"],
    ['reset role'],
    ['set role postgres'],
    ["select set_config('search_path', 'public', false), count(*) from ce_conversation"],
    ['select current_user'],
  ])('cannot escape its role: %s', async (query) => {
    const res = await ask(query);
    expect(execution(res)).toMatchObject({ status: 'ERROR' });
    expect(res.body).not.toContain(SECRET);
  });

  it("names no table, SQLSTATE or address of a failed query in the caller's response; the audit row does", async () => {
    const res = await ask('select missing_column_4711 from zp_disco_request');
    expect(res.status).toBe(200);
    expect(execution(res)).toMatchObject({
      status: 'ERROR',
      errorType: 'TOOL_EXECUTION_FAILED',
      errorMessage: 'Tool postgres.query failed (TOOL_EXECUTION_FAILED).',
    });
    expect(res.body).not.toMatch(/missing_column_4711"|SQLSTATE|42703/);
    const audit = await h.request('GET', `/api/v1/conversation/audit/${res.json().conversationId}`);
    const row = (audit.json() as ApiJson[]).find((a) => a.stage === 'TOOL_ORCHESTRATION_ERROR');
    expect(row?.payload.error).toMatch(/missing_column_4711.*SQLSTATE 42703/);
  });

  it('cannot hold a lock past its turn: no advisory lock remains and migrate still runs', async () => {
    for (const query of ['select pg_advisory_lock(7233001)', 'select pg_try_advisory_lock(7233001)']) {
      expect(execution(await ask(query))).toMatchObject({ status: 'ERROR' });
    }
    expect(await toolsRoleAdvisoryLocks(h.wf.mcp.base.tdb)).toBe(0);
    await expect(migrate(h.wf.mcp.base.tdb.pool)).resolves.toMatchObject({ applied: [] });
  });

  it('cannot stall the stack: a runaway query gets TOOL_TIMEOUT while the API keeps answering', async () => {
    const runaway = ask('select count(*) from generate_series(1, 1e12)');
    const started = Date.now();
    const health: number[] = [];
    let done = false;
    void runaway.finally(() => (done = true));
    while (!done && Date.now() - started < 60_000) {
      const res = await h.request('GET', '/healthz');
      health.push(res.status);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const res = await runaway;
    expect(res.status).toBe(200);
    expect(execution(res)).toMatchObject({ status: 'ERROR', errorType: 'TOOL_TIMEOUT' });
    expect(execution(res).errorMessage).toBe('Tool postgres.query timed out (TOOL_TIMEOUT).');
    expect(health.length).toBeGreaterThan(0);
    expect(health.every((status) => status === 200)).toBe(true);
    const other = await h.request('POST', '/api/v1/conversation/message', { json: { message: 'hello again' } });
    expect(other.status).toBe(200);
  });

  it('refuses postgres.query from a request by default (no allow_direct_request)', async () => {
    await configure(null);
    try {
      const res = await ask('select count(*) from zp_disco_request');
      expect(execution(res)).toMatchObject({ status: 'ERROR', errorType: 'TOOL_NOT_ALLOWED' });
    } finally {
      await configure(true);
    }
  });
});
