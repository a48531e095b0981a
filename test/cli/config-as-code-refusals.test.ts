import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readConfigRows } from '../../db/config/load';
import { runConvengine } from '../support/run-cli';
import { seededConfigDatabase } from './config-as-code-tree';

// Each test spawns the CLI from sources (tsx); on a loaded two-core machine that takes seconds.
jest.setTimeout(120_000);

/**
 * Issue 14 item 6, continued from config-as-code.test.ts: what `convengine config apply | validate` refuses in a tree
 * (wrong types, NUL, repeated ids, no YAML, non-UTF-8, guardrail-refused SQL, secrets outside CONVENGINE_TOOL_*,
 * unknown files and columns), naming it and writing nothing, and that a table without a file is kept.
 */
describe('convengine config (config as code)', () => {
  const seeded = seededConfigDatabase();
  const { cli } = seeded;

  it('names a value of the wrong type, a NUL, or a repeated id by file, row and column, and writes nothing', async () => {
    const dir = join(seeded.work, 'typed');
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
    const before = await readConfigRows(seeded.tdb.db);
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
    expect(await readConfigRows(seeded.tdb.db)).toEqual(before);
  });

  it('refuses a directory without any .yaml file and a file that is not UTF-8; a table without a file is kept', async () => {
    const before = await readConfigRows(seeded.tdb.db);
    const empty = join(seeded.work, 'empty');
    await rm(empty, { recursive: true, force: true });
    await writeFile(join(seeded.work, 'placeholder'), '');
    expect((await cli('export', empty)).code).toBe(0);
    for (const name of await readdir(empty)) await rm(join(empty, name));
    for (const action of ['validate', 'apply']) {
      const run = await cli(action, empty);
      expect([action, run.code]).toEqual([action, 1]);
      expect(run.stderr).toContain(`${empty}: no *.yaml files`);
    }
    await writeFile(join(empty, 'ce_intent.yaml'), Buffer.from([0x2d, 0x20, 0xff, 0xfe, 0xc3, 0x28, 0x0a]));
    expect((await cli('apply', empty)).stderr).toContain(
      'ce_intent.yaml: is not UTF-8 text: byte 0xFF at byte offset 2 (line 1, column 3)'
    );
    expect(await readConfigRows(seeded.tdb.db)).toEqual(before);

    const partial = join(seeded.work, 'partial');
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
    const after = await readConfigRows(seeded.tdb.db);
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
    const dir = join(seeded.work, `sql-${sql.length}`);
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
    const dir = join(seeded.work, 'secret-env');
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

  it('validate works offline; a file that is not a table or a row with an unknown column is named', async () => {
    const dir = join(seeded.work, 'offline');
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
