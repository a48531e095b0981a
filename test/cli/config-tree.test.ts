import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configCommand } from '../../cli/commands/config';
import { TABLE_FILE_MAX_BYTES } from '../../cli/yaml-tree-files';
import { configToYaml } from '../../db/config/yaml-tree';
import { SEED_PACKS, packConfigRows } from '../../db/seed';
import { loadEnv } from '../../config/env';

/**
 * `convengine config validate <dir>` run in process on trees written from the bundled packs: what it makes of a
 * partial tree, of files it does not read, and of values PostgreSQL would refuse.
 */
describe('convengine config validate: the tree as files', () => {
  let work: string;
  let count = 0;
  const packs = configToYaml(packConfigRows(SEED_PACKS));

  /** A tree with the packs' files named (all when none are), edited by `change`. */
  async function tree(names: string[] | 'all', change: Record<string, string | ((text: string) => string)> = {}) {
    const dir = join(work, `tree-${++count}`);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    for (const [name, text] of packs)
      if (names === 'all' || names.includes(name)) await writeFile(join(dir, name), text);
    for (const [name, edit] of Object.entries(change)) {
      const before = await readFile(join(dir, name), 'utf8').catch(() => '');
      await writeFile(join(dir, name), typeof edit === 'string' ? edit : edit(before));
    }
    return dir;
  }

  async function validate(dir: string, ...flags: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await configCommand.run(
      ['validate', dir, ...flags],
      {
        out: (l) => out.push(l),
        err: (l) => err.push(l),
        stdin: process.stdin,
      },
      loadEnv()
    );
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'convengine-tree-'));
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('validates a partial tree for what it holds: no false violation for rows the missing files would define', async () => {
    const dir = await tree(['ce_response.yaml', 'ce_mcp_tool.yaml']);
    const run = await validate(dir);
    expect(run.err).not.toMatch(
      /not defined in ce_intent|no enabled ce_rule|no ce_mcp_db_tool row|no enabled ce_prompt/
    );
    expect(run.err).toMatch(
      /^note: .* has no ce_config\.yaml, ce_intent\.yaml, .*: what needs those tables is not checked here/m
    );
    expect(run).toMatchObject({ code: 0, out: `config valid: ${dir}` });
  });

  it('with --complete, takes a table without a file as empty and checks every reference strictly', async () => {
    const whole = await tree('all');
    expect(await validate(whole, '--complete')).toMatchObject({ code: 0, out: `config valid: ${whole}` });
    const partial = await tree(['ce_response.yaml', 'ce_mcp_tool.yaml']);
    const run = await validate(partial, '--complete');
    expect(run.code).toBe(1);
    expect(run.err).not.toMatch(/^note: /m);
    expect(run.err).toMatch(/not defined in ce_intent/);
    // validate applies nothing, so it does not say that nothing was applied.
    expect(run.err).toMatch(/config invalid: \d+ violation\(s\)$/);
  });

  it('refuses --complete for the actions that read the database', async () => {
    const err: string[] = [];
    const io = { out: () => undefined, err: (l: string) => err.push(l), stdin: process.stdin };
    expect(await configCommand.run(['diff', work, '--complete'], io, loadEnv())).toBe(2);
    expect(err.join('\n')).toMatch(/config diff: --complete is only for validate/);
  });

  it('still refuses what a partial tree gets wrong on its own', async () => {
    const dir = await tree(['ce_response.yaml', 'ce_mcp_db_tool.yaml'], {
      'ce_response.yaml': (text) =>
        text.replace(/response_type: EXACT\n(\s+)exact_text: [^\n]*/, 'response_type: EXACT\n$1exact_text: null'),
      'ce_mcp_db_tool.yaml': (text) => text.replace(/sql_template: [^\n]*/, "sql_template: 'delete from orders'"),
    });
    const run = await validate(dir);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/^ce_response\[\d+\]: EXACT response needs exact_text$/m);
    expect(run.err).toMatch(
      /^ce_mcp_db_tool\[\d+\]: sql_template must be a read-only query starting with SELECT or WITH$/m
    );
    // With the business schemas known (ce_config.yaml) the guardrail still refuses what no guardrail row could allow.
    const sleepy = await tree(['ce_config.yaml', 'ce_mcp_db_tool.yaml'], {
      'ce_mcp_db_tool.yaml': (text) => text.replace(/sql_template: [^\n]*/, "sql_template: 'select pg_sleep(100)'"),
    });
    const refused = await validate(sleepy);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/^ce_mcp_db_tool\[\d+\]: sql_template is refused by the SQL guardrail: .*pg_sleep/im);
  });

  it('refuses a table file it would not read (.yml, .json) and an empty one; says which other files it skips', async () => {
    const intents = packs.get('ce_intent.yaml') ?? '';
    const dir = await tree('all', {
      'ce_intent.yml': intents,
      'ce_rule.json': '[]',
      'README.md': '# my config\n',
      '.gitkeep': '',
    });
    const run = await validate(dir);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/^ce_intent\.yml: not read: table files end in \.yaml \(rename it ce_intent\.yaml\)$/m);
    expect(run.err).toMatch(/^ce_rule\.json: not read: table files end in \.yaml \(rename it ce_rule\.yaml\)$/m);
    expect(run.err).toMatch(/^warning: README\.md: not read \(a config tree holds only <table>\.yaml files\)$/m);
    expect(run.err).not.toMatch(/gitkeep/);

    const empty = await validate(await tree('all', { 'ce_verbose.yaml': '', 'ce_policy.yaml': '# nothing yet\n' }));
    expect(empty.code).toBe(1);
    expect(empty.err).toMatch(/^ce_verbose\.yaml: is empty \(0 bytes\); a table without rows is written \[\]/m);
    expect(empty.err).toMatch(/^ce_policy\.yaml: holds no YAML value; a table without rows is written \[\]/m);
  });

  it('reads a table file through a symbolic link, as a Kubernetes ConfigMap mounts it, and refuses a dangling one', async () => {
    // The ConfigMap layout: the files live in a hidden ..data directory, each table name a link into it.
    const mount = join(work, `configmap-${++count}`);
    await mkdir(join(mount, '..data'), { recursive: true });
    for (const [name, text] of packs) {
      await writeFile(join(mount, '..data', name), text);
      await symlink(join('..data', name), join(mount, name));
    }
    expect(await validate(mount, '--complete')).toMatchObject({ code: 0, out: `config valid: ${mount}` });
    // What the link points to is what is read: a fault in the linked file is found.
    const responses = packs.get('ce_response.yaml') ?? '';
    const broken = responses.replace(
      /response_type: EXACT\n(\s+)exact_text: [^\n]*/,
      'response_type: EXACT\n$1exact_text: null'
    );
    await writeFile(join(mount, '..data', 'ce_response.yaml'), broken);
    const run = await validate(mount, '--complete');
    expect(run.err).not.toMatch(/not read/);
    expect(run.err).toMatch(/^ce_response\[\d+\]: EXACT response needs exact_text$/m);
    expect(run.code).toBe(1);

    const dangling = await tree('all');
    await rm(join(dangling, 'ce_rule.yaml'));
    await symlink(join(work, 'nowhere.yaml'), join(dangling, 'ce_rule.yaml'));
    const refused = await validate(dangling);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/^ce_rule\.yaml: a symbolic link to nothing that can be read$/m);
  });

  it('refuses a table file name on a directory, a device, a FIFO or a socket, directly or through a link', async () => {
    const dir = await tree('all');
    await rm(join(dir, 'ce_verbose.yaml'));
    await mkdir(join(dir, 'ce_verbose.yaml'));
    await rm(join(dir, 'ce_rule.yaml'));
    await symlink('/dev/zero', join(dir, 'ce_rule.yaml'));
    await rm(join(dir, 'ce_policy.yaml'));
    execFileSync('mkfifo', [join(dir, 'ce_policy.yaml')]);
    await rm(join(dir, 'ce_intent.yaml'));
    const socket = createServer().listen(join(dir, 'ce_intent.yaml'));
    await once(socket, 'listening');
    await mkdir(join(dir, 'archive'));
    try {
      const run = await validate(dir);
      expect(run.code).toBe(1);
      expect(run.err).toMatch(/^ce_verbose\.yaml: not read: a directory, not a file$/m);
      expect(run.err).toMatch(/^ce_rule\.yaml: not read: a symbolic link to a character device, not a file$/m);
      expect(run.err).toMatch(/^ce_policy\.yaml: not read: a named pipe \(FIFO\), not a file$/m);
      expect(run.err).toMatch(/^ce_intent\.yaml: not read: a socket, not a file$/m);
      expect(run.err).toMatch(
        /^warning: archive: not read \(a directory: a config tree holds only <table>\.yaml files\)$/m
      );
      expect(run.out).toBe('');
    } finally {
      socket.close();
    }
  });

  it('refuses a table file larger than TABLE_FILE_MAX_BYTES, directly or through a link, before reading it', async () => {
    const dir = await tree('all');
    const big = join(work, `big-${++count}.yaml`);
    await writeFile(big, '');
    await truncate(big, TABLE_FILE_MAX_BYTES + 1); // sparse: no disk, and never read
    await rm(join(dir, 'ce_verbose.yaml'));
    await symlink(big, join(dir, 'ce_verbose.yaml'));
    await rm(join(dir, 'ce_rule.yaml'));
    await truncate(join(dir, 'ce_policy.yaml'), TABLE_FILE_MAX_BYTES + 1);
    const run = await validate(dir);
    expect(run.code).toBe(1);
    const over = `${TABLE_FILE_MAX_BYTES + 1} bytes, more than a table file may hold \\(16 MiB\\); not read$`;
    expect(run.err).toMatch(new RegExp(`^ce_verbose\\.yaml: ${over}`, 'm'));
    expect(run.err).toMatch(new RegExp(`^ce_policy\\.yaml: ${over}`, 'm'));
    // At the limit a file is read (and here judged on what it holds).
    await truncate(join(dir, 'ce_policy.yaml'), 0);
    await writeFile(join(dir, 'ce_policy.yaml'), `${'#'.repeat(TABLE_FILE_MAX_BYTES - 3)}\n[]`);
    const atLimit = await validate(dir);
    expect(atLimit.err).not.toMatch(/^ce_policy\.yaml/m);
  });

  it('refuses a numeric value its numeric(p, s) column would overflow, as PostgreSQL rounds it', async () => {
    const httpTools = '- tool_id: 1\n  url_template: https://example.test/x\n  backoff_multiplier: ';
    const fits = await validate(
      await tree(['ce_mcp_http_tool.yaml'], { 'ce_mcp_http_tool.yaml': `${httpTools}999.994\n` })
    );
    expect(fits.err).not.toMatch(/backoff_multiplier/);
    for (const value of ['999.995', '1000', "'-1000.5'"]) {
      const run = await validate(
        await tree(['ce_mcp_http_tool.yaml'], { 'ce_mcp_http_tool.yaml': `${httpTools}${value}\n` })
      );
      expect([value, run.code]).toEqual([value, 1]);
      expect(run.err).toMatch(
        /^ce_mcp_http_tool\.yaml: row 1: backoff_multiplier must fit numeric\(5, 2\), under 1000 in absolute value, got /m
      );
    }
    const synonyms = '- synonym_id: 1\n  synonym_text: cost\n  concept_key: PRICE\n  confidence_score: 10\n';
    const run = await validate(await tree(['ce_semantic_synonym.yaml'], { 'ce_semantic_synonym.yaml': synonyms }));
    expect(run.err).toMatch(/^ce_semantic_synonym\.yaml: row 1: confidence_score must fit numeric\(4, 3\), under 10/m);
  });

  it('judges a quoted number by its value, and refuses a created_at that is no instant, by file, row and column', async () => {
    const httpTools = '- tool_id: 1\n  url_template: https://example.test/x\n  backoff_multiplier: ';
    const quoted = await validate(
      await tree(['ce_mcp_http_tool.yaml'], { 'ce_mcp_http_tool.yaml': `${httpTools}"2.5"\n` })
    );
    expect(quoted.err).not.toMatch(/backoff_multiplier/);
    for (const value of ['garbage', '2026-13-45', 'yesterday', '2026-01-01 00:00:00', '0000-01-01T00:00:00.000Z']) {
      const intents = `- intent_code: FAQ\n  description: Questions\n  created_at: ${value}\n`;
      const run = await validate(await tree(['ce_intent.yaml'], { 'ce_intent.yaml': intents }));
      expect([value, run.code]).toEqual([value, 1]);
      expect(run.err).toMatch(
        /^ce_intent\.yaml: row 1: created_at must be a timestamp such as 2026-01-31T12:00:00\.000Z/m
      );
    }
  });
});
