import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { rootFailure } from '../../api/turns/outcome';
import type { McpToolRow } from '../../core/config/tool-rows';
import { turnIdFor } from '../../core/turn/contracts';
import { STEP_RESULT_MALFORMED } from '../../core/turn/step-result-shape';
import { eventually } from '../devserver/harness';
import { extracted, loanConfig } from '../support/loan-config';
import { answer } from '../support/order-config';
import { replayHistoryOf } from '../support/workflow-bundle';
import { WorkflowHarness } from '../support/workflow-harness';

/**
 * An activity's result is whatever completed it: `temporal activity complete --result '{"hello":"world"}'` on a
 * retrying tool call hands the turn something that is no step result. The turn fails on it, typed and final, with its
 * failure row, instead of failing every workflow task while it holds the conversation (409 TURN_IN_PROGRESS).
 */
const MESSAGE = 'Apply loan for customer CUST-1001, amount 350000 for 36 months.';
const SUBMIT = '/loan/applications';
const TOOL_REQUEST = { tool_request: { tool_code: 'loan.application.submit', args: { customerId: 'CUST-1001' } } };
const RETRYING: Partial<McpToolRow> = { allowDirectRequest: true, maxAttempts: 1_000, initialIntervalMs: 200 };

let h: WorkflowHarness;
beforeAll(async () => {
  h = await WorkflowHarness.start();
});
afterAll(async () => h?.stop());

/** A retrying DirectToolCall of the turn, once in a later attempt, completed by hand with `{"hello":"world"}`. */
async function completeRetryingCallByHand(handle: WorkflowHandle): Promise<void> {
  await eventually(async () => {
    const pending = (await handle.describe()).raw.pendingActivities ?? [];
    const direct = pending.find((a) => a.activityType?.name === 'DirectToolCall' && Number(a.attempt) > 1);
    const activityId = direct?.activityId ?? '';
    await h.client.activity.complete({ workflowId: handle.workflowId, activityId }, { hello: 'world' });
  }, 30_000);
  h.mcp.toolServer.faults.clear(SUBMIT);
}

/** Failed, not Running with every workflow task failing on the result: STEP_RESULT_MALFORMED, final, at the step. */
async function expectMalformedFailure(handle: WorkflowHandle): Promise<void> {
  await eventually(async () => expect((await handle.describe()).status.name).toBe('FAILED'), 20_000);
  const failure = await handle.result().catch((err: unknown) => err);
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  expect(rootFailure(failure)).toMatchObject({ type: STEP_RESULT_MALFORMED, retryable: false });
  expect(rootFailure(failure).message).toContain('DirectToolCall answered with no step result');
}

function retryingSubmit(): Promise<void> {
  h.mcp.llm.setScript([extracted('CUST-1001'), answer('Submitted.')]);
  // Each attempt waits on the upstream, so the retrying activity is mostly in an attempt, where it can be completed.
  h.mcp.toolServer.faults.set(SUBMIT, { failTimes: 1_000_000, status: 503, delayMs: 1_500 });
  return h.mcp.configure(loanConfig({ submit: RETRYING }));
}

it('a retrying DirectToolCall completed by hand with a foreign result fails the turn STEP_RESULT_MALFORMED', async () => {
  await retryingSubmit();
  const conversationId = crypto.randomUUID();
  const request = { conversationId, message: MESSAGE, inputParams: TOOL_REQUEST, requestContext: {} };
  const sent = await h
    .gateway({ replyTimeoutMs: 1_000 })
    .sendMessage({ ...request, reset: false, idempotencyKey: null });
  expect(sent.kind).toBe('RUNNING');
  const handle = h.client.workflow.getHandle(sent.ref.workflowId);
  await completeRetryingCallByHand(handle);
  await expectMalformedFailure(handle);
  // Recorded like any other failure: the failure row names the step, so the stream gets its end event.
  const audits = await h.mcp.audits(conversationId, 1);
  const row = audits.find((a) => a.stage === 'ENGINE_KNOWN_FAILURE' || a.stage === 'ENGINE_UNKNOWN_FAILURE');
  expect(row?.payload).toMatchObject({ errorCode: STEP_RESULT_MALFORMED, step: 'DirectToolCall', recoverable: false });
  // The conversation is free again: the next message is a turn of its own, not 409 TURN_IN_PROGRESS.
  h.mcp.llm.setScript([extracted('CUST-1001'), answer('Hello again.')]);
  const next = await h.send({ conversationId, message: 'Apply loan for customer CUST-1001 please.' });
  expect(next.ref.workflowId).toBe(handle.workflowId);
  await expect(replayHistoryOf(handle)).resolves.toBeUndefined();
});

/** conversationTurn (v1) takes each step's whole session: the same check, of that shape, fails its turn the same way. */
it('a conversationTurn (v1) whose DirectToolCall is completed by hand with a foreign result fails STEP_RESULT_MALFORMED', async () => {
  await retryingSubmit();
  const conversationId = crypto.randomUUID();
  const turnId = turnIdFor(conversationId, 1);
  const input = {
    conversationId,
    turnNumber: 1,
    turnId,
    message: MESSAGE,
    inputParams: TOOL_REQUEST,
    reset: false,
    requestContext: {},
    idempotencyKey: null,
    receivedAt: new Date().toISOString(),
  };
  const handle = await h.client.workflow.start('conversationTurn', {
    taskQueue: h.taskQueue,
    workflowId: turnId,
    args: [input],
  });
  await completeRetryingCallByHand(handle);
  await expectMalformedFailure(handle);
  await expect(replayHistoryOf(handle)).resolves.toBeUndefined();
});
