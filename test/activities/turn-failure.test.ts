import type { ActivityDeps } from '../../activities/deps';
import { stepActivity } from '../../activities/step-runtime';
import { createTurnFailure } from '../../activities/turn-failure';
import { EngineError } from '../../core/errors';
import type { TurnFailureFacts } from '../../core/turn/activities';
import { listAudits } from '../../db/repositories/audit';
import { ensureConversation } from '../../db/repositories/conversation';
import { bookkeepingDeps } from '../support/activity-deps';
import { sessionFor, snapshotOf, turnInput } from '../support/config-rows';
import { createTestDatabase, type TestDatabase } from '../support/database';

describe('TurnFailure (activities/turn-failure.ts): the failure row only the workflow saw', () => {
  let tdb: TestDatabase;
  let deps: ActivityDeps;
  const snapshot = snapshotOf({}, 'v1');
  let conversation = 0;

  beforeAll(async () => {
    tdb = await createTestDatabase();
    deps = await bookkeepingDeps(tdb.db, { current: async () => snapshot, get: async () => snapshot });
  });
  afterAll(async () => tdb.drop());

  async function newTurn() {
    conversation += 1;
    const conversationId = `00000000-0000-4000-8000-${String(conversation).padStart(12, '0')}`;
    await ensureConversation(tdb.db, conversationId);
    const turn = turnInput('hello', { conversationId, turnNumber: 2 });
    const session = sessionFor('hello', { conversationId, turnNumber: 2, configVersion: 'v1', intent: 'LOAN' });
    return { turn, session, rows: async () => listAudits(tdb.db, conversationId) };
  }

  const timeout: TurnFailureFacts = {
    step: 'PersistConversation',
    type: 'TIMEOUT',
    message: 'activity StartToClose timeout',
    nonRetryable: false,
    attempt: null,
  };

  it('writes a known failure row, once, as the turn’s last row', async () => {
    const { turn, session, rows } = await newTurn();
    await createTurnFailure(deps)({ turn, session, failure: timeout });
    await createTurnFailure(deps)({ turn, session, failure: timeout });
    const written = await rows();
    expect(written.map((r) => r.stage)).toEqual(['ENGINE_KNOWN_FAILURE']);
    expect(written[0]?.payload).toMatchObject({
      step: 'PersistConversation',
      stepClass: 'PersistConversationStep',
      errorCode: 'TIMEOUT',
      recoverable: true,
      _meta: { intent: 'LOAN', turnNumber: 2 },
    });
    expect(written[0]?.payload).not.toHaveProperty('attempt');
  });

  it('an operator’s fail is known and not recoverable; an unexpected error’s class name is unknown', async () => {
    const held = await newTurn();
    const failure = { step: 'McpToolHold', type: 'TOOL_HOLD_FAILED', message: 'down', nonRetryable: true, attempt: 2 };
    await createTurnFailure(deps)({ turn: held.turn, session: held.session, failure });
    expect((await held.rows())[0]).toMatchObject({
      stage: 'ENGINE_KNOWN_FAILURE',
      payload: { errorCode: 'TOOL_HOLD_FAILED', recoverable: false, attempt: 2 },
    });
    const odd = await newTurn();
    const typeError = { ...timeout, type: 'TypeError', message: 'x is not a function' };
    await createTurnFailure(deps)({ turn: odd.turn, session: odd.session, failure: typeError });
    expect((await odd.rows()).map((r) => r.stage)).toEqual(['ENGINE_UNKNOWN_FAILURE']);
  });

  it('writes nothing when the failing step already wrote the turn’s failure row', async () => {
    const { turn, session, rows } = await newTurn();
    const failing = stepActivity(
      { name: 'Rules', run: async () => Promise.reject(new EngineError('CONFIG_INVALID', 'bad rule')) },
      deps
    );
    await failing({ turn, session, callKey: '12-Rules' }).catch(() => undefined);
    await createTurnFailure(deps)({ turn, session, failure: { ...timeout, type: 'CONFIG_INVALID' } });
    const failures = (await rows()).filter((r) => r.stage.startsWith('ENGINE_'));
    expect(failures).toHaveLength(1);
    expect(failures[0]?.payload).toMatchObject({ step: 'Rules', errorCode: 'CONFIG_INVALID', attempt: 1 });
  });
});
