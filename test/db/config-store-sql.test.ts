import { toolSqlChecker } from '../../activities/tools/sql/guard';
import { loadSqlParser } from '../../activities/tools/sql/parser';
import { createConfigStore } from '../../db/config/store';
import { seedPacks } from '../../db/seed';
import { createTestDatabase, type TestDatabase } from '../support/database';

/**
 * The config store the worker and the API build checks each sql_template against the SQL guardrail, as
 * `config validate` does: a live edit the tool would refuse at run time is refused when it is loaded.
 */
describe('database config store: sql_template through the SQL guardrail', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
    await seedPacks(tdb.db, ['move-connections']);
  });
  afterAll(async () => tdb.drop());

  it.each([
    [
      'a guardrail row blocking a keyword the template uses',
      "INSERT INTO ce_mcp_sql_guardrail (guardrail_id, rule_type, match_value) VALUES (9001, 'BLOCK_KEYWORD', 'status')",
      'DELETE FROM ce_mcp_sql_guardrail WHERE guardrail_id = 9001',
    ],
    [
      'a template that writes through a CTE',
      'UPDATE ce_mcp_db_tool SET sql_template = $$with x as (delete from move_request where connection_id = :connection_id returning status) select status from x$$ WHERE tool_id = 2001',
      "UPDATE ce_mcp_db_tool SET sql_template = 'select status from move_request where connection_id = :connection_id' WHERE tool_id = 2001",
    ],
  ])('refuses %s', async (_case, breakIt, mendIt) => {
    const store = createConfigStore(tdb.db, { validation: { checkToolSql: toolSqlChecker(await loadSqlParser()) } });
    await store.current();
    await tdb.pool.query(breakIt);
    try {
      await expect(store.refresh()).rejects.toMatchObject({ type: 'CONFIG_INVALID' });
      const report = await store.validateDatabase();
      expect(report.violations.map((v) => `${v.table}[${v.id}]`)).toEqual(['ce_mcp_db_tool[2001]']);
    } finally {
      await tdb.pool.query(mendIt);
    }
  });
});
