import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readConfigRows, readConfigRevision } from '../../db/config/load';
import { configToYaml, yamlToConfig } from '../../db/config/yaml-tree';
import { ensureConversation } from '../../db/repositories/conversation';
import { seedPacks } from '../../db/seed';
import { runConvengine } from '../support/run-cli';
import { createTestDatabase, type TestDatabase } from '../support/database';

// Each test spawns the CLI from sources (tsx); on a loaded two-core machine that takes seconds.
jest.setTimeout(120_000);

async function readTree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) out[name] = await readFile(join(dir, name), 'utf8');
  return out;
}

/** Issue 14 item 6: `convengine config export | diff | apply | validate`. */
describe('convengine config (config as code)', () => {
  let tdb: TestDatabase;
  let work: string;
  const cli = (...args: string[]) => runConvengine(['config', ...args], { DATABASE_URL: tdb.url });
  beforeAll(async () => {
    tdb = await createTestDatabase();
    await seedPacks(tdb.db, ['all']);
    work = await mkdtemp(join(tmpdir(), 'convengine-config-'));
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
    await tdb.drop();
  });

  it('export writes one readable YAML file per table, and parsing it gives back the same rows', async () => {
    const rows = await readConfigRows(tdb.db);
    const files = configToYaml(rows);
    expect(files.get('ce_response.yaml')).toMatch(/^- response_id: 1\n {2}intent_code: GREETING\n/);
    const back = yamlToConfig(files);
    expect(back.errors).toEqual([]);
    expect(configToYaml(back.rows)).toEqual(files);
  });

  it('export → apply → export round-trips byte for byte; an unchanged tree is "no changes"', async () => {
    const first = join(work, 'first');
    expect(await cli('export', first)).toMatchObject({ code: 0 });
    const diff = await cli('diff', first);
    expect(diff).toMatchObject({ code: 0 });
    expect(diff.stdout.trim()).toBe('no changes');
    expect((await cli('apply', first)).code).toBe(0);
    const second = join(work, 'second');
    expect((await cli('export', second)).code).toBe(0);
    expect(await readTree(second)).toEqual(await readTree(first));
    expect(Object.keys(await readTree(first))).toContain('ce_rule.yaml');
    // Progress messages are config as code like every other table (issue #21).
    expect((await readTree(first))['ce_verbose.yaml']).toMatch(
      /- verbose_id: 201\n {2}intent_code: LOAN_APPLICATION\n {2}state_code: ANY\n {2}step_match: EXACT\n {2}step_value: CorrectionStep\n/
    );
  });

  it('diff and --dry-run print the changes without writing; apply writes them in one go and bumps the version', async () => {
    const dir = join(work, 'edit');
    expect((await cli('export', dir)).code).toBe(0);
    const responses = await readFile(join(dir, 'ce_response.yaml'), 'utf8');
    await writeFile(
      join(dir, 'ce_response.yaml'),
      responses.replace('exact_text: Hi, how can I help you today?', 'exact_text: Hello! What can I do for you?')
    );
    const revision = await readConfigRevision(tdb.db);
    const dry = await cli('apply', dir, '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('~ ce_response[1]: exact_text');
    expect(dry.stdout).toMatch(/1 change\(s\); nothing written/);
    expect(await readConfigRevision(tdb.db)).toBe(revision);

    const applied = await cli('apply', dir);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('~ ce_response[1]: exact_text');
    expect(applied.stdout).toMatch(/applied 1 change\(s\); config version [0-9a-f]{16}/);
    expect(await readConfigRevision(tdb.db)).toBeGreaterThan(revision);
    const greeting = (await readConfigRows(tdb.db)).responses.find((r) => r.responseId === 1);
    expect(greeting?.exactText).toBe('Hello! What can I do for you?');
  });

  it('diff warns of conversations a change leaves without a response, and only of those', async () => {
    const at = async (intent: string, state: string) => {
      const id = crypto.randomUUID();
      await ensureConversation(tdb.db, id);
      await tdb.db.$client.query(
        'UPDATE ce_conversation SET intent_code = $2, state_code = $3 WHERE conversation_id = $1',
        [id, intent, state]
      );
    };
    await at('ORDER_DIAGNOSTICS', 'COMPLETED');
    await at('ORDER_DIAGNOSTICS', 'COMPLETED');
    await at('ORDER_DIAGNOSTICS', 'ANALYZE');
    const rows = await readConfigRows(tdb.db);
    // The author removes the COMPLETED answer of the order pack: ANALYZE keeps its own.
    const dir = join(work, 'stranding');
    const files = configToYaml({
      ...rows,
      responses: rows.responses.map((r) => (r.responseId === 51 ? { ...r, enabled: false } : r)),
    });
    await mkdir(dir, { recursive: true });
    for (const [name, text] of files) await writeFile(join(dir, name), text);
    const diff = await cli('diff', dir);
    expect(diff.code).toBe(0);
    expect(diff.stderr).toContain(
      'warning: 2 conversation(s) in intent ORDER_DIAGNOSTICS, state COMPLETED have a response now and none after this change'
    );
    expect(diff.stderr).not.toContain('state ANALYZE');
    // An unchanged tree strands nobody.
    const same = join(work, 'unchanged');
    expect((await cli('export', same)).code).toBe(0);
    expect((await cli('diff', same)).stderr).not.toContain('warning:');
  });

  it('apply refuses the whole set on any error, naming each bad row, and writes nothing', async () => {
    const dir = join(work, 'broken');
    expect((await cli('export', dir)).code).toBe(0);
    const rules = await readFile(join(dir, 'ce_rule.yaml'), 'utf8');
    await writeFile(join(dir, 'ce_rule.yaml'), rules.replace(/match_pattern: .*\n/, "match_pattern: '(unclosed'\n"));
    const tools = await readFile(join(dir, 'ce_mcp_tool.yaml'), 'utf8');
    await writeFile(join(dir, 'ce_mcp_tool.yaml'), tools.replace(/state_code: \w+/, "state_code: ''"));
    const responses = await readFile(join(dir, 'ce_response.yaml'), 'utf8');
    await writeFile(join(dir, 'ce_response.yaml'), responses.replace('Hello! What can I do for you?', 'Changed.'));
    const verboses = await readFile(join(dir, 'ce_verbose.yaml'), 'utf8');
    await writeFile(
      join(dir, 'ce_verbose.yaml'),
      verboses.replace('step_value: CorrectionStep', 'step_value: Correction')
    );
    const before = await readConfigRows(tdb.db);
    const run = await cli('apply', dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^ce_rule\[\d+\]: match_pattern: invalid regular expression/m);
    expect(run.stderr).toMatch(/^ce_mcp_tool\[\d+\]: state_code is null\/blank/m);
    expect(run.stderr).toMatch(/^ce_verbose\[201\]: unknown step "Correction"/m);
    expect(run.stderr).toMatch(/config invalid: 3 violation\(s\)\nnothing was applied\n/);
    expect(await readConfigRows(tdb.db)).toEqual(before);
    expect((await cli('validate', dir)).code).toBe(1);
  });

  it('diff and apply repair a JSON value nested too deep for the engine, written with SQL', async () => {
    const dir = join(work, 'repair-deep');
    expect((await cli('export', dir)).code).toBe(0);
    const fields = `${'['.repeat(4_000)}${']'.repeat(4_000)}`;
    await tdb.pool.query('UPDATE ce_semantic_entity SET fields_json = $1::jsonb WHERE entity_id = 701', [fields]);
    const diff = await cli('diff', dir);
    expect(diff).toMatchObject({
      code: 0,
      stdout: '~ ce_semantic_entity[701]: fields_json\n1 change(s); nothing written\n',
    });
    const applied = await cli('apply', dir);
    expect(applied).toMatchObject({ code: 0 });
    expect(applied.stdout).toMatch(
      /^~ ce_semantic_entity\[701\]: fields_json\napplied 1 change\(s\); config version [0-9a-f]{16}\n$/
    );
    expect((await cli('diff', dir)).stdout.trim()).toBe('no changes');
  });

  it('names a value of the wrong type, a NUL, or a repeated id by file, row and column, and writes nothing', async () => {
    const dir = join(work, 'typed');
    expect((await cli('export', dir)).code).toBe(0);
    const rules = await readFile(join(dir, 'ce_rule.yaml'), 'utf8');
    const firstRule = rules.slice(0, rules.indexOf('\n- ', 1) + 1);
    const broken = rules
      .replace(/priority: \d+/, 'priority: high')
      .replace(/enabled: true/, 'enabled: yesplease')
      .replace(/action_value: [^\n]*/, 'action_value: 12345');
    await writeFile(join(dir, 'ce_rule.yaml'), `${broken}${firstRule}`);
    const intents = await readFile(join(dir, 'ce_intent.yaml'), 'utf8');
    await writeFile(
      join(dir, 'ce_intent.yaml'),
      intents.replace(/description: [^\n]*/, 'description: "General\\0 questions"')
    );
    const before = await readConfigRows(tdb.db);
    const run = await cli('apply', dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^ce_rule\.yaml: row 1: .*priority must be a whole number \(32-bit\), got "high"/m);
    expect(run.stderr).toMatch(/enabled must be true or false, got "yesplease"/);
    expect(run.stderr).toMatch(/action_value must be text \(quote it: 'like this'\), got 12345/);
    expect(run.stderr).toMatch(/^ce_rule\.yaml: row \d+: the same id \(\d+\) as row 1$/m);
    expect(run.stderr).toMatch(
      /^ce_intent\.yaml: row 1: description contains a NUL character, which PostgreSQL cannot store$/m
    );
    expect(run.stderr).not.toMatch(/insert into|Failed query/);
    expect(await readConfigRows(tdb.db)).toEqual(before);
  });

  it('refuses a directory without any .yaml file and a file that is not UTF-8; a table without a file is kept', async () => {
    const before = await readConfigRows(tdb.db);
    const empty = join(work, 'empty');
    await rm(empty, { recursive: true, force: true });
    await writeFile(join(work, 'placeholder'), '');
    expect((await cli('export', empty)).code).toBe(0);
    for (const name of await readdir(empty)) await rm(join(empty, name));
    for (const action of ['validate', 'apply']) {
      const run = await cli(action, empty);
      expect([action, run.code]).toEqual([action, 1]);
      expect(run.stderr).toContain(`${empty}: no *.yaml files`);
    }
    await writeFile(join(empty, 'ce_intent.yaml'), Buffer.from([0x2d, 0x20, 0xff, 0xfe, 0xc3, 0x28, 0x0a]));
    expect((await cli('apply', empty)).stderr).toContain('ce_intent.yaml: is not UTF-8 text');
    expect(await readConfigRows(tdb.db)).toEqual(before);

    const partial = join(work, 'partial');
    expect((await cli('export', partial)).code).toBe(0);
    for (const name of await readdir(partial)) if (name !== 'ce_response.yaml') await rm(join(partial, name));
    const responses = await readFile(join(partial, 'ce_response.yaml'), 'utf8');
    await writeFile(
      join(partial, 'ce_response.yaml'),
      responses.replace(/exact_text: [^\n]*/, 'exact_text: Partial tree.')
    );
    const applied = await cli('apply', partial);
    expect(applied.stdout).toMatch(/^~ ce_response\[\d+\]: /m);
    expect(applied.stdout).toMatch(/applied 1 change\(s\)/);
    const after = await readConfigRows(tdb.db);
    const byId = <T extends { ruleId: number }>(rows: T[]) => [...rows].sort((x, y) => x.ruleId - y.ruleId);
    expect(after.intents).toEqual(expect.arrayContaining(before.intents));
    expect(after.intents).toHaveLength(before.intents.length);
    expect(byId(after.rules)).toEqual(byId(before.rules));
  });

  it.each([
    [
      'a second statement',
      'select status from move_request where connection_id = :connection_id; DROP TABLE ce_rule',
      /single statement/,
    ],
    ['pg_sleep', 'select pg_sleep(100)', /PG_SLEEP/i],
    ["the engine's own tables", 'select * from public.ce_rule', /schema|public/i],
  ])('refuses a sql_template with %s, as the SQL guardrail would at run time', async (_case, sql, why) => {
    const dir = join(work, `sql-${sql.length}`);
    expect((await cli('export', dir)).code).toBe(0);
    const tools = await readFile(join(dir, 'ce_mcp_db_tool.yaml'), 'utf8');
    await writeFile(
      join(dir, 'ce_mcp_db_tool.yaml'),
      tools.replace(/sql_template: [^\n]*/, `sql_template: ${JSON.stringify(sql)}`)
    );
    const run = await runConvengine(['config', 'validate', dir], { DATABASE_URL: '' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^ce_mcp_db_tool\[\d+\]: sql_template is refused by the SQL guardrail: /m);
    expect(run.stderr).toMatch(why);
  });

  it('refuses an auth_secret_env outside CONVENGINE_TOOL_*, as the HTTP tool would at run time', async () => {
    const dir = join(work, 'secret-env');
    expect((await cli('export', dir)).code).toBe(0);
    const tools = await readFile(join(dir, 'ce_mcp_http_tool.yaml'), 'utf8');
    await writeFile(
      join(dir, 'ce_mcp_http_tool.yaml'),
      tools.replace('auth_secret_env: CONVENGINE_TOOL_DEMO_API_KEY', 'auth_secret_env: DATABASE_URL')
    );
    const run = await runConvengine(['config', 'validate', dir], { DATABASE_URL: '' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^ce_mcp_http_tool\[\d+\]: auth_secret_env must name a CONVENGINE_TOOL_\* variable \(got DATABASE_URL\)/m
    );
  });

  it('a row that leaves out retry_status_codes takes the default; apply then export gives back the exported tree', async () => {
    const dir = join(work, 'left-out');
    expect((await cli('export', dir)).code).toBe(0);
    const exported = await readTree(dir);
    const tools = exported['ce_mcp_http_tool.yaml'] as string;
    expect(tools).toContain('retry_status_codes:\n    - 429\n    - 502\n    - 503\n    - 504\n');
    await writeFile(join(dir, 'ce_mcp_http_tool.yaml'), tools.replace(/ {2}retry_status_codes:\n( {4}- \d+\n)+/g, ''));
    expect(await runConvengine(['config', 'validate', dir], { DATABASE_URL: '' })).toMatchObject({ code: 0 });
    expect(await cli('apply', dir)).toMatchObject({ code: 0 });
    const again = join(work, 'left-out-again');
    expect((await cli('export', again)).code).toBe(0);
    expect(await readTree(again)).toEqual(exported);
  });

  it('carries jsonb numbers a double does not hold exactly through export, diff and apply, whole or partial', async () => {
    const big = '12345678901234567890123';
    await tdb.pool.query(
      "UPDATE ce_mcp_http_tool SET input_schema = jsonb_set(input_schema, '{properties,customerId,maximum}', $1::jsonb) WHERE tool_id = 10201",
      [big]
    );
    const stored = async () =>
      (await tdb.pool.query('SELECT tool_id, input_schema::text AS s FROM ce_mcp_http_tool ORDER BY tool_id')).rows;
    const before = await stored();
    const dir = join(work, 'exact-numbers');
    expect((await cli('export', dir)).code).toBe(0);
    expect((await readTree(dir))['ce_mcp_http_tool.yaml']).toContain(`maximum: ${big}\n`);
    expect((await cli('diff', dir)).stdout.trim()).toBe('no changes');
    expect((await cli('apply', dir)).code).toBe(0);
    expect(await stored()).toEqual(before);
    // A tree of other tables rewrites this one from the database's rows: as they are.
    for (const name of await readdir(dir)) if (name !== 'ce_response.yaml') await rm(join(dir, name));
    const responses = await readFile(join(dir, 'ce_response.yaml'), 'utf8');
    await writeFile(join(dir, 'ce_response.yaml'), responses.replace(/exact_text: [^\n]*/, 'exact_text: Exact.'));
    expect((await cli('apply', dir)).stdout).toMatch(/applied 1 change\(s\)/);
    expect(await stored()).toEqual(before);
  });

  it('validate works offline; a file that is not a table or a row with an unknown column is named', async () => {
    const dir = join(work, 'offline');
    expect((await cli('export', dir)).code).toBe(0);
    expect(await runConvengine(['config', 'validate', dir], { DATABASE_URL: '' })).toMatchObject({ code: 0 });
    await writeFile(join(dir, 'ce_nothing.yaml'), '[]\n');
    await writeFile(join(dir, 'ce_intent.yaml'), '- intent_code: X\n  colour: blue\n');
    const run = await cli('validate', dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('ce_nothing.yaml: not a config table file');
    expect(run.stderr).toContain('ce_intent.yaml: row 1 has unknown column(s) colour');
    expect((await cli('frobnicate', dir)).code).toBe(2);
  });
});
