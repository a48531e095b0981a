import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { whatifConversation } from '../../activities/whatif/replay';
import type { TurnDiff } from '../../core/whatif/diff';
import { readConfigRows } from '../../db/config/load';
import { listAudits } from '../../db/repositories/audit';
import type * as AuditRepository from '../../db/repositories/audit';
import { configToYaml } from '../../db/config/yaml-tree';
import { DEMO_CONVERSATIONS } from '../../demo/conversations';
import { runConversations } from '../../demo/demo-runner';
import { DemoHarness } from '../demo/demo-harness';
import { buildApi } from '../../api/app';
import { conversationQueries } from '../../api/db-queries';
import type { ApiPorts } from '../../api/ports';
import { whatifCommand } from '../../cli/commands/whatif';
import { runConvengine, type CliRun } from '../support/run-cli';
import { goldenOf, GOLDEN_PATH } from './whatif-golden';

// Every audit read passes through, counted: the replay must read each scratch row once (see its test).
jest.mock('../../db/repositories/audit', () => {
  const actual = jest.requireActual<typeof AuditRepository>('../../db/repositories/audit');
  return { ...actual, listAudits: jest.fn(actual.listAudits) };
});

// Records every seed demo conversation once (in process, recorded model), then replays them.
jest.setTimeout(300_000);

type Row = Record<string, unknown>;

/** Issue #15 item 2: `convengine whatif` replays recorded conversations against a draft config. */
describe('convengine whatif (what-if replay)', () => {
  let demo: DemoHarness;
  let work: string;
  const ids = new Map<string, string>();
  const idOf = (name: string) => ids.get(name) as string;
  /** Through bin/convengine.js, as a user or CI runs it. */
  const cli = (...args: string[]) => runConvengine(['whatif', ...args], { DATABASE_URL: demo.tdb.url });
  /** The same command in this process (spawning costs seconds per run on a loaded machine). */
  const inProcess = async (...args: string[]): Promise<CliRun> => {
    const out: string[] = [];
    const err: string[] = [];
    const saved = process.env['DATABASE_URL'];
    process.env['DATABASE_URL'] = demo.tdb.url;
    try {
      const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l), stdin: process.stdin };
      const code = await whatifCommand.run(args, io);
      return { code, stdout: out.join('\n'), stderr: err.join('\n') };
    } finally {
      process.env['DATABASE_URL'] = saved;
    }
  };

  /** Everything a replay could touch, so isolation can be checked at the end. */
  const fingerprint = async () => {
    const { rows } = await demo.tdb.pool.query(`
      select (select count(*) from ce_conversation) conversations,
             (select count(*) from ce_conversation_history) history,
             (select count(*) from ce_llm_call_log) llm_calls,
             (select count(*) from ce_config_snapshot) snapshots,
             (select md5(string_agg(a::text, '|' order by audit_id)) from ce_audit a) audits,
             (select md5(string_agg(c::text, '|' order by conversation_id)) from ce_conversation c) conversation_rows`);
    return rows[0] as Row;
  };
  let before: Row;

  /** The config as a YAML tree in a fresh directory, edited by `edit(table, rows)`. */
  async function draftTree(name: string, edit: (file: string, rows: Row[]) => Row[]): Promise<string> {
    const dir = join(work, name);
    await mkdir(dir, { recursive: true });
    for (const [file, text] of configToYaml(await readConfigRows(demo.tdb.db))) {
      const rows = (parse(text) ?? []) as Row[];
      await writeFile(join(dir, file), stringify(edit(file, rows), { lineWidth: 0 }), 'utf8');
    }
    return dir;
  }

  beforeAll(async () => {
    demo = await DemoHarness.start();
    const records = await runConversations(DEMO_CONVERSATIONS, demo.send);
    expect(records.filter((r) => !r.ok)).toEqual([]);
    for (const r of records) ids.set(r.conversation, r.conversationId as string);
    work = await mkdtemp(join(tmpdir(), 'convengine-whatif-'));
    before = await fingerprint();
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
    await demo?.stop();
  });

  it('replays every seed demo conversation unchanged against the current config, matching the golden file', async () => {
    const replays = [];
    for (const conversation of DEMO_CONVERSATIONS) {
      const result = await whatifConversation(
        { db: demo.tdb.db },
        { conversationId: idOf(conversation.name), config: { version: 'current' } }
      );
      expect(result.turns.map((t) => [conversation.name, t.turnNumber, t.status, t.changes])).toEqual(
        result.turns.map((t) => [conversation.name, t.turnNumber, 'same', []])
      );
      replays.push({ name: conversation.name, turns: result.turns });
    }
    const golden = goldenOf(replays);
    if (process.env['UPDATE_GOLDEN'] === '1') await writeFile(GOLDEN_PATH, `${JSON.stringify(golden, null, 2)}\n`);
    expect(golden).toEqual(JSON.parse(await readFile(GOLDEN_PATH, 'utf8')));
  });

  it('an unchanged config reports no difference, and --fail-on-diff exits 0', async () => {
    const run = await cli('--config', 'current', '--conversation', idOf('loan-confirmation'), '--fail-on-diff');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^what-if against config [0-9a-f]{16} \(current\)$/m);
    expect(run.stdout.trim().split('\n').at(-1)).toBe('1 conversation(s), 3 turn(s): 3 same');
  });

  it('a draft that quiets the audit trail still replays every row of it: the comparison reads them', async () => {
    const quiet = [
      ['LEVEL', 'NONE'],
      ['PERSIST_META', 'false'],
    ].map(([key, value], i) => ({
      config_id: 90_000 + i,
      config_type: 'AuditService',
      config_key: key,
      config_value: value,
    }));
    const dir = await draftTree('quiet-audit', (file, rows) =>
      file === 'ce_config.yaml' ? [...rows, ...quiet] : rows
    );
    const run = await inProcess('--config', dir, '--conversation', idOf('loan-confirmation'), '--fail-on-diff');
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n').at(-1)).toBe('1 conversation(s), 3 turn(s): 3 same');
    // The author hears what such a policy costs the trail's readers, the replay itself included.
    expect(run.stderr.split('\n')).toEqual([
      expect.stringMatching(/^warning: ce_config\[90000\]: .*leaves out USER_INPUT rows: the what-if replay skips/),
      expect.stringMatching(/^warning: ce_config\[90000\]: .*leaves out STEP_EXIT rows/),
      expect.stringMatching(/^warning: ce_config\[90001\]: AuditService.PERSIST_META=false/),
    ]);
  });

  it('finds the planted difference: a rule changed in the draft changes the recorded state', async () => {
    const dir = await draftTree('planted', (file, rows) =>
      file !== 'ce_rule.yaml' ? rows : rows.map((r) => (r['rule_id'] === 130 ? { ...r, action_value: 'REVIEW' } : r))
    );
    const loan = idOf('loan-confirmation');
    const gate = await cli('--config', dir, '--conversation', loan, '--fail-on-diff', '--json');
    expect(gate.code).toBe(1);
    const report = JSON.parse(gate.stdout);
    expect(report).toMatchObject({ differs: true, config: { source: dir } });
    const first = report.conversations[0].turns[0] as TurnDiff;
    expect(first.status).toBe('changed');
    expect(first.changes).toContainEqual({ field: 'state', recorded: 'CONFIRMATION', replayed: 'REVIEW' });
    expect(first.replayed?.error).toMatch(/no ce_response for intent LOAN_APPLICATION in state REVIEW/);
    const table = await inProcess('--config', dir, '--conversation', loan);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('state: "CONFIRMATION" → "REVIEW"');
  });

  it('a draft that asks the model something never recorded marks the turn "needs model", and skips the rest', async () => {
    const { rows: prompts } = await demo.tdb.pool.query(
      'select prompt_text from ce_llm_call_log where conversation_id = $1 and turn_number = 1',
      [idOf('loan-confirmation')]
    );
    const asked = prompts.map((p: Row) => String(p['prompt_text'])).join('\n');
    let edited = 0;
    const dir = await draftTree('new-prompt', (file, rows) =>
      file !== 'ce_prompt_template.yaml'
        ? rows
        : rows.map((r) => {
            const system = String(r['system_prompt'] ?? '').trim();
            if (system.length < 20 || !asked.includes(system)) return r;
            edited += 1;
            return { ...r, system_prompt: `${system}\nAnswer in one short sentence.` };
          })
    );
    expect(edited).toBeGreaterThan(0);
    const run = await inProcess('--config', dir, '--conversation', idOf('loan-confirmation'), '--json');
    expect(run.code).toBe(0);
    const turns = JSON.parse(run.stdout).conversations[0].turns as TurnDiff[];
    expect(turns.map((t) => t.status)).toEqual(['needs-model', 'skipped', 'skipped']);
    expect(turns[0]?.missing[0]).toMatchObject({
      kind: 'model',
      what: expect.stringMatching(/prompt sha256 [0-9a-f]{16}/),
    });
    expect((await inProcess('--config', dir, '--conversation', idOf('loan-confirmation'), '--fail-on-diff')).code).toBe(
      1
    );
  });

  it('--since replays every conversation with a turn since then', async () => {
    const run = await inProcess('--config', 'current', '--since', '1h', '--json', '--fail-on-diff');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.conversations.map((c: Row) => c['conversationId']).sort()).toEqual([...ids.values()].sort());
    expect(report.summary).toMatchObject({ changed: 0, 'needs-model': 0, skipped: 0 });
  });

  it('hostile input gets a clear error and exit code 2', async () => {
    const loan = idOf('loan-confirmation');
    const unknown = await cli('--config', 'current', '--conversation', '7b0c6a43-0d55-4c1b-9a0e-3f5f5d0b9c11');
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toMatch(/no recorded turns for conversation 7b0c6a43/);
    const cases: [string[], RegExp][] = [
      [['--config', 'current', '--conversation', 'not-a-uuid'], /must be a UUID/],
      [['--config', join(work, 'missing-dir'), '--conversation', loan], /not a directory, and not a config version/],
      [['--config', '0123456789abcdef', '--conversation', loan], /no stored config version 0123456789abcdef/],
      [['--config', work, '--conversation', loan], /no \*\.yaml files/],
      [['--conversation', loan], /--config <dir\|version> is required/],
      [['--config', 'current', '--conversation', loan, '--since', '1h'], /exactly one of/],
      [['--config', 'current', '--since', 'yesterday'], /not an ISO time or an age/],
      [['--config', 'current', '--since', '99999999999d'], /"99999999999d" is not an ISO time or an age/],
    ];
    for (const [args, message] of cases) {
      const run = await inProcess(...args);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toMatch(message);
    }
    const broken = join(work, 'broken');
    await mkdir(broken);
    await writeFile(join(broken, 'ce_rule.yaml'), '- rule_id: [unclosed', 'utf8');
    const invalid = await inProcess('--config', broken, '--conversation', loan);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/ce_rule\.yaml/);
  });

  it('GET /api/v1/whatif returns the per-turn diff behind the API token, with specific 4xx for bad input', async () => {
    const db = demo.tdb.db;
    const unused = () => Promise.reject(new Error('not used by this test'));
    const ports: ApiPorts = {
      turns: { sendMessage: unused, decideApproval: unused, retryTurn: unused },
      conversations: conversationQueries(db),
      config: { refresh: unused },
      readiness: { check: async () => ({ checks: {} }) },
      whatif: {
        conversation: (id, version, { maxTurns }) =>
          whatifConversation({ db }, { conversationId: id, config: { version }, maxTurns }),
      },
    };
    const app = buildApi({
      ports,
      apiToken: 'whatif-token',
      messageMaxBytes: 8192,
      logLevel: 'silent',
      whatifLimits: { concurrency: 2, maxTurns: 3 },
    });
    const get = (query: string, token = 'whatif-token') =>
      app.inject({ method: 'GET', url: `/api/v1/whatif?${query}`, headers: { authorization: `Bearer ${token}` } });
    try {
      const loan = idOf('loan-confirmation');
      const ok = await get(`conversation=${loan}&config=current`);
      expect(ok.statusCode).toBe(200);
      const body = ok.json();
      expect(body).toMatchObject({ conversationId: loan, differs: false, summary: { same: 3, changed: 0 } });
      expect(body.config.version).toMatch(/^[0-9a-f]{16}$/);
      expect(body.turns[2]).toMatchObject({ turnNumber: 3, status: 'same', recorded: { state: 'COMPLETED' } });
      expect(body.turns[2].replayed).toEqual(body.turns[2].recorded);
      expect((await get(`conversation=${loan}&config=current`, 'wrong')).statusCode).toBe(401);
      const missing = await get('conversation=7b0c6a43-0d55-4c1b-9a0e-3f5f5d0b9c11&config=current');
      expect([missing.statusCode, missing.json().error.code]).toEqual([404, 'CONVERSATION_NOT_FOUND']);
      const version = await get(`conversation=${loan}&config=0123456789abcdef`);
      expect([version.statusCode, version.json().error.code]).toEqual([404, 'CONFIG_VERSION_NOT_FOUND']);
      expect((await get(`conversation=${loan}&config=../../etc`)).statusCode).toBe(400);
      expect((await get('conversation=nope&config=current')).statusCode).toBe(400);
      const doc = (
        await app.inject({
          method: 'GET',
          url: '/docs/openapi.json',
          headers: { authorization: 'Bearer whatif-token' },
        })
      ).json();
      expect(doc.paths['/api/v1/whatif'].get.parameters.map((p: Row) => p['name'])).toEqual(['conversation', 'config']);
    } finally {
      await app.close();
    }
  });

  it('refuses, before reading anything, a conversation with more recorded turns than the caller allows', async () => {
    const loan = idOf('loan-confirmation');
    const request = { conversationId: loan, config: { version: 'current' } };
    expect((await whatifConversation({ db: demo.tdb.db }, { ...request, maxTurns: 3 })).turns).toHaveLength(3);
    await expect(whatifConversation({ db: demo.tdb.db }, { ...request, maxTurns: 2 })).rejects.toMatchObject({
      code: 'CONVERSATION_TOO_LONG',
      message: `conversation ${loan} has 3 recorded turns; a replay here takes at most 2 (convengine whatif replays any length)`,
    });
  });

  it("reads each replayed audit row once: a long conversation costs each turn its own rows, not every earlier turn's", async () => {
    const loan = idOf('loan-confirmation');
    const counted = jest.mocked(listAudits);
    counted.mockClear();
    const result = await whatifConversation(
      { db: demo.tdb.db },
      { conversationId: loan, config: { version: 'current' } }
    );
    expect(result.turns.map((t) => t.status)).toEqual(['same', 'same', 'same']);
    const reads = await Promise.all(
      counted.mock.calls.map(async ([, conversationId], i) => ({
        conversationId,
        auditIds: ((await counted.mock.results[i]?.value) as Awaited<ReturnType<typeof listAudits>>).map(
          (row) => row.auditId
        ),
      }))
    );
    const scratchReads = reads.filter((r) => r.conversationId !== loan);
    expect(scratchReads).toHaveLength(3);
    const read = scratchReads.flatMap((r) => r.auditIds);
    expect(read.length).toBeGreaterThan(3);
    expect(new Set(read).size).toBe(read.length);
  });

  it('a turn that fails under the draft leaves nothing behind: the next turn reads its own rows, its input included', async () => {
    const dir = await draftTree('failing-turn', (file, rows) =>
      file !== 'ce_rule.yaml' ? rows : rows.map((r) => (r['rule_id'] === 132 ? { ...r, action_value: 'NOWHERE' } : r))
    );
    const loan = idOf('loan-confirmation');
    const counted = jest.mocked(listAudits);
    counted.mockClear();
    const run = await inProcess('--config', dir, '--conversation', loan, '--json');
    const turns = JSON.parse(run.stdout).conversations[0].turns as TurnDiff[];
    expect(turns[1]?.replayed?.error).toEqual(expect.any(String));
    const scratchReads = await Promise.all(
      counted.mock.calls
        .map(([, conversationId], i) => ({ conversationId, rows: counted.mock.results[i]?.value }))
        .filter((r) => r.conversationId !== loan)
        .map(async (r) => (await r.rows) as Awaited<ReturnType<typeof listAudits>>)
    );
    expect(scratchReads.map((rows) => rows.filter((row) => row.stage === 'USER_INPUT').length)).toEqual([1, 1, 1]);
  });

  it('a replay whose connection is terminated mid-way runs again on a fresh one and reports the same', async () => {
    const request = { conversationId: idOf('loan-confirmation'), config: { version: 'current' } };
    const undisturbed = await whatifConversation({ db: demo.tdb.db }, request);
    // The scratch session is the only one here with a transaction that has written (backend_xid): end it from outside.
    const terminateScratch = async () =>
      (
        await demo.tdb.pool.query(`
          with scratch as materialized (
            select pid from pg_stat_activity
             where datname = current_database() and pid <> pg_backend_pid() and backend_xid is not null)
          select pid from scratch where pg_terminate_backend(pid)`)
      ).rowCount ?? 0;
    let terminated = 0;
    for (let round = 0; round < 5 && terminated === 0; round++) {
      let replaying = true;
      const replay = whatifConversation({ db: demo.tdb.db }, request).finally(() => (replaying = false));
      while (replaying && terminated === 0) {
        terminated += await terminateScratch();
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      expect(await replay).toEqual(undisturbed);
    }
    expect(terminated).toBe(1);
  });

  it('nothing of the recorded conversations (or anything else) changed', async () => {
    expect(await fingerprint()).toEqual(before);
  });
});
