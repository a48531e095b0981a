import { formatViolation } from '../../core/config/types';
import { CONFIG_PRIMARY_KEYS } from '../../core/config/rows';
import { canonicalJson } from '../../core/json';
import { SEED_PACKS, seedPacks } from '../../db/seed';
import { packConfigRows } from '../../db/seed/merge';
import { EARLIER_PACK_ROWS } from '../../db/seed/packs/earlier-rows';
import { createTestDatabase, type TestDatabase } from '../support/database';

/**
 * A database seeded before a pack changed keeps the pack's earlier rows (the seeder inserts missing rows only, so an
 * author's edits survive). Rows still exactly as an earlier pack version shipped them are brought up to date; rows an
 * author edited are kept and named.
 */
const OLD_ZAPPER_PATTERN =
  '(?i)^\\s*/sql2\\b|\\b(show|list)\\b.*\\b(disconnect|billbank|zp_\\w+)|\\bwhy\\b.*\\brequest\\s+ZPR\\d+|' +
  '\\bdelete\\s+from\\s+zp_\\w+';
const HTTP_TOOLS = [5001, 5002, 10201, 10202, 10203, 10204];
/** The rows that answer an acknowledgement ("ok thanks") after an answer and route the message after it. */
const ACKNOWLEDGEMENT_RULES = [11, 12, 13, 21, 22, 23, 55, 56, 57, 58, 59, 72, 73, 74, 137, 138, 139, 140];
const ACKNOWLEDGEMENT_RESPONSES = [11, 22, 53, 72, 229];

describe('seeding a database an earlier pack version seeded', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
  });
  afterAll(async () => tdb.drop());

  const scalar = async (query: string, params: unknown[] = []) =>
    Object.values((await tdb.pool.query(query, params)).rows[0] ?? {})[0];

  /** The rows as the packs shipped them before the follow-up fixes (git 2c461d5), and without the rows added since. */
  async function asEarlierPacksLeftIt(): Promise<void> {
    await tdb.pool.query(
      "UPDATE ce_response SET exact_text = '[[${context.mcp.finalAnswer}]]', description = $1 WHERE response_id = 20",
      ["The planner's final answer, verbatim."]
    );
    await tdb.pool.query('UPDATE ce_intent_classifier SET pattern = $1, description = $2 WHERE classifier_id = 70', [
      OLD_ZAPPER_PATTERN,
      '/sql2 commands and show/list/why/delete questions about zapper disconnect data.',
    ]);
    await tdb.pool.query('UPDATE ce_mcp_http_tool SET input_schema = NULL WHERE tool_id = ANY($1)', [HTTP_TOOLS]);
    const confirmation = EARLIER_PACK_ROWS.find((r) => r.table === 'promptTemplates' && r.id === 125)?.shipped[0];
    await tdb.pool.query('UPDATE ce_prompt_template SET system_prompt = $1, user_prompt = $2 WHERE template_id = 125', [
      confirmation?.['systemPrompt'],
      confirmation?.['userPrompt'],
    ]);
    await tdb.pool.query('DELETE FROM ce_intent_classifier WHERE classifier_id = 21');
    await tdb.pool.query('DELETE FROM ce_rule WHERE rule_id IN (54, 71, 136)');
    await tdb.pool.query('DELETE FROM ce_response WHERE response_id = 228');
    await tdb.pool.query('DELETE FROM ce_rule WHERE rule_id = ANY($1)', [ACKNOWLEDGEMENT_RULES]);
    await tdb.pool.query('DELETE FROM ce_response WHERE response_id = ANY($1)', [ACKNOWLEDGEMENT_RESPONSES]);
  }

  it('a database the current packs seeded has nothing to bring up to date', async () => {
    await seedPacks(tdb.db, ['all']);
    const again = await seedPacks(tdb.db, ['all']);
    expect({ upgraded: again.upgraded, keptEdited: again.keptEdited }).toEqual({ upgraded: [], keptEdited: [] });
  });

  it('brings the unedited earlier rows up to date, keeps an edited one, and inserts the new ones', async () => {
    const fresh = await seedPacks(tdb.db, ['all']);
    await asEarlierPacksLeftIt();
    // An author's own fallback text: the earlier pack shipped "…Can you rephrase?", the current one lists phrases.
    await tdb.pool.query("UPDATE ce_response SET exact_text = 'Say that again, please?' WHERE response_id = 2");

    const report = await seedPacks(tdb.db, ['all']);
    expect([...report.upgraded].sort()).toEqual(
      [
        'ce_prompt_template[125]',
        'ce_response[20]',
        'ce_intent_classifier[70]',
        ...HTTP_TOOLS.map((id) => `ce_mcp_http_tool[${id}]`),
      ].sort()
    );
    expect(await scalar('SELECT user_prompt FROM ce_prompt_template WHERE template_id = 125')).toMatch(
      /Correction refused this turn/
    );
    expect(report.keptEdited).toEqual(['ce_response[2]']);
    expect(report.violations.map(formatViolation)).toEqual([]);
    expect(await scalar('SELECT exact_text FROM ce_response WHERE response_id = 20')).toMatch(
      /^\[\[\$\{context\.mcp\.finalAnswer \?: 'Which connection/
    );
    expect(await scalar('SELECT pattern FROM ce_intent_classifier WHERE classifier_id = 70')).toMatch(
      /\|\\b\(delete\|remove\)\\b/
    );
    expect(await scalar('SELECT input_schema FROM ce_mcp_http_tool WHERE tool_id = 5001')).toMatchObject({
      required: ['orderId'],
    });
    expect(await scalar('SELECT count(*)::int FROM ce_rule WHERE rule_id IN (54, 71, 136)')).toBe(3);
    const acknowledgements = await tdb.pool.query(
      "SELECT response_id FROM ce_response WHERE state_code = 'ACKNOWLEDGED' ORDER BY response_id"
    );
    expect(acknowledgements.rows.map((r: { response_id: number }) => r.response_id)).toEqual(ACKNOWLEDGEMENT_RESPONSES);
    expect(await scalar('SELECT count(*)::int FROM ce_rule WHERE rule_id = ANY($1)', [ACKNOWLEDGEMENT_RULES])).toBe(
      ACKNOWLEDGEMENT_RULES.length
    );
    expect(await scalar('SELECT exact_text FROM ce_response WHERE response_id = 2')).toBe('Say that again, please?');

    // Once the author's row is the pack's again, the config is the current packs' exactly.
    await tdb.pool.query('DELETE FROM ce_response WHERE response_id = 2');
    const after = await seedPacks(tdb.db, ['all']);
    expect(after.version).toBe(fresh.version);
    expect({ upgraded: after.upgraded, keptEdited: after.keptEdited }).toEqual({ upgraded: [], keptEdited: [] });
  });

  it('each earlier version names columns of a pack row, each with a value the pack no longer has', () => {
    const packRows = packConfigRows(SEED_PACKS);
    for (const earlier of EARLIER_PACK_ROWS) {
      const key = CONFIG_PRIMARY_KEYS[earlier.table];
      const row = (packRows[earlier.table] as unknown as Record<string, unknown>[]).find((r) => r[key] === earlier.id);
      expect(row).toBeDefined();
      for (const version of earlier.shipped) {
        for (const [column, value] of Object.entries(version)) {
          expect(Object.keys(row ?? {})).toContain(column);
          expect(canonicalJson(row?.[column] ?? null)).not.toBe(canonicalJson(value));
        }
      }
    }
  });
});
