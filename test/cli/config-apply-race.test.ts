import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readExactConfigRows } from '../../db/config/exact-rows';
import { configToYaml, diffConfig, formatChange } from '../../db/config/yaml-tree';
import { runConvengine } from '../support/run-cli';
import { seededConfigDatabase } from './config-as-code-tree';

// The test spawns the CLI from sources (tsx); on a loaded two-core machine that takes seconds.
jest.setTimeout(120_000);

/**
 * Two `config apply` runs of partial trees at once (one with ce_intent.yaml, one with ce_rule.yaml): the second
 * composed its tree with the tables as read before it took the config write lock, so it wrote back the intents as
 * they were and undid the first, and printed a diff that left that out.
 */
describe('convengine config apply of a partial tree while another config write commits', () => {
  const seeded = seededConfigDatabase();

  /** Resolves once a `convengine config` session waits on a lock in the test's database. */
  async function configSessionWaitsOnLock(): Promise<void> {
    const waiting = `SELECT 1 FROM pg_stat_activity WHERE datname = current_database()
      AND application_name = 'convengine-config' AND wait_event_type = 'Lock'`;
    while ((await seeded.tdb.pool.query(waiting)).rowCount === 0) await new Promise((r) => setTimeout(r, 50));
  }

  it('keeps the table it has no file for as it is under the lock, and prints the diff it wrote', async () => {
    const before = await readExactConfigRows(seeded.tdb.db);
    const ruleId = before.rules[0]!.ruleId;
    const dir = join(seeded.work, 'rules-only');
    await mkdir(dir, { recursive: true });
    const rules = before.rules.map((r) => (r.ruleId === ruleId ? { ...r, description: 'Changed by the tree.' } : r));
    await writeFile(join(dir, 'ce_rule.yaml'), configToYaml({ ...before, rules }).get('ce_rule.yaml')!);

    // Another config write (an apply of ce_intent.yaml, done here in SQL) holds the config write lock...
    const editor = await seeded.tdb.pool.connect();
    let run;
    try {
      await editor.query('BEGIN');
      await editor.query(
        "INSERT INTO ce_intent (intent_code, description, priority, enabled, display_name, llm_hint) VALUES ('UNI_É', 'New intent', 5000, true, 'Uni', 'uni')"
      );
      // ...while the apply of ce_rule.yaml starts and waits for it; then it commits.
      const applying = runConvengine(['config', 'apply', dir], { DATABASE_URL: seeded.tdb.url });
      await configSessionWaitsOnLock();
      await editor.query('COMMIT');
      run = await applying;
    } finally {
      editor.release();
    }

    const after = await readExactConfigRows(seeded.tdb.db);
    expect(after.intents.map((i) => i.intentCode)).toContain('UNI_É');
    expect(after.rules.find((r) => r.ruleId === ruleId)?.description).toBe('Changed by the tree.');
    // What it printed is what it wrote: from the tables as the other write left them to the tables now.
    const committed = { ...before, intents: after.intents };
    const written = diffConfig(committed, after).map(formatChange);
    expect(written).toEqual([`~ ce_rule[${ruleId}]: description`]);
    expect(run.code).toBe(0);
    // The rows validated are those written: the intent the other write added, which no response answers yet.
    expect(run.stderr).toBe(
      'warning: ce_intent[UNI_É]: no enabled ce_response has intent_code UNI_É or ANY: a turn that resolves to it fails with RESPONSE_MAPPING_NOT_FOUND\n'
    );
    expect(run.stdout).toMatch(
      new RegExp(`^${written[0]!.replace(/[[\]]/g, '\\$&')}\napplied 1 change\\(s\\); config version [0-9a-f]{16}\n$`)
    );
  });
});
