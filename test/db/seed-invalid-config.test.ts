import type { ConfigRows } from '../../core/config/types';
import { isEngineError } from '../../core/errors';
import { intent, promptTemplate, rule, httpTool, mcpTool, objectSchema, response } from '../../db/seed/builders';
import { packConfigRows } from '../../db/seed/merge';
import { SEED_PACKS, applySeedPacks, seedPacks, type SeedPack } from '../../db/seed';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { rowCounts } from './config-row-counts';

// jest.config's per-project testTimeout is not applied by Jest; database setup can be slow under load.
jest.setTimeout(30_000);

/** A pack that is valid except for the one row `breakIt` adds. */
function brokenPack(extra: Partial<ConfigRows>): SeedPack {
  const rows = packConfigRows([SEED_PACKS[0] as SeedPack]);
  return {
    name: 'broken',
    description: 'test',
    rows: {
      ...extra,
      intents: [
        ...rows.intents,
        intent({ intentCode: 'BROKEN', description: 'must never be applied' }),
        ...(extra.intents ?? []),
      ],
      rules: [...rows.rules, ...(extra.rules ?? [])],
    },
    business: [{ name: 'broken_probe', columns: { id: 'integer NOT NULL' }, primaryKey: ['id'], rows: [{ id: 1 }] }],
    utterances: [],
  };
}

const badRule = (over: Partial<Parameters<typeof rule>[0]>) =>
  rule({
    ruleId: 901,
    intentCode: 'FAQ',
    stateCode: 'IDLE',
    ruleType: 'REGEX',
    matchPattern: '.*',
    action: 'SET_STATE',
    actionValue: 'IDLE',
    ...over,
  });

describe('a seed that would leave an invalid config', () => {
  let tdb: TestDatabase;
  let before: Record<string, number>;
  beforeAll(async () => {
    tdb = await createTestDatabase();
    await seedPacks(tdb.db, ['faq']);
    before = await rowCounts(tdb);
  });
  afterAll(async () => {
    await tdb.drop();
  });

  it.each<[string, Partial<ConfigRows>, string, RegExp]>([
    [
      'malformed JSON shape in a jsonb column',
      {
        promptTemplates: [
          promptTemplate({
            templateId: 901,
            intentCode: 'FAQ',
            stateCode: 'IDLE',
            outputFormat: 'TEXT',
            interactionContract: 'affirm',
          }),
        ],
      },
      'ce_prompt_template[901]',
      /interaction_contract must be a JSON object/,
    ],
    [
      'HTTP headers that are not an object of strings',
      {
        mcpTools: [
          mcpTool({
            toolId: 901,
            toolCode: 'broken.http',
            toolGroup: 'HTTP_API',
            intentCode: 'FAQ',
            stateCode: 'IDLE',
          }),
        ],
        mcpHttpTools: [
          httpTool({
            toolId: 901,
            urlTemplate: 'https://example.test',
            headers: ['X-A'],
            inputSchema: objectSchema({}),
          }),
        ],
      },
      'ce_mcp_http_tool[901]',
      /headers must be an object/,
    ],
    ['an unknown rule type', { rules: [badRule({ ruleType: 'FUZZY' })] }, 'ce_rule[901]', /unknown rule_type "FUZZY"/],
    [
      'an invalid regex',
      { rules: [badRule({ matchPattern: '(?i)(unclosed' })] },
      'ce_rule[901]',
      /invalid regular expression/,
    ],
    [
      'an invalid JSONPath',
      { rules: [badRule({ ruleType: 'JSON_PATH', matchPattern: '$.a[' })] },
      'ce_rule[901]',
      /invalid JSONPath/,
    ],
    [
      'SET_INPUT_PARAM JSON that does not parse',
      { rules: [badRule({ action: 'SET_INPUT_PARAM', actionValue: '{"a":' })] },
      'ce_rule[901]',
      /does not parse/,
    ],
    [
      'a response in a state no rule knows',
      {
        responses: [
          response({ responseId: 901, intentCode: 'FAQ', stateCode: 'LIMBO', responseType: 'EXACT', exactText: 'x' }),
        ],
      },
      'ce_response[901]',
      /invalid state_code=LIMBO/,
    ],
  ])('rejects %s, naming the row, and applies nothing', async (_name, extra, row, reason) => {
    const error = await applySeedPacks(tdb.db, [brokenPack(extra)]).then(
      () => undefined,
      (err: unknown) => err
    );
    expect(isEngineError(error) && error.type).toBe('CONFIG_INVALID');
    const message = (error as Error).message;
    expect(message).toContain(`${row}: `);
    expect(message).toMatch(reason);
    expect(message).toMatch(/nothing was applied/);
    expect(await rowCounts(tdb)).toEqual(before);
    const { rows } = await tdb.pool.query(
      "SELECT to_regclass('business.broken_probe') AS t, (SELECT count(*)::int FROM ce_intent WHERE intent_code = 'BROKEN') AS n"
    );
    expect(rows[0]).toEqual({ t: null, n: 0 });
  });
});
