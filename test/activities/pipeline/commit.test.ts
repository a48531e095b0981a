import { turnIdFor, type TurnInput } from '../../../core/turn/contracts';
import { runTurn } from '../../../core/turn/driver';
import { createInProcessExecutor } from '../../../activities/runner/in-process';
import { baseConfig } from '../../support/base-config';
import { PipelineHarness } from '../../support/pipeline-harness';

/** LoadOrCreateConversation and PersistConversation: one committed turn at a time, nothing half-written. */
describe('turn commit', () => {
  let h: PipelineHarness;
  beforeAll(async () => {
    h = await PipelineHarness.start();
    await h.configure(baseConfig());
  });
  afterAll(async () => h.stop());

  const turnInput = (conversationId: string, turnNumber: number, message: string): TurnInput => ({
    conversationId,
    turnNumber,
    turnId: turnIdFor(conversationId, turnNumber),
    message,
    inputParams: {},
    reset: false,
    requestContext: {},
    idempotencyKey: null,
    receivedAt: new Date().toISOString(),
  });

  it('persists everything the turn put in context, memory included (D14)', async () => {
    const result = await h.turn({ message: 'hi' });
    const row = await h.conversation(result.conversationId);
    expect(row?.context).toMatchObject({
      memory: { session_summary: expect.stringContaining('intent=GREETING, state=IDLE, user=hi') },
    });
    expect(row?.context).toEqual(result.context);
    expect(row?.inputParams['memory_session_summary']).toEqual(expect.stringContaining('response=Hi, how can I help'));
    expect(row).toMatchObject({
      lastUserText: 'hi',
      configVersion: result.configVersion,
      lastAssistantJson: { type: 'TEXT', value: 'Hi, how can I help you today?' },
    });
  });

  it('refuses a turn that is not the next one (STALE_TURN, not retryable)', async () => {
    const first = await h.turn({ message: 'hi' });
    const exec = createInProcessExecutor(h.activities());
    const error = await runTurn(turnInput(first.conversationId, 1, 'hi again'), exec).catch((e: unknown) => e);
    expect(error).toMatchObject({ type: 'STALE_TURN', nonRetryable: true });
    expect((await h.conversation(first.conversationId))?.turnCount).toBe(1);
  });

  it('a turn whose commit loses the race fails with STALE_TURN and changes nothing', async () => {
    const first = await h.turn({ message: 'hi' });
    const id = first.conversationId;
    const racer = createInProcessExecutor(h.activities());
    const loser = createInProcessExecutor(h.activities(), {
      // A greeting's one regular activity is its commit's step run (PersistConversation; then PipelineEnd).
      around: async (name, _attempt, call) => {
        if (name === 'RegularSteps') await runTurn(turnInput(id, 2, 'hello from the winner'), racer);
        return call();
      },
    });
    const error = await runTurn(turnInput(id, 2, 'hi from the loser'), loser).catch((e: unknown) => e);
    expect(error).toMatchObject({ type: 'STALE_TURN', nonRetryable: true });
    expect(await h.conversation(id)).toMatchObject({ turnCount: 2, lastUserText: 'hello from the winner' });
    expect(await h.historyCount(id)).toBe(2);
  });
});
