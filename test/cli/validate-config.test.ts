import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { seedPacks } from '../../db/seed';
import { splitSqlStatements } from '../support/sql-script';
import { runConvengine } from '../support/run-cli';
import { createTestDatabase, type TestDatabase } from '../support/database';

// Each test spawns the CLI from sources (tsx); on a loaded two-core machine that takes seconds.
jest.setTimeout(60_000);

describe('convengine validate-config', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
    await seedPacks(tdb.db, ['all']);
  });
  afterAll(async () => {
    await tdb.drop();
  });

  it('prints the version of a valid config and exits 0', async () => {
    const run = await runConvengine(['validate-config'], { DATABASE_URL: tdb.url });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout.trim()).toMatch(/^config valid: version [0-9a-f]{16}$/);
  });

  it('prints warnings but still exits 0', async () => {
    await tdb.pool.query("UPDATE ce_prompt_template SET interaction_mode = 'SLEEPY' WHERE template_id = 122");
    try {
      const run = await runConvengine(['validate-config'], { DATABASE_URL: tdb.url });
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^warning: ce_prompt_template\[122\]: interaction_mode "SLEEPY"/m);
      expect(run.stdout).toMatch(/^config valid: version /m);
    } finally {
      await tdb.pool.query("UPDATE ce_prompt_template SET interaction_mode = 'IDLE' WHERE template_id = 122");
    }
  });

  it('prints every violation as table[id]: reason and exits 1', async () => {
    await tdb.pool.query(
      "UPDATE ce_rule SET match_pattern = '(unclosed' WHERE rule_id = 10; UPDATE ce_mcp_tool SET state_code = '' WHERE tool_id = 5001"
    );
    try {
      const run = await runConvengine(['validate-config'], { DATABASE_URL: tdb.url });
      expect(run.code).toBe(1);
      const lines = run.stdout.trim().split('\n');
      expect(lines).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^ce_rule\[10\]: match_pattern: invalid regular expression/),
          'ce_mcp_tool[5001]: state_code is null/blank',
        ])
      );
      expect(lines).toHaveLength(2);
      expect(run.stderr).toMatch(/config invalid: 2 violation\(s\)/);
    } finally {
      await tdb.pool.query(
        "UPDATE ce_rule SET match_pattern = '(?i)\\b(reset|start over)\\b' WHERE rule_id = 10; UPDATE ce_mcp_tool SET state_code = 'ANALYZE' WHERE tool_id = 5001"
      );
    }
  });

  it('names a JSON value nested too deep by table, row and column, instead of overflowing the stack', async () => {
    const deep = `${'{"type":"object","properties":{"a":'.repeat(5_000)}{}${'}}'.repeat(5_000)}`;
    const before = await tdb.pool.query('SELECT json_schema FROM ce_output_schema WHERE schema_id = 109');
    await tdb.pool.query(
      "UPDATE ce_output_schema SET json_schema = jsonb_set(json_schema, '{properties,deep}', $1::jsonb) WHERE schema_id = 109",
      [deep]
    );
    try {
      const run = await runConvengine(['validate-config'], { DATABASE_URL: tdb.url });
      expect(run.code).toBe(1);
      expect(run.stdout.split('\n').filter((line) => !line.startsWith('warning: '))).toEqual([
        'ce_output_schema[109]: json_schema is JSON nested deeper than 64 levels',
        '',
      ]);
      expect(run.stderr).toMatch(/^config invalid: 1 violation\(s\) in version [0-9a-f]{16}\n$/);
    } finally {
      await tdb.pool.query('UPDATE ce_output_schema SET json_schema = $1 WHERE schema_id = 109', [
        before.rows[0].json_schema,
      ]);
    }
  });

  it('says a config with no intent and no response (nothing seeded or applied) is empty, and exits 1', async () => {
    const empty = await createTestDatabase();
    try {
      const run = await runConvengine(['validate-config'], { DATABASE_URL: empty.url });
      expect(run).toMatchObject({ code: 1, stdout: '' });
      expect(run.stderr).toMatch(
        /^config empty: no ce_intent and no ce_response row, so every message fails, in version [0-9a-f]{16}; load one with `convengine seed all` .* or `convengine config apply <dir>`\n$/
      );
    } finally {
      await empty.drop();
    }
  });

  it('exits 2 when DATABASE_URL is missing', async () => {
    const run = await runConvengine(['validate-config'], { DATABASE_URL: '' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/DATABASE_URL: is not set/);
  });

  it('--explain prints the fix of each violation as SQL (a Java-shaped config, issue #21)', async () => {
    const java = await createTestDatabase();
    try {
      const text = readFileSync(
        join(__dirname, '..', 'fixtures', 'java-shaped', 'mcp_planner_seed_postgres.sql'),
        'utf8'
      );
      for (const sql of splitSqlStatements(text)) await java.pool.query(sql);
      const run = await runConvengine(['validate-config', '--explain'], { DATABASE_URL: java.url });
      expect(run.code).toBe(1);
      expect(run.stdout).toContain('ce_mcp_tool[5001]: HTTP_API tool mock.order.status has no ce_mcp_http_tool row\n');
      expect(run.stdout).toMatch(
        /^ {4}INSERT INTO ce_mcp_http_tool \(tool_id, http_method, url_template, query_params, input_schema\)$/m
      );
      expect(run.stdout).toMatch(/^ {4}VALUES \(5002, 'GET'/m);
      expect(run.stdout).toMatch(/^ {4}INSERT INTO ce_prompt_template /m);
      const bad = await runConvengine(['validate-config', '--fix'], { DATABASE_URL: java.url });
      expect(bad).toMatchObject({ code: 2, stderr: expect.stringContaining('takes only --explain') });
    } finally {
      await java.drop();
    }
  });
});
