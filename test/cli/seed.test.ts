import { seedPackNames } from '../../db/seed';
import { runConvengine } from '../support/run-cli';
import { createTestDatabase, type TestDatabase } from '../support/database';

// Each test spawns the CLI from sources (tsx); on a loaded two-core machine that takes seconds.
jest.setTimeout(60_000);

describe('convengine seed', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
  });
  afterAll(async () => {
    await tdb.drop();
  });

  it('lists the bundled packs', async () => {
    const run = await runConvengine(['seed', '--list'], { DATABASE_URL: '' });
    expect(run.code).toBe(0);
    expect(
      run.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split(/\s+/)[0])
    ).toEqual(seedPackNames());
  });

  it('seeds all packs, and seeding again changes nothing', async () => {
    const first = await runConvengine(['seed', 'all'], { DATABASE_URL: tdb.url });
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toMatch(
      /^seeded faq, move-connections, loan-confirmation, order-diagnostics, zapper-semantic: [1-9]\d* config row\(s\) inserted \(0 already there\), \d+ business row\(s\) written/
    );
    const version = /config version (\w+)/.exec(first.stdout)?.[1];
    expect(version).toBeDefined();
    const counts = async () =>
      (
        await tdb.pool.query(
          'SELECT (SELECT count(*) FROM ce_rule) + (SELECT count(*) FROM business.zp_disco_request_log) AS n'
        )
      ).rows[0].n;
    const before = await counts();
    const second = await runConvengine(['seed', 'faq', 'zapper-semantic'], { DATABASE_URL: tdb.url });
    expect(second.code).toBe(0);
    // It counts what it inserted, not the packs' rows.
    expect(second.stdout).toMatch(
      /^seeded faq, zapper-semantic: 0 config row\(s\) inserted \([1-9]\d* already there\)/
    );
    expect(second.stdout).toContain(`config version ${version}`);
    expect(await counts()).toBe(before);
  });

  it('names the rows an earlier pack version left: brought up to date, or kept as edited', async () => {
    await tdb.pool.query('UPDATE ce_response SET exact_text = $1, description = $2 WHERE response_id = 20', [
      '[[${context.mcp.finalAnswer}]]',
      "The planner's final answer, verbatim.",
    ]);
    await tdb.pool.query("UPDATE ce_response SET exact_text = 'Say that again?' WHERE response_id = 2");
    const run = await runConvengine(['seed', 'move-connections'], { DATABASE_URL: tdb.url });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('brought up to date (as an earlier pack version shipped them): ce_response[20]\n');
    expect(run.stdout).toMatch(
      /kept as edited \(an earlier pack version shipped them differently; .*\): ce_response\[2\]\n/
    );
  });

  it('--restore-earlier takes no pack name, and names what it restored and what it left', async () => {
    const misused = await runConvengine(['seed', '--restore-earlier', 'all'], { DATABASE_URL: tdb.url });
    expect(misused.code).toBe(2);
    expect(misused.stderr).toContain('--restore-earlier takes no pack names');
    // Response 20 above was brought up to date from a row no stored snapshot served: nothing to restore it to.
    const run = await runConvengine(['seed', '--restore-earlier'], { DATABASE_URL: tdb.url });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^restored nothing: /);
    expect(run.stdout).toContain("kept as edited (an author's rows, not restored): ce_response[2]\n");
    expect(run.stdout).toMatch(/left as this build's packs have them \(.*\): .*ce_response\[20\]/);
  });

  it('rejects an unknown pack with exit code 2', async () => {
    const run = await runConvengine(['seed', 'nope'], { DATABASE_URL: tdb.url });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/unknown seed pack "nope" \(known: faq, /);
  });

  it('exits 1 and lists violations when the result would be invalid, applying nothing', async () => {
    const deleted = await tdb.pool.query('DELETE FROM ce_response WHERE response_id = 10 RETURNING response_id');
    expect(deleted.rowCount).toBe(1);
    await tdb.pool.query("UPDATE ce_rule SET rule_type = 'FOO' WHERE rule_id = 20");
    try {
      const run = await runConvengine(['seed', 'faq'], { DATABASE_URL: tdb.url });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/nothing was applied/);
      expect(run.stderr).toMatch(/^ce_rule\[20\]: unknown rule_type "FOO"/m);
      const back = await tdb.pool.query('SELECT 1 FROM ce_response WHERE response_id = 10');
      expect(back.rowCount).toBe(0);
    } finally {
      await tdb.pool.query("UPDATE ce_rule SET rule_type = 'JSON_PATH' WHERE rule_id = 20");
      await runConvengine(['seed', 'faq'], { DATABASE_URL: tdb.url });
    }
  });

  it('exits 1 naming an invalid edit it did not make, when it had nothing to insert', async () => {
    await tdb.pool.query("UPDATE ce_rule SET rule_type = 'FOO' WHERE rule_id = 20");
    try {
      const run = await runConvengine(['seed', 'faq'], { DATABASE_URL: tdb.url });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/already had 1 violation\(s\), not from this seed/);
      expect(run.stderr).toMatch(/^ce_rule\[20\]: unknown rule_type "FOO"/m);
    } finally {
      await tdb.pool.query("UPDATE ce_rule SET rule_type = 'JSON_PATH' WHERE rule_id = 20");
    }
  });

  it('exits 2 when DATABASE_URL is missing', async () => {
    const run = await runConvengine(['seed', 'faq'], { DATABASE_URL: undefined });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/DATABASE_URL/);
  });
});
