import { randomUUID } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { ClaimCheckCodec } from '../../db/claims/codec';
import { createClaimStore } from '../../db/claims/store';
import { pruneConversations } from '../../db/repositories/retention';
import { runConvengine } from '../support/run-cli';
import { createTestDatabase, type TestDatabase } from '../support/database';

/** db/repositories/retention.ts and `convengine conversations prune` on a real PostgreSQL. */
describe('conversation retention', () => {
  let tdb: TestDatabase;
  const DAY = 24 * 60 * 60 * 1000;
  const ago = (days: number) => new Date(Date.now() - days * DAY);

  beforeAll(async () => {
    tdb = await createTestDatabase();
  });
  afterAll(async () => tdb?.drop());
  beforeEach(async () => {
    await tdb.pool.query('TRUNCATE ce_conversation, ce_llm_call_log, ce_turn_request, ce_retired_conversation CASCADE');
  });

  /** A conversation with two turns, all of it written `days` ago; `recent` adds one newer row of that kind. */
  async function conversation(days: number, recent?: 'audit' | 'request'): Promise<string> {
    const id = randomUUID();
    const at = ago(days);
    const q = (text: string, values: unknown[]) => tdb.pool.query(text, values);
    await q(
      `INSERT INTO ce_conversation (conversation_id, turn_count, created_at, updated_at) VALUES ($1, 2, $2, $2)`,
      [id, at]
    );
    for (const turn of [1, 2]) {
      await q(
        `INSERT INTO ce_audit (conversation_id, turn_number, stage, payload_json, idempotency_key, created_at)
         VALUES ($1, $2, 'USER_INPUT', '{}', $3, $4), ($1, $2, 'ASSISTANT_OUTPUT', '{}', $5, $4)`,
        [id, turn, `${id}/${turn}/0`, at, `${id}/${turn}/1`]
      );
      await q(`INSERT INTO ce_conversation_history (conversation_id, turn_number, created_at) VALUES ($1, $2, $3)`, [
        id,
        turn,
        at,
      ]);
      await q(
        `INSERT INTO ce_llm_call_log (conversation_id, turn_number, call_kind, provider, success, created_at)
         VALUES ($1, $2, 'DA', 'test', true, $3)`,
        [id, turn, at]
      );
      await q(
        `INSERT INTO ce_turn_request (conversation_id, idempotency_key, turn_number, workflow_id, created_at)
         VALUES ($1, $2, $3, $4, $5)`,
        [id, `key-${id}-${turn}`, turn, `turn-${id}-${turn}`, at]
      );
    }
    if (recent === 'audit') {
      // A turn in progress (or waiting for an approval) has written rows, but not committed the conversation.
      await q(
        `INSERT INTO ce_audit (conversation_id, turn_number, stage, payload_json, idempotency_key)
               VALUES ($1, 3, 'USER_INPUT', '{}', $2)`,
        [id, `${id}/3/0`]
      );
    }
    if (recent === 'request') {
      await q(
        `INSERT INTO ce_turn_request (conversation_id, idempotency_key, turn_number, workflow_id)
               VALUES ($1, $3, 3, $2)`,
        [id, `turn-${id}-3`, `key-${id}-3`]
      );
    }
    return id;
  }

  const orphanCall = (days: number, conversationId: string | null = null) =>
    tdb.pool.query(
      `INSERT INTO ce_llm_call_log (conversation_id, call_kind, provider, success, created_at) VALUES ($1, 'DA', 'test', true, $2)`,
      [conversationId, ago(days)]
    );
  const left = async () =>
    (
      await tdb.pool.query<{ conversation_id: string }>('SELECT conversation_id FROM ce_conversation ORDER BY 1')
    ).rows.map((r) => r.conversation_id);
  const count = async (table: string) =>
    Number((await tdb.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]?.n);

  it('deletes conversations idle since the cutoff with everything naming them, and keeps the rest', async () => {
    const idle = [await conversation(120), await conversation(100), await conversation(95)];
    const kept = [await conversation(10), await conversation(120, 'audit'), await conversation(120, 'request')];
    await orphanCall(120);
    await orphanCall(120, randomUUID());
    await orphanCall(1);
    const expected = {
      conversations: 3,
      auditRows: 12,
      historyRows: 6,
      llmCalls: 8,
      turnRequests: 6,
      claims: 0,
      skippedInFlight: 0,
      skippedBusy: 0,
    };

    expect(await pruneConversations(tdb.db, ago(90), { dryRun: true })).toEqual(expected);
    expect(await left()).toHaveLength(6);

    // Batches of one: three batches and the empty one that ends the loop.
    expect(await pruneConversations(tdb.db, ago(90), { batchSize: 1 })).toEqual(expected);
    expect(await left()).toEqual([...kept].sort());
    expect(await count('ce_audit')).toBe(4 * 3 + 1);
    expect(await count('ce_conversation_history')).toBe(2 * 3);
    expect(await count('ce_llm_call_log')).toBe(2 * 3 + 1);
    expect(await count('ce_turn_request')).toBe(2 * 3 + 1);
    expect(idle.some((id) => kept.includes(id))).toBe(false);

    expect(await pruneConversations(tdb.db, ago(90))).toEqual({
      conversations: 0,
      auditRows: 0,
      historyRows: 0,
      llmCalls: 0,
      turnRequests: 0,
      claims: 0,
      skippedInFlight: 0,
      skippedBusy: 0,
    });
  });

  it("deletes the payload claims a pruned conversation's turns stored, keeping a body another conversation stored too", async () => {
    await tdb.pool.query('TRUNCATE ce_payload_claim CASCADE');
    const [idle, live] = [await conversation(120), await conversation(10)];
    const codec = new ClaimCheckCodec(createClaimStore(tdb.db), 1024);
    const large = (text: string) => defaultPayloadConverter.toPayload({ text: text.repeat(400) });
    const context = (id: string, turn: number) =>
      ({ type: 'workflow', namespace: 'default', workflowId: `turn-${id}-${turn}` }) as const;
    await codec.encode([large('my card number is 4111 '), large('catalogue ')], context(idle, 1));
    await codec.encode([large('and my address is 1 Main St ')], context(idle, 2));
    await codec.encode([large('catalogue ')], context(live, 1));
    await codec.encode([large('stored outside any turn ')]);
    expect(await count('ce_payload_claim')).toBe(4);

    const dry = await pruneConversations(tdb.db, ago(90), { dryRun: true });
    expect([dry.conversations, dry.claims]).toEqual([1, 2]);
    const pruned = await pruneConversations(tdb.db, ago(90));
    expect([pruned.conversations, pruned.claims]).toEqual([1, 2]);
    const bodies = (await tdb.pool.query<{ body: Buffer }>('SELECT body FROM ce_payload_claim')).rows;
    expect(bodies.map((r) => r.body.toString('latin1')).join()).not.toMatch(/card number|Main St/);
    expect(bodies).toHaveLength(2);
    const links = await tdb.pool.query('SELECT conversation_id FROM ce_payload_claim_conversation');
    expect(links.rows).toEqual([{ conversation_id: live }]);
  });

  /** Rows of turn 3 (past the two committed turns), written as long ago as the rest of the conversation. */
  async function thirdTurn(id: string, days: number, stages: string[]): Promise<void> {
    for (const [index, stage] of stages.entries()) {
      await tdb.pool.query(
        `INSERT INTO ce_audit (conversation_id, turn_number, stage, payload_json, idempotency_key, created_at)
         VALUES ($1, 3, $2, '{}', $3, $4)`,
        [id, stage, `${id}/3/${index}`, ago(days - index / 1000)]
      );
    }
  }

  it('keeps a conversation whose turn is still in flight, however old its rows, and says how many it skipped', async () => {
    // A turn that started long ago and holds a tool call for an operator (or waits for an approval).
    const held = await conversation(120);
    await thirdTurn(held, 120, ['USER_INPUT', 'MCP_TOOL_CALL', 'TOOL_HELD']);
    // A turn that failed, was retried by an operator, and whose retry is still running.
    const retrying = await conversation(120);
    await thirdTurn(retrying, 120, ['USER_INPUT', 'ENGINE_KNOWN_FAILURE', 'OPERATOR_ACTION', 'USER_INPUT']);
    // Turns that failed for good (an operator's later action does not change that): nothing is in flight.
    const failed = await conversation(120);
    await thirdTurn(failed, 120, ['USER_INPUT', 'ENGINE_UNKNOWN_FAILURE']);
    const failedThenActed = await conversation(120);
    await thirdTurn(failedThenActed, 120, ['USER_INPUT', 'ENGINE_KNOWN_FAILURE', 'OPERATOR_ACTION']);

    const dry = await pruneConversations(tdb.db, ago(90), { dryRun: true });
    expect(dry).toMatchObject({ conversations: 2, skippedInFlight: 2 });
    expect(await pruneConversations(tdb.db, ago(90), { batchSize: 1 })).toMatchObject({
      conversations: 2,
      auditRows: 4 * 2 + 2 + 3,
      skippedInFlight: 2,
    });
    expect(await left()).toEqual([held, retrying].sort());
  });

  it('convengine conversations prune counts with --dry-run, then prunes', async () => {
    await conversation(200);
    await conversation(5);
    const env = { DATABASE_URL: tdb.url };
    const dry = await runConvengine(['conversations', 'prune', '--older-than', '90d', '--dry-run'], env);
    expect(dry).toMatchObject({ code: 0, stderr: '' });
    expect(dry.stdout).toMatch(/^would prune 1 conversation\(s\), 4 audit row\(s\), 2 history row\(s\), 2 LLM call/);
    expect(await left()).toHaveLength(2);
    const run = await runConvengine(['conversations', 'prune', '--older-than', '90d'], env);
    expect(run.stdout).toMatch(/^pruned 1 conversation\(s\), 4 audit row\(s\).*idle since before \d{4}-\S+\n$/);
    expect(await left()).toHaveLength(1);
    const running = await conversation(200);
    await thirdTurn(running, 200, ['USER_INPUT']);
    // Whether the turn still runs is Temporal's to say; one that does not answer keeps it, and the line says why.
    const noTemporal = { ...env, TEMPORAL_ADDRESS: '127.0.0.1:1' };
    const skipping = await runConvengine(['conversations', 'prune', '--older-than', '90d'], noTemporal);
    expect(skipping.stdout).toMatch(
      /^pruned 0 conversation\(s\).*; skipped 1 conversation\(s\) with a turn in flight \(not checked with Temporal: namespace default on 127\.0\.0\.1:1 \(plaintext\) did not answer: .*\)\n$/
    );
    expect(await left()).toContain(running);
  });

  it.each([
    [['conversations'], /the only sub-command is prune/],
    [['conversations', 'prune'], /needs --older-than/],
    [['conversations', 'prune', '--older-than', 'forever'], /not a duration/],
    [['conversations', 'prune', '--older-than', '12h'], /at least 1d/],
    [['conversations', 'prune', '--older-than', '90d', '--dry-run=yes'], /--dry-run takes no value/],
    [['conversations', 'prune', '--older-than', '90d', '--all'], /unknown option --all/],
    // The second value was the one read: a script's default followed by an override pruned by the override alone.
    [['conversations', 'prune', '--older-than', '400d', '--older-than', '90d'], /--older-than may be given only once/],
  ])('convengine %j refuses with a usage error and deletes nothing', async (args, message) => {
    await conversation(200);
    const run = await runConvengine(args, { DATABASE_URL: tdb.url });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(await left()).toHaveLength(1);
  });

  it('convengine conversations erase deletes one conversation, refuses a turn in flight, and says what Temporal keeps', async () => {
    const [erased, other] = [await conversation(1), await conversation(1)];
    const noTemporal = { DATABASE_URL: tdb.url, TEMPORAL_ADDRESS: '127.0.0.1:1' };
    const run = await runConvengine(['conversations', 'erase', '--conversation', erased.toUpperCase()], noTemporal);
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/^erased conversation \S+: 1 conversation\(s\), 4 audit row\(s\), 2 history row\(s\)/);
    expect(run.stdout).toContain(`REMAINS in Temporal: the turn workflow executions turn-${erased}-*`);
    expect(await left()).toEqual([other]);
    const rows = await tdb.pool.query('SELECT reason, erased_by, temporal_remaining FROM ce_retired_conversation');
    expect(rows.rows).toEqual([
      { reason: 'ERASED', erased_by: expect.stringMatching(/^cli/), temporal_remaining: expect.any(String) },
    ]);

    await thirdTurn(other, 1, ['USER_INPUT']);
    const refused = await runConvengine(['conversations', 'erase', '--conversation', other], noTemporal);
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining('TEMPORAL_UNREACHABLE')]);
    expect(await left()).toEqual([other]);
    // An id nothing names: not retired by a typo, unless asked to; without Temporal, whether it ran is not known.
    const unknown = ['conversations', 'erase', '--conversation', randomUUID()];
    const unchecked = await runConvengine(unknown, noTemporal);
    expect([unchecked.code, unchecked.stderr]).toEqual([1, expect.stringContaining('TEMPORAL_UNREACHABLE')]);
    const retiring = await runConvengine([...unknown, '--retire-unknown'], noTemporal);
    expect([retiring.code, retiring.stdout]).toEqual([3, expect.stringContaining(': 0 conversation(s)')]);
    expect((await runConvengine(unknown, noTemporal)).code).toBe(3);
    const hostile = await runConvengine(['conversations', 'erase', '--conversation', "x' OR 1=1"], noTemporal);
    expect([hostile.code, hostile.stderr]).toEqual([2, expect.stringContaining('is not a conversation id')]);
  });

  // `erase --conversation A --conversation B` erased B alone and exited 0: half an erasure request, said to be done.
  it('convengine conversations erase erases every --conversation, one line each, and fails when any is refused', async () => {
    const [a, b, inFlight, d] = [
      await conversation(1),
      await conversation(1),
      await conversation(1),
      await conversation(1),
    ];
    await thirdTurn(inFlight, 1, ['USER_INPUT']);
    const noTemporal = { DATABASE_URL: tdb.url, TEMPORAL_ADDRESS: '127.0.0.1:1' };
    const erase = (...ids: string[]) =>
      runConvengine(['conversations', 'erase', ...ids.flatMap((id) => ['--conversation', id])], noTemporal);

    const bad = await erase(a, 'not-a-uuid');
    expect([bad.code, bad.stderr.split('\n')[0]]).toEqual([
      2,
      '--conversation "not-a-uuid" is not a conversation id (a UUID)',
    ]);
    expect(await left()).toEqual([a, b, inFlight, d].sort());

    const both = await erase(a, b.toUpperCase(), a);
    expect(both.code).toBe(3); // Temporal does not answer: each line says what it keeps
    expect(
      both.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(':')[0])
    ).toEqual([`erased conversation ${a}`, `erased conversation ${b}`]);
    expect(await left()).toEqual([inFlight, d].sort());

    const partly = await erase(inFlight, d);
    expect(partly.code).toBe(1);
    expect(partly.stderr).toContain(`conversations erase refused ${inFlight}: TEMPORAL_UNREACHABLE`);
    expect(partly.stdout).toMatch(new RegExp(`^erased conversation ${d}: 1 conversation\\(s\\)`));
    expect(await left()).toEqual([inFlight]);
  });
});
