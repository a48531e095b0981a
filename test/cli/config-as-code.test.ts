import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readConfigRows, readConfigRevision } from '../../db/config/load';
import { configToYaml, yamlToConfig } from '../../db/config/yaml-tree';
import { ensureConversation } from '../../db/repositories/conversation';
import { runConvengine } from '../support/run-cli';
import { readTree, seededConfigDatabase } from './config-as-code-tree';

// Each test spawns the CLI from sources (tsx); on a loaded two-core machine that takes seconds.
jest.setTimeout(120_000);

/** Issue 14 item 6: `convengine config export | diff | apply | validate`. */
describe('convengine config (config as code)', () => {
  const seeded = seededConfigDatabase();
  const { cli } = seeded;

  it('export writes one readable YAML file per table, and parsing it gives back the same rows', async () => {
    const rows = await readConfigRows(seeded.tdb.db);
    const files = configToYaml(rows);
    expect(files.get('ce_response.yaml')).toMatch(/^- response_id: 1\n {2}intent_code: GREETING\n/);
    const back = yamlToConfig(files);
    expect(back.errors).toEqual([]);
    expect(configToYaml(back.rows)).toEqual(files);
  });

  it('export → apply → export round-trips byte for byte; an unchanged tree is "no changes" and apply writes nothing', async () => {
    const first = join(seeded.work, 'first');
    expect(await cli('export', first)).toMatchObject({ code: 0 });
    const diff = await cli('diff', first);
    expect(diff).toMatchObject({ code: 0 });
    expect(diff.stdout.trim()).toBe('no changes');
    // Equal to the database: nothing written, the revision (which every store polls) kept.
    const revision = await readConfigRevision(seeded.tdb.db);
    const applied = await cli('apply', first);
    expect(applied).toMatchObject({ code: 0, stderr: '' });
    expect(applied.stdout).toMatch(/^no changes; config version [0-9a-f]{16} kept\n$/);
    expect(await readConfigRevision(seeded.tdb.db)).toBe(revision);
    const second = join(seeded.work, 'second');
    expect((await cli('export', second)).code).toBe(0);
    expect(await readTree(second)).toEqual(await readTree(first));
    expect(Object.keys(await readTree(first))).toContain('ce_rule.yaml');
    // Progress messages are config as code like every other table (issue #21).
    expect((await readTree(first))['ce_verbose.yaml']).toMatch(
      /- verbose_id: 201\n {2}intent_code: LOAN_APPLICATION\n {2}state_code: ANY\n {2}step_match: EXACT\n {2}step_value: CorrectionStep\n/
    );
  });

  it('diff and --dry-run print the changes without writing; apply writes them in one go and bumps the version', async () => {
    const dir = join(seeded.work, 'edit');
    expect((await cli('export', dir)).code).toBe(0);
    const responses = await readFile(join(dir, 'ce_response.yaml'), 'utf8');
    await writeFile(
      join(dir, 'ce_response.yaml'),
      responses.replace('exact_text: Hi, how can I help you today?', 'exact_text: Hello! What can I do for you?')
    );
    const revision = await readConfigRevision(seeded.tdb.db);
    const dry = await cli('apply', dir, '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('~ ce_response[1]: exact_text');
    expect(dry.stdout).toMatch(/1 change\(s\); nothing written/);
    expect(await readConfigRevision(seeded.tdb.db)).toBe(revision);

    const applied = await cli('apply', dir);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('~ ce_response[1]: exact_text');
    expect(applied.stdout).toMatch(/applied 1 change\(s\); config version [0-9a-f]{16}/);
    expect(await readConfigRevision(seeded.tdb.db)).toBeGreaterThan(revision);
    const greeting = (await readConfigRows(seeded.tdb.db)).responses.find((r) => r.responseId === 1);
    expect(greeting?.exactText).toBe('Hello! What can I do for you?');
  });

  it('diff warns of conversations a change leaves without a response, and only of those', async () => {
    const at = async (intent: string, state: string) => {
      const id = crypto.randomUUID();
      await ensureConversation(seeded.tdb.db, id);
      await seeded.tdb.db.$client.query(
        'UPDATE ce_conversation SET intent_code = $2, state_code = $3 WHERE conversation_id = $1',
        [id, intent, state]
      );
    };
    await at('ORDER_DIAGNOSTICS', 'COMPLETED');
    await at('ORDER_DIAGNOSTICS', 'COMPLETED');
    await at('ORDER_DIAGNOSTICS', 'ANALYZE');
    const rows = await readConfigRows(seeded.tdb.db);
    // The author removes the COMPLETED answer of the order pack: ANALYZE keeps its own.
    const dir = join(seeded.work, 'stranding');
    const files = configToYaml({
      ...rows,
      responses: rows.responses.map((r) => (r.responseId === 51 ? { ...r, enabled: false } : r)),
    });
    await mkdir(dir, { recursive: true });
    for (const [name, text] of files) await writeFile(join(dir, name), text);
    const diff = await cli('diff', dir);
    expect(diff.code).toBe(0);
    expect(diff.stderr).toContain(
      'warning: 2 conversation(s) in intent ORDER_DIAGNOSTICS, state COMPLETED have a response now and none after ' +
        'this change: their next turn may fail with RESPONSE_MAPPING_NOT_FOUND, unless intent resolution (a ' +
        'classifier or the intent agent; skipped while the intent is locked) or a rule moves them on\n'
    );
    expect(diff.stderr).not.toContain('state ANALYZE');
    // An unchanged tree strands nobody.
    const same = join(seeded.work, 'unchanged');
    expect((await cli('export', same)).code).toBe(0);
    expect((await cli('diff', same)).stderr).not.toContain('warning:');
  });

  it('apply refuses the whole set on any error, naming each bad row, and writes nothing', async () => {
    const dir = join(seeded.work, 'broken');
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
    const before = await readConfigRows(seeded.tdb.db);
    const run = await cli('apply', dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^ce_rule\[\d+\]: match_pattern: invalid regular expression/m);
    expect(run.stderr).toMatch(/^ce_mcp_tool\[\d+\]: state_code is null\/blank/m);
    expect(run.stderr).toMatch(/^ce_verbose\[201\]: unknown step "Correction"/m);
    expect(run.stderr).toMatch(/config invalid: 3 violation\(s\)\nnothing was applied\n/);
    expect(await readConfigRows(seeded.tdb.db)).toEqual(before);
    expect((await cli('validate', dir)).code).toBe(1);
  });

  it('diff and apply repair a JSON value nested too deep for the engine, written with SQL', async () => {
    const dir = join(seeded.work, 'repair-deep');
    expect((await cli('export', dir)).code).toBe(0);
    const fields = `${'['.repeat(4_000)}${']'.repeat(4_000)}`;
    await seeded.tdb.pool.query('UPDATE ce_semantic_entity SET fields_json = $1::jsonb WHERE entity_id = 701', [
      fields,
    ]);
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

  it('a row that leaves out retry_status_codes takes the default; apply then export gives back the exported tree', async () => {
    const dir = join(seeded.work, 'left-out');
    expect((await cli('export', dir)).code).toBe(0);
    const exported = await readTree(dir);
    const tools = exported['ce_mcp_http_tool.yaml'] as string;
    expect(tools).toContain('retry_status_codes:\n    - 429\n    - 502\n    - 503\n    - 504\n');
    await writeFile(join(dir, 'ce_mcp_http_tool.yaml'), tools.replace(/ {2}retry_status_codes:\n( {4}- \d+\n)+/g, ''));
    expect(await runConvengine(['config', 'validate', dir], { DATABASE_URL: '' })).toMatchObject({ code: 0 });
    expect(await cli('apply', dir)).toMatchObject({ code: 0 });
    const again = join(seeded.work, 'left-out-again');
    expect((await cli('export', again)).code).toBe(0);
    expect(await readTree(again)).toEqual(exported);
  });

  it('carries jsonb numbers a double does not hold exactly through export, diff and apply, whole or partial', async () => {
    const big = '12345678901234567890123';
    await seeded.tdb.pool.query(
      "UPDATE ce_mcp_http_tool SET input_schema = jsonb_set(input_schema, '{properties,customerId,maximum}', $1::jsonb) WHERE tool_id = 10201",
      [big]
    );
    const stored = async () =>
      (await seeded.tdb.pool.query('SELECT tool_id, input_schema::text AS s FROM ce_mcp_http_tool ORDER BY tool_id'))
        .rows;
    const before = await stored();
    const dir = join(seeded.work, 'exact-numbers');
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
});
