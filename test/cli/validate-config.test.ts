import { seedPacks } from '../../db/seed';
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

  it('exits 2 when DATABASE_URL is missing', async () => {
    const run = await runConvengine(['validate-config'], { DATABASE_URL: '' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/DATABASE_URL: is not set/);
  });
});
