import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { whatifConversation } from '../../activities/whatif/replay';
import { retiredDigest } from '../../db/repositories/retired';
import type { TurnDiff } from '../../core/whatif/diff';
import { DEMO_CONVERSATIONS } from '../../demo/conversations';
import { goldenOf, GOLDEN_PATH } from './whatif-golden';
import { recordedSeedConversations, type Row } from './whatif-recorded';
import { runConvengine } from '../support/run-cli';

// Records every seed demo conversation once (in process, recorded model), then replays them.
jest.setTimeout(300_000);

/** Issue #15 item 2: `convengine whatif` replays recorded conversations against a draft config. */
describe('convengine whatif (what-if replay)', () => {
  const seeds = recordedSeedConversations();
  const { idOf, cli, inProcess, draftTree } = seeds;

  it('replays every seed demo conversation unchanged against the current config, matching the golden file', async () => {
    const replays = [];
    for (const conversation of DEMO_CONVERSATIONS) {
      const result = await whatifConversation(
        { db: seeds.demo.tdb.db },
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
    const { rows: prompts } = await seeds.demo.tdb.pool.query(
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
    expect(report.conversations.map((c: Row) => c['conversationId']).sort()).toEqual([...seeds.ids.values()].sort());
    expect(report.summary).toMatchObject({ changed: 0, 'needs-model': 0, skipped: 0 });
  });

  it('--since reads a time without a zone as UTC, in any zone, and names the instant', async () => {
    // An hour ago in UTC, written without a zone: read in New York's zone it would be hours ahead, past every turn.
    const since = new Date(Date.now() - 3_600_000).toISOString().slice(0, 16);
    const run = await runConvengine(['whatif', '--config', 'current', '--since', since, '--json'], {
      DATABASE_URL: seeds.demo.tdb.url,
      TZ: 'America/New_York',
    });
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.since).toBe(`${since}:00.000Z`);
    expect(report.conversations).toHaveLength(seeds.ids.size);
  });

  it('hostile input gets a clear error and exit code 2', async () => {
    const loan = idOf('loan-confirmation');
    const unknown = await cli('--config', 'current', '--conversation', '7b0c6a43-0d55-4c1b-9a0e-3f5f5d0b9c11');
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toMatch(/no recorded turns for conversation 7b0c6a43/);
    // A pruned or erased id: its trail is gone for good, which the caller is told (the API answers 410).
    const pruned = '5d2f8c1e-6a3b-4e7d-9c0f-1a2b3c4d5e6f';
    await seeds.demo.tdb.db.$client.query(
      "INSERT INTO ce_retired_conversation (conversation_digest, reason) VALUES ($1, 'PRUNED')",
      [retiredDigest(pruned)]
    );
    const retired = await whatifConversation(
      { db: seeds.demo.tdb.db },
      { conversationId: pruned, config: { version: 'current' } }
    ).catch((err: unknown) => err);
    expect(retired).toMatchObject({ code: 'CONVERSATION_RETIRED', message: expect.stringMatching(/pruned or erased/) });
    const cases: [string[], RegExp][] = [
      [['--config', 'current', '--conversation', 'not-a-uuid'], /must be a UUID/],
      [
        ['--config', join(seeds.work, 'missing-dir'), '--conversation', loan],
        /not a directory, and not a config version/,
      ],
      [['--config', '0123456789abcdef', '--conversation', loan], /no stored config version 0123456789abcdef/],
      [['--config', seeds.work, '--conversation', loan], /no \*\.yaml files/],
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
    const broken = join(seeds.work, 'broken');
    await mkdir(broken);
    await writeFile(join(broken, 'ce_rule.yaml'), '- rule_id: [unclosed', 'utf8');
    const invalid = await inProcess('--config', broken, '--conversation', loan);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/ce_rule\.yaml/);
  });
});
