import { readConfigRevision, readConfigRows, snapshotOf } from '../../db/config/load';
import { recordServedSnapshot } from '../../db/config/snapshots';
import { restoreEarlierPackRows, seedPacks } from '../../db/seed';
import { EARLIER_PACK_ROWS } from '../../db/seed/packs/earlier-rows';
import { createTestDatabase, type TestDatabase } from '../support/database';

/**
 * Before a rollback, `convengine seed --restore-earlier` puts the pack rows a seed brought up to date back as the
 * database served them before (db/seed/restore-earlier.ts), so an older build, which takes today's rows for an
 * author's edits and refuses ce_prompt_template[125], serves the config again; an author's edit stays.
 */
const shipped = (table: string, id: number) =>
  EARLIER_PACK_ROWS.find((r) => r.table === table && r.id === id)?.shipped[0] ?? {};
const RESPONSE_20 = shipped('responses', 20);
const CLASSIFIER_70 = shipped('classifiers', 70);
const TEMPLATE_125 = shipped('promptTemplates', 125);
const EDITED_PATTERN = '(?i)\\bzapper\\b';

describe('restoring the earlier pack rows before a rollback', () => {
  let tdb: TestDatabase;
  beforeEach(async () => {
    tdb = await createTestDatabase();
  });
  afterEach(async () => tdb.drop());

  const row = async (query: string) => (await tdb.pool.query(query)).rows[0] as Record<string, unknown>;
  const earlierRows = async () => ({
    response20: await row('SELECT exact_text, description FROM ce_response WHERE response_id = 20'),
    template125: await row('SELECT system_prompt, user_prompt FROM ce_prompt_template WHERE template_id = 125'),
  });

  /** A database as an older build seeded and served it: rows 20, 70 and 125 as that build's packs shipped them. */
  async function servedByAnOlderBuild(): Promise<void> {
    await seedPacks(tdb.db, ['all']);
    await tdb.pool.query('UPDATE ce_response SET exact_text = $1, description = $2 WHERE response_id = 20', [
      RESPONSE_20['exactText'],
      RESPONSE_20['description'],
    ]);
    await tdb.pool.query('UPDATE ce_intent_classifier SET pattern = $1, description = $2 WHERE classifier_id = 70', [
      CLASSIFIER_70['pattern'],
      CLASSIFIER_70['description'],
    ]);
    await tdb.pool.query('UPDATE ce_prompt_template SET system_prompt = $1, user_prompt = $2 WHERE template_id = 125', [
      TEMPLATE_125['systemPrompt'],
      TEMPLATE_125['userPrompt'],
    ]);
    const rows = await readConfigRows(tdb.db);
    await recordServedSnapshot(tdb.db, snapshotOf(rows), await readConfigRevision(tdb.db));
  }

  it("puts unedited rows back as served before the upgrade, leaves an author's edit, and a seed redoes it", async () => {
    await servedByAnOlderBuild();
    const before = await earlierRows();
    const upgrade = await seedPacks(tdb.db, ['all']);
    expect([...upgrade.upgraded].sort()).toEqual(
      ['ce_intent_classifier[70]', 'ce_prompt_template[125]', 'ce_response[20]'].sort()
    );
    // An author's edit under the newer build, after the upgrade.
    await tdb.pool.query('UPDATE ce_intent_classifier SET pattern = $1 WHERE classifier_id = 70', [EDITED_PATTERN]);

    const restore = await restoreEarlierPackRows(tdb.db);
    expect([...restore.restored].sort()).toEqual(['ce_prompt_template[125]', 'ce_response[20]']);
    expect(restore.keptEdited).toEqual(['ce_intent_classifier[70]']);
    expect(await earlierRows()).toEqual(before);
    expect(before.template125).toEqual({
      system_prompt: TEMPLATE_125['systemPrompt'],
      user_prompt: TEMPLATE_125['userPrompt'],
    });
    expect(await row('SELECT pattern FROM ce_intent_classifier WHERE classifier_id = 70')).toEqual({
      pattern: EDITED_PATTERN,
    });
    // The HTTP tools' input schemas changed long before: the snapshot served them as today, so they stay.
    expect(restore.neverServedEarlier).toEqual([]);
    expect(await row('SELECT input_schema FROM ce_mcp_http_tool WHERE tool_id = 5001')).toMatchObject({
      input_schema: { required: ['orderId'] },
    });

    // Restoring again finds them earlier already; redeploying the newer build brings them up to date again.
    expect((await restoreEarlierPackRows(tdb.db)).restored).toEqual([]);
    expect([...(await seedPacks(tdb.db, ['all'])).upgraded].sort()).toEqual([
      'ce_prompt_template[125]',
      'ce_response[20]',
    ]);
  });

  it('restores nothing in a database no stored snapshot served in an earlier version, and says so', async () => {
    const seeded = await seedPacks(tdb.db, ['all']);
    const restore = await restoreEarlierPackRows(tdb.db);
    expect(restore.restored).toEqual([]);
    expect(restore.neverServedEarlier).toEqual(
      expect.arrayContaining(['ce_prompt_template[125]', 'ce_response[20]', 'ce_intent_classifier[70]'])
    );
    expect(restore.version).toBe(seeded.version);
  });
});
