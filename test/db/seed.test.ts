import { formatViolation, type ConfigRows } from '../../core/config/types';
import { isEngineError } from '../../core/errors';
import { createConfigStore } from '../../db/config/store';
import { intent, promptTemplate, rule, httpTool, mcpTool, objectSchema, response } from '../../db/seed/builders';
import { packConfigRows } from '../../db/seed/merge';
import { SEED_PACKS, applySeedPacks, seedPacks, type SeedPack } from '../../db/seed';
import { createTestDatabase, type TestDatabase } from '../support/database';

const CONFIG_TABLES = [
  'ce_config',
  'ce_intent',
  'ce_intent_classifier',
  'ce_output_schema',
  'ce_prompt_template',
  'ce_response',
  'ce_rule',
  'ce_policy',
  'ce_pending_action',
  'ce_mcp_tool',
  'ce_mcp_db_tool',
  'ce_mcp_http_tool',
  'ce_mcp_planner',
  'ce_mcp_sql_guardrail',
  'ce_semantic_concept',
  'ce_semantic_synonym',
  'ce_semantic_entity',
  'ce_semantic_query_class',
  'ce_semantic_mapping',
  'ce_semantic_join_path',
];

/** Row count of every config table and every table in schema business. */
async function rowCounts(tdb: TestDatabase): Promise<Record<string, number>> {
  const { rows: business } = await tdb.pool.query<{ name: string }>(
    "SELECT 'business.' || table_name AS name FROM information_schema.tables WHERE table_schema = 'business' ORDER BY 1"
  );
  const counts: Record<string, number> = {};
  for (const table of [...CONFIG_TABLES, ...business.map((b) => b.name)]) {
    const { rows } = await tdb.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
    counts[table] = rows[0]?.n ?? -1;
  }
  return counts;
}

function expectedConfigCounts(packs: readonly SeedPack[]): Record<string, number> {
  const rows = packConfigRows(packs);
  const keys: (keyof ConfigRows)[] = [
    'configs',
    'intents',
    'classifiers',
    'outputSchemas',
    'promptTemplates',
    'responses',
    'rules',
    'policies',
    'pendingActions',
    'mcpTools',
    'mcpDbTools',
    'mcpHttpTools',
    'mcpPlanners',
    'sqlGuardrails',
    'semanticConcepts',
    'semanticSynonyms',
    'semanticEntities',
    'semanticQueryClasses',
    'semanticMappings',
    'semanticJoinPaths',
  ];
  return Object.fromEntries(CONFIG_TABLES.map((table, i) => [table, rows[keys[i] as keyof ConfigRows].length]));
}

// jest.config's per-project testTimeout is not applied by Jest; database setup can be slow under load.
jest.setTimeout(30_000);

describe.each([...SEED_PACKS.map((p) => [p.name, [p]] as const), ['all', SEED_PACKS] as const])(
  'seed pack %s',
  (name, packs) => {
    let tdb: TestDatabase;
    beforeAll(async () => {
      tdb = await createTestDatabase();
    });
    afterAll(async () => {
      await tdb.drop();
    });

    it('seeds twice without duplicating anything and validates', async () => {
      const first = await seedPacks(tdb.db, [name]);
      const afterFirst = await rowCounts(tdb);
      const second = await seedPacks(tdb.db, [name]);
      expect(await rowCounts(tdb)).toEqual(afterFirst);
      expect(second.version).toBe(first.version);
      expect(afterFirst).toMatchObject(expectedConfigCounts(packs));
      for (const table of packs.flatMap((p) => p.business)) {
        expect(afterFirst[`business.${table.name}`]).toBeGreaterThan(0);
      }
      const store = createConfigStore(tdb.db);
      expect((await store.current()).version).toBe(first.version);
      expect(await store.validateDatabase()).toEqual({ version: first.version, violations: [], warnings: [] });
    });
  }
);

describe('seeded data and permissions', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
    await seedPacks(tdb.db, ['all']);
  });
  afterAll(async () => {
    await tdb.drop();
  });

  async function scalar(query: string): Promise<unknown> {
    const { rows } = await tdb.pool.query(query);
    return Object.values(rows[0] ?? {})[0];
  }

  it('holds the facts the zapper demo answers', async () => {
    expect(
      await scalar(`SELECT count(*)::int FROM business.zp_disco_request r WHERE EXISTS (
        SELECT 1 FROM business.zp_disco_request_log l WHERE l.request_id = r.request_id
        AND l.from_status = 810 AND l.to_status = 120
        AND l.changed_at >= '2026-03-12T00:00:00-08:00' AND l.changed_at < '2026-03-13T00:00:00-08:00')`)
    ).toBe(7);
    expect(
      await scalar(
        "SELECT count(*)::int FROM business.zp_order_downstream_check WHERE request_id = 'ZPR1003' AND downstream_disconnect_order_id IS NULL"
      )
    ).toBe(1);
    const { rows } = await tdb.pool.query(
      "SELECT record_status, balance::text AS balance FROM business.zp_billbank_record WHERE disconnect_id = 'ZPDISC7003'"
    );
    expect(rows).toEqual([{ record_status: 'CLOSED', balance: '0.00' }]);
    expect(
      await scalar("SELECT count(*)::int FROM business.zp_disco_request WHERE account_id = 'UPSA100'")
    ).toBeGreaterThan(0);
    expect(
      await scalar("SELECT status FROM business.move_request WHERE connection_id = 'USPSC003BA100SA277CON1388'")
    ).toBe('MOVED');
  });

  it('lets the tools role read business tables and nothing else', async () => {
    const client = await tdb.pool.connect();
    const attempt = async (query: string) => {
      await client.query('SAVEPOINT probe');
      try {
        await client.query(query);
        return 'ok';
      } catch (err) {
        await client.query('ROLLBACK TO SAVEPOINT probe');
        return (err as Error).message;
      }
    };
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL ROLE convengine_tools_ro');
      expect(await attempt("SELECT status FROM business.move_request WHERE connection_id = 'x'")).toBe('ok');
      expect(await attempt('SELECT count(*) FROM business.zp_billbank_record')).toBe('ok');
      expect(await attempt('SELECT count(*) FROM ce_intent')).toMatch(/permission denied/);
      expect(await attempt("UPDATE business.move_request SET status = 'X'")).toMatch(/permission denied/);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it("keeps an author's edit of a seeded row when seeding again (as every `convengine start` does)", async () => {
    await tdb.pool.query("UPDATE ce_response SET exact_text = 'edited' WHERE response_id = 10");
    await seedPacks(tdb.db, ['faq']);
    expect(await scalar('SELECT exact_text FROM ce_response WHERE response_id = 10')).toBe('edited');
  });

  it("does not stop on an author's invalid edit it did not make (nothing to insert): it reports it", async () => {
    const original = await scalar('SELECT match_pattern FROM ce_rule WHERE rule_id = 10');
    await tdb.pool.query("UPDATE ce_rule SET match_pattern = '(unclosed' WHERE rule_id = 10");
    try {
      const report = await seedPacks(tdb.db, ['faq']);
      expect(report.violations.map(formatViolation)).toEqual([expect.stringMatching(/^ce_rule\[10\]: /)]);
    } finally {
      await tdb.pool.query('UPDATE ce_rule SET match_pattern = $1 WHERE rule_id = 10', [original]);
    }
  });

  it('puts back a seeded row that was deleted', async () => {
    await tdb.pool.query('DELETE FROM ce_response WHERE response_id = 10');
    await seedPacks(tdb.db, ['faq']);
    expect(await scalar('SELECT exact_text FROM ce_response WHERE response_id = 10')).toBe(
      'Yes, internal account moves are supported.'
    );
  });
});

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
