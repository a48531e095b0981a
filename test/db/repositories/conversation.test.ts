import { DrizzleQueryError } from 'drizzle-orm';
import {
  commitTurn,
  committedTurnCount,
  loadConversation,
  ensureConversation,
  findConversation,
  type TurnCommit,
} from '../../../db/repositories/conversation';
import { recentHistory } from '../../../db/repositories/history';
import { createTestDatabase, type TestDatabase } from '../../support/database';

describe('conversation repository (db/repositories/conversation.ts, history.ts)', () => {
  let tdb: TestDatabase;
  let next = 0;
  const newId = () => `00000000-0000-4000-8000-${String(++next).padStart(12, '0')}`;
  beforeAll(async () => {
    tdb = await createTestDatabase();
  });
  afterAll(async () => tdb.drop());

  const commit = (conversationId: string, turnNumber: number, extra: Partial<TurnCommit> = {}): TurnCommit => ({
    conversationId,
    turnNumber,
    status: 'RUNNING',
    intentCode: 'LOAN',
    stateCode: 'ASK',
    context: { customerId: '1234', nested: { list: [1, null] } },
    lastUserText: `message ${turnNumber}`,
    lastAssistantJson: { type: 'TEXT', value: `reply ${turnNumber}` },
    inputParams: { amount: 5 },
    configVersion: 'v1',
    historyUserInput: `message ${turnNumber}`,
    historyAssistantOutput: { type: 'TEXT', value: `reply ${turnNumber}` },
    ...extra,
  });
  const sqlNulls = async (id: string) =>
    (
      await tdb.db.$client.query(
        `SELECT c.last_assistant_json IS NULL AS conversation, h.assistant_output IS NULL AS history
           FROM ce_conversation c JOIN ce_conversation_history h USING (conversation_id) WHERE conversation_id = $1`,
        [id]
      )
    ).rows;

  it('creates a new conversation with the defaults, and reads an existing one unchanged', async () => {
    const id = newId();
    expect(await findConversation(tdb.db, id)).toBeNull();
    expect(await committedTurnCount(tdb.db, id)).toBe(0);
    const created = await loadConversation(tdb.db, id, 10);
    expect(created).toEqual({
      conversation: {
        conversationId: id,
        status: 'RUNNING',
        intentCode: 'UNKNOWN',
        stateCode: 'UNKNOWN',
        context: {},
        lastUserText: null,
        lastAssistantJson: null,
        inputParams: {},
        turnCount: 0,
        configVersion: null,
      },
      history: [],
    });
    expect(await commitTurn(tdb.db, commit(id, 1))).toBe('COMMITTED');
    expect(await commitTurn(tdb.db, commit(id, 2))).toBe('COMMITTED');
    const again = await loadConversation(tdb.db, id, 10);
    expect(again?.conversation).toEqual(await findConversation(tdb.db, id));
    expect(again?.conversation).toMatchObject({
      turnCount: 2,
      context: commit(id, 2).context,
      lastUserText: 'message 2',
    });
    // The recent history as recentHistory reads it: newest first, the limit applied.
    expect(again?.history).toEqual(await recentHistory(tdb.db, id, 10));
    expect(again?.history.map((h) => h.turnNumber)).toEqual([2, 1]);
    expect((await loadConversation(tdb.db, id, 1))?.history).toEqual(await recentHistory(tdb.db, id, 1));
    await ensureConversation(tdb.db, id);
    expect(await committedTurnCount(tdb.db, id)).toBe(2);
  });

  it('commits turn after turn, recognises a repeated commit, and refuses a stale one without writing', async () => {
    const id = newId();
    await ensureConversation(tdb.db, id);
    expect(await commitTurn(tdb.db, commit(id, 1))).toBe('COMMITTED');
    expect(await commitTurn(tdb.db, commit(id, 2, { stateCode: 'CONFIRM' }))).toBe('COMMITTED');
    expect(await commitTurn(tdb.db, commit(id, 2, { stateCode: 'CONFIRM' }))).toBe('ALREADY_COMMITTED');
    expect(await commitTurn(tdb.db, commit(id, 2, { historyUserInput: 'someone else' }))).toBe('STALE');
    expect(await commitTurn(tdb.db, commit(id, 4))).toBe('STALE');
    expect(await findConversation(tdb.db, id)).toMatchObject({ turnCount: 2, stateCode: 'CONFIRM' });
    expect(await recentHistory(tdb.db, id, 10)).toEqual([
      { turnNumber: 2, userInput: 'message 2', assistantOutput: { type: 'TEXT', value: 'reply 2' } },
      { turnNumber: 1, userInput: 'message 1', assistantOutput: { type: 'TEXT', value: 'reply 1' } },
    ]);
    expect(await recentHistory(tdb.db, id, 1)).toHaveLength(1);
  });

  it('refuses a rerun of a committed turn that would commit something else: the stored turn stands', async () => {
    const id = newId();
    await ensureConversation(tdb.db, id);
    const submitted = { type: 'TEXT', value: 'Loan application submitted: LA-90311' };
    const rejected = { type: 'TEXT', value: 'The submission was rejected.' };
    const turn2 = commit(id, 2, {
      stateCode: 'COMPLETED',
      lastAssistantJson: submitted,
      historyAssistantOutput: submitted,
    });
    expect(await commitTurn(tdb.db, commit(id, 1))).toBe('COMMITTED');
    expect(await commitTurn(tdb.db, turn2)).toBe('COMMITTED');
    // A reset whose new run rejected the approved call: same message, another reply and state.
    const rerun = { ...turn2, stateCode: 'REJECTED', lastAssistantJson: rejected, historyAssistantOutput: rejected };
    expect(await commitTurn(tdb.db, rerun)).toBe('STALE');
    // The same reply with another state or context is another commit too, while the row stands at the turn.
    expect(await commitTurn(tdb.db, { ...turn2, stateCode: 'REJECTED' })).toBe('STALE');
    expect(await commitTurn(tdb.db, { ...turn2, context: { customerId: '9' } })).toBe('STALE');
    expect(await commitTurn(tdb.db, { ...turn2, status: 'CLOSED' })).toBe('STALE');
    expect(await commitTurn(tdb.db, turn2)).toBe('ALREADY_COMMITTED');
    expect(await findConversation(tdb.db, id)).toMatchObject({ turnCount: 2, stateCode: 'COMPLETED' });
    // Once turn 3 has committed, turn 2's history row is what it committed: the reply still decides.
    expect(await commitTurn(tdb.db, commit(id, 3))).toBe('COMMITTED');
    expect(await commitTurn(tdb.db, turn2)).toBe('ALREADY_COMMITTED');
    expect(await commitTurn(tdb.db, rerun)).toBe('STALE');
    expect((await recentHistory(tdb.db, id, 10)).map((h) => h.assistantOutput)).toEqual([
      commit(id, 3).historyAssistantOutput,
      submitted,
      commit(id, 1).historyAssistantOutput,
    ]);
  });

  it('stores a null reply as SQL NULL, as drizzle did', async () => {
    const id = newId();
    await ensureConversation(tdb.db, id);
    await commitTurn(tdb.db, commit(id, 1, { lastAssistantJson: null, historyAssistantOutput: null }));
    expect(await sqlNulls(id)).toEqual([{ conversation: true, history: true }]);
    expect(await findConversation(tdb.db, id)).toMatchObject({ lastAssistantJson: null });
  });

  it('fails without a trace when the history row cannot be added, wrapping the error as drizzle does', async () => {
    const id = newId();
    await ensureConversation(tdb.db, id);
    // A history row for turn 1 left behind (not by a commit): the commit's insert conflicts.
    await tdb.db.$client.query(
      'INSERT INTO ce_conversation_history (conversation_id, turn_number, user_input) VALUES ($1, 1, $2)',
      [id, 'left over']
    );
    const error = await commitTurn(tdb.db, commit(id, 1)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DrizzleQueryError);
    expect((error as DrizzleQueryError).message).toMatch(/^Failed query: /);
    expect((error as DrizzleQueryError).cause).toMatchObject({ message: expect.stringMatching(/duplicate key/) });
    expect(await findConversation(tdb.db, id)).toMatchObject({ turnCount: 0, intentCode: 'UNKNOWN' });
  });
});
