import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { baseConfig } from '../support/base-config';
import { PipelineHarness } from '../support/pipeline-harness';

/**
 * Activity retries must not duplicate anything: every activity of a turn is run twice (the first
 * result is "lost" after its writes, as when a worker dies before reporting), and the audit rows,
 * history and conversation row must be exactly those of a normal run.
 */
describe('activity retries are idempotent', () => {
  let h: PipelineHarness;
  beforeAll(async () => {
    h = await PipelineHarness.start();
    await h.configure(baseConfig());
  });
  afterAll(async () => h.stop());

  const lostFirstResult = async <T>(_name: string, attempt: number, call: () => Promise<T>): Promise<T> => {
    const out = await call();
    if (attempt === 1) throw ApplicationFailure.retryable('result lost after the writes', 'WORKER_LOST');
    return out;
  };

  const shape = async (conversationId: string) =>
    (await h.audits(conversationId)).map((a) => ({
      stage: a.stage,
      key: a.idempotencyKey.replace(conversationId, '<id>'),
    }));

  it('a two-turn conversation run with every activity retried leaves the same rows as a clean run', async () => {
    h.llm.setScript([{ kind: 'INTENT', reply: { intent: null, confidence: 0 }, persistent: true }]);
    const clean = await h.turn({ message: 'hi' });
    await h.turn({ conversationId: clean.conversationId, message: 'qwerty' });

    const retried = await h.turn({ message: 'hi' }, { around: lostFirstResult });
    const second = await h.turn(
      { conversationId: retried.conversationId, message: 'qwerty' },
      { around: lostFirstResult }
    );
    expect(second).toMatchObject({
      intent: 'GREETING',
      turnNumber: 2,
      payload: { value: 'Hi, how can I help you today?' },
    });

    const cleanRows = await shape(clean.conversationId);
    const retriedRows = await shape(retried.conversationId);
    expect(retriedRows).toEqual(cleanRows);
    expect(new Set(retriedRows.map((r) => r.key)).size).toBe(retriedRows.length);
    expect(await h.historyCount(retried.conversationId)).toBe(2);
    expect(await h.conversation(retried.conversationId)).toMatchObject({ turnCount: 2, intentCode: 'GREETING' });
    expect(h.llm.requestsOf('INTENT')).toHaveLength(3);
  });

  it('a step whose LLM call fails for good on attempt 1 is retried: one STEP_ERROR, no duplicated audits', async () => {
    h.llm.setScript([
      { kind: 'INTENT', error: { status: 529 }, times: 3 },
      { kind: 'INTENT', reply: { intent: null, confidence: 0 } },
    ]);
    const result = await h.turn({ message: 'qwerty' });
    expect(result.turnNumber).toBe(1);
    const audits = await h.audits(result.conversationId);
    const errors = audits.filter((a) => a.stage === 'STEP_ERROR');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.payload).toMatchObject({
      step: 'IntentResolution',
      errorType: 'LLM_CALL_FAILED',
      _errorMeta: { retryable: true, attempt: 1 },
    });
    const count = (stage: string) => audits.filter((a) => a.stage === stage).length;
    expect(count('INTENT_AGENT_LLM_INPUT')).toBe(1);
    expect(count('INTENT_AGENT_REJECTED')).toBe(1);
    expect(audits.filter((a) => a.stage === 'STEP_ENTER' && a.payload['step'] === 'IntentResolution')).toHaveLength(1);
    expect(h.llm.unconsumed()).toEqual([]);
  });

  it('a step that fails on every attempt ends the turn with one ENGINE_KNOWN_FAILURE row, after its last STEP_ERROR', async () => {
    h.llm.setScript([{ kind: 'INTENT', error: { status: 529 }, persistent: true }]);
    const conversationId = randomUUID();
    const err = await h.turn({ conversationId, message: 'qwerty' }, { maxAttempts: 2 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ type: 'LLM_CALL_FAILED' });
    const audits = await h.audits(conversationId);
    expect(audits.filter((a) => a.stage === 'STEP_ERROR').map((a) => a.payload['_errorMeta'])).toEqual([
      { retryable: true, attempt: 1 },
      { retryable: true, attempt: 2 },
    ]);
    expect(audits.filter((a) => a.stage.startsWith('ENGINE_'))).toHaveLength(1);
    expect(audits.at(-1)).toMatchObject({
      stage: 'ENGINE_KNOWN_FAILURE',
      turnNumber: 1,
      payload: { step: 'IntentResolution', errorCode: 'LLM_CALL_FAILED', recoverable: true, attempt: 2 },
    });
  });
});
