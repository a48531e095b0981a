import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { explainViolation } from '../../core/config/explain';
import { validateConfig } from '../../core/config/validate';
import { formatViolation } from '../../core/config/types';
import type { JsonObject } from '../../core/json';
import { readConfigRows } from '../../db/config/load';
import { demoLlmScript } from '../../demo/recorded-llm';
import { McpHarness } from '../support/mcp-harness';
import { splitSqlStatements } from '../support/sql-script';

/**
 * Issue #21, item 2: a config written for the Java engine (test/fixtures/java-shaped: no IDs,
 * global tools, legacy phase names, HTTP tools as handler classes) loads as written, is refused
 * for exactly the reasons docs/migrating-from-java.md lists, validates after the documented
 * changes, and runs the order-diagnostics conversation of the seed packs, with the seed's progress message.
 */
const DIR = join(__dirname, '..', 'fixtures', 'java-shaped');
const statementsOf = (file: string) => splitSqlStatements(readFileSync(join(DIR, file), 'utf8'));
const MESSAGE = 'Order ORD-7017 was submitted by admin, callback is still null. Can you check status and trace?';

describe('a Java-shaped config (issue #21)', () => {
  let h: McpHarness;
  beforeAll(async () => {
    h = await McpHarness.start();
    await h.configure({});
  });
  afterAll(async () => h.stop());

  it('loads, is refused for the documented reasons, validates after the documented changes and runs', async () => {
    const core = statementsOf('seed_postgres.sql');
    for (const sql of [...core, ...statementsOf('mcp_planner_seed_postgres.sql')]) await h.db.pool.query(sql);
    // Regex-only dialogue acts keep the recorded LLM calls to the planner and the answer.
    await h.db.pool.query(
      `INSERT INTO ce_config (config_type, config_key, config_value) VALUES ('DialogueActStep', 'RESOLUTE_MODE', 'REGEX_ONLY')`
    );

    const rows = await readConfigRows(h.db.db);
    const before = validateConfig(rows);
    expect(before.violations.map(formatViolation)).toEqual([
      expect.stringMatching(
        /^ce_response\[\d+\]: DERIVED response has no enabled ce_prompt_template with output_format=TEXT for intent ORDER_DIAGNOSTICS \/ state COMPLETED/
      ),
      'ce_mcp_tool[5001]: HTTP_API tool mock.order.status has no ce_mcp_http_tool row',
      'ce_mcp_tool[5002]: HTTP_API tool mock.order.async.trace has no ce_mcp_http_tool row',
    ]);
    const fixes = before.violations.map((v) => explainViolation(v, rows));
    expect(fixes[0]).toContain('INSERT INTO ce_prompt_template (intent_code, state_code, output_format');
    expect(fixes[0]).toContain("VALUES ('ORDER_DIAGNOSTICS', 'COMPLETED', 'TEXT',");
    expect(fixes[1]).toContain(
      'INSERT INTO ce_mcp_http_tool (tool_id, http_method, url_template, query_params, input_schema)'
    );
    expect(fixes[1]).toContain('VALUES (5001,');

    for (const sql of statementsOf('order_diagnostics_changes.sql')) await h.db.pool.query(sql);
    const after = validateConfig(await readConfigRows(h.db.db));
    expect(after.violations).toEqual([]);

    await h.base.store.refresh();
    h.llm.setScript(demoLlmScript());
    const result = await h.turn({ message: MESSAGE });
    expect(result).toMatchObject({ intent: 'ORDER_DIAGNOSTICS', state: 'COMPLETED' });
    expect(result.payload.value).toContain('ORD-7017');
    const observations = (result.context['mcp'] as JsonObject)['observations'] as JsonObject[];
    expect(observations.map((o) => [o['toolCode'], o['status']])).toEqual([
      ['mock.order.status', 'SUCCESS'],
      ['mock.order.async.trace', 'SUCCESS'],
    ]);
    expect(h.toolServer.counters.requests('/orders/status')).toBe(1);
    // The seed's ce_verbose row: the planner's call of mock.order.status streamed as progress.
    expect(await h.payload(result.conversationId, 'VERBOSE_PROGRESS')).toMatchObject({
      eventType: 'VERBOSE_PROGRESS',
      stepName: 'McpToolStep',
      determinant: 'MCP_TOOL_CALL',
      toolCode: 'mock.order.status',
      level: 'INFO',
      text: 'Looking up the order.',
    });
  });
});
