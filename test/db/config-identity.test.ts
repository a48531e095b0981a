import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { migrate, MIGRATIONS_DIR, readMigrations } from '../../db/migrate';
import { seedPack } from '../../db/seed/seed';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { ceStatementsInText, splitSqlStatements } from '../support/sql-script';

/**
 * Issue #21, item 1: config rows insert the way ConvEngine authors write them — without an ID —
 * and rows written with explicit IDs (seed packs, config apply, imports) never leave a sequence
 * behind, whichever comes first. Migration 0011 keeps existing rows.
 */
const FIXTURES = join(__dirname, '..', 'fixtures');

async function insertGuardrail(pool: Pool, id: number | null, match: string): Promise<number> {
  const { rows } = await pool.query<{ guardrail_id: string }>(
    id === null
      ? `INSERT INTO ce_mcp_sql_guardrail (rule_type, match_value) VALUES ('BLOCK_FUNCTION', $1) RETURNING guardrail_id`
      : `INSERT INTO ce_mcp_sql_guardrail (guardrail_id, rule_type, match_value) VALUES ($2, 'BLOCK_FUNCTION', $1) RETURNING guardrail_id`,
    id === null ? [match] : [match, id]
  );
  return Number(rows[0]?.guardrail_id);
}

/** Runs each statement on its own; returns the failures by statement index. */
async function runEach(pool: Pool, statements: string[]): Promise<{ index: number; message: string }[]> {
  const failures: { index: number; message: string }[] = [];
  for (const [index, sql] of statements.entries()) {
    try {
      await pool.query(sql);
    } catch (err) {
      failures.push({ index, message: (err as Error).message });
    }
  }
  return failures;
}

describe('config table IDs (issue #21)', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
  });
  afterAll(async () => tdb.drop());

  it('every config table ID has an identity default', async () => {
    const { rows } = await tdb.pool.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.columns
       WHERE table_schema = 'public' AND is_identity = 'YES' AND table_name LIKE 'ce\\_%' ORDER BY table_name`
    );
    expect(rows.map((r) => r.table_name)).toEqual([
      'ce_config',
      'ce_intent_classifier',
      'ce_mcp_planner',
      'ce_mcp_sql_guardrail',
      'ce_mcp_tool',
      'ce_output_schema',
      'ce_pending_action',
      'ce_policy',
      'ce_prompt_template',
      'ce_response',
      'ce_rule',
      'ce_semantic_concept',
      'ce_semantic_entity',
      'ce_semantic_join_path',
      'ce_semantic_mapping',
      'ce_semantic_query_class',
      'ce_semantic_synonym',
      'ce_verbose',
    ]);
  });

  it('explicit IDs first, then inserts without an ID: no collision', async () => {
    await insertGuardrail(tdb.pool, 40, 'a');
    await insertGuardrail(tdb.pool, 7, 'b');
    expect(await insertGuardrail(tdb.pool, null, 'c')).toBe(41);
    expect(await insertGuardrail(tdb.pool, null, 'd')).toBe(42);
  });

  it('inserts without an ID first, then explicit IDs above them, then without again', async () => {
    const first = await insertGuardrail(tdb.pool, null, 'e');
    await insertGuardrail(tdb.pool, first + 1, 'f');
    await insertGuardrail(tdb.pool, first + 100, 'g');
    expect(await insertGuardrail(tdb.pool, null, 'h')).toBe(first + 101);
  });

  it('a sequence never moves backwards when rows are deleted', async () => {
    const before = await insertGuardrail(tdb.pool, null, 'i');
    await tdb.pool.query('DELETE FROM ce_mcp_sql_guardrail WHERE guardrail_id = $1', [before]);
    await tdb.pool.query('SELECT ce_sync_config_id_sequences()');
    expect(await insertGuardrail(tdb.pool, null, 'j')).toBe(before + 1);
  });

  it('the seeder leaves every sequence past its IDs (seed packs carry documented IDs)', async () => {
    await seedPack(tdb.db, 'loan-confirmation');
    const { rows } = await tdb.pool.query<{ tool_id: string }>(
      `INSERT INTO ce_mcp_tool (tool_code, tool_group, intent_code, state_code) VALUES ('x.new', 'HTTP_API', 'ANY', 'ANY')
       RETURNING tool_id`
    );
    const { rows: max } = await tdb.pool.query<{ max: string }>(
      `SELECT max(tool_id) AS max FROM ce_mcp_tool WHERE tool_code <> 'x.new'`
    );
    expect(Number(rows[0]?.tool_id)).toBeGreaterThan(Number(max[0]?.max));
    const rule = await tdb.pool.query(
      `INSERT INTO ce_rule (intent_code, state_code, rule_type, match_pattern, action) VALUES ('ANY', 'ANY', 'REGEX', 'x', 'SET_STATE') RETURNING rule_id`
    );
    expect(rule.rowCount).toBe(1);
  });
});

describe('migration 0011 keeps existing rows (issue #21)', () => {
  it('adds the identity on a database that already has config rows', async () => {
    const tdb = await createTestDatabase({ migrated: false });
    const before = mkdtempSync(join(tmpdir(), 'ce-migrations-'));
    try {
      for (const file of readMigrations().filter((m) => m.name < '0011')) {
        copyFileSync(join(MIGRATIONS_DIR, file.name), join(before, file.name));
      }
      await migrate(tdb.pool, before);
      await tdb.pool.query(
        `INSERT INTO ce_policy (policy_id, rule_type, pattern, response_text) VALUES (500, 'REGEX', 'x', 'no'), (9, 'REGEX', 'y', 'no')`
      );
      await migrate(tdb.pool);
      const kept = await tdb.pool.query('SELECT policy_id FROM ce_policy ORDER BY policy_id');
      expect(kept.rows.map((r: { policy_id: string }) => Number(r.policy_id))).toEqual([9, 500]);
      const added = await tdb.pool.query<{ policy_id: string }>(
        `INSERT INTO ce_policy (rule_type, pattern, response_text) VALUES ('REGEX', 'z', 'no') RETURNING policy_id`
      );
      expect(Number(added.rows[0]?.policy_id)).toBe(501);
    } finally {
      rmSync(before, { recursive: true, force: true });
      await tdb.drop();
    }
  });
});

describe('SQL as authors write it runs on a fresh migrate (issue #21)', () => {
  let tdb: TestDatabase;
  beforeEach(async () => {
    tdb = await createTestDatabase();
  });
  afterEach(async () => tdb.drop());

  it('every ce_* snippet of the customer seed guides runs as written', async () => {
    const text = readFileSync(join(FIXTURES, 'seeds', 'mcp-advanced-guide-v2.0.10.txt'), 'utf8');
    const snippets = ceStatementsInText(text);
    expect(snippets.map((s) => s.table)).toEqual(['ce_mcp_planner', 'ce_mcp_tool', 'ce_mcp_sql_guardrail']);
    expect(
      await runEach(
        tdb.pool,
        snippets.map((s) => s.sql)
      )
    ).toEqual([]);
    const guardrails = await tdb.pool.query('SELECT guardrail_id, match_value FROM ce_mcp_sql_guardrail ORDER BY 1');
    expect(guardrails.rows.map((r: { match_value: string }) => r.match_value)).toEqual([
      'pg_sleep',
      'fetch_inventory_status',
    ]);
  });

  it('the Java-shaped MCP planner seed loads as written, and a later insert without an ID does not collide', async () => {
    const sql = readFileSync(join(FIXTURES, 'java-shaped', 'mcp_planner_seed_postgres.sql'), 'utf8');
    const statements = splitSqlStatements(sql);
    expect(statements.length).toBeGreaterThanOrEqual(15);
    expect(await runEach(tdb.pool, statements)).toEqual([]);
    // Running it again (its cleanup makes it idempotent) works too.
    expect(await runEach(tdb.pool, statements)).toEqual([]);
    const tool = await tdb.pool.query<{ tool_id: string }>(
      `INSERT INTO ce_mcp_tool (tool_code, tool_group, intent_code, state_code) VALUES ('y.new', 'DB', 'ANY', 'ANY') RETURNING tool_id`
    );
    expect(Number(tool.rows[0]?.tool_id)).toBe(5003);
  });

  it('the Java-shaped core seed loads as written, its ce_verbose rows included', async () => {
    const sql = readFileSync(join(FIXTURES, 'java-shaped', 'seed_postgres.sql'), 'utf8');
    const statements = splitSqlStatements(sql);
    expect(await runEach(tdb.pool, statements)).toEqual([]);
    const configs = await tdb.pool.query<{ config_id: string }>('SELECT config_id FROM ce_config ORDER BY 1');
    expect(configs.rows.map((r) => Number(r.config_id))).toEqual([1, 2, 3, 4]);
    // The row came with verbose_id 1; one inserted the documented way, without an ID, follows it.
    const verbose = await tdb.pool.query<{ verbose_id: string }>(
      `INSERT INTO ce_verbose (intent_code, state_code, step_value, determinant, message)
       VALUES ('ANY', 'ANY', 'McpToolStep', 'MCP_FINAL_ANSWER', 'Done.') RETURNING verbose_id`
    );
    expect(Number(verbose.rows[0]?.verbose_id)).toBe(2);
  });
});
