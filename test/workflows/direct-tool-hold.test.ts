import { WorkflowFailedError } from '@temporalio/client';
import type { TurnReply } from '../../api/ports';
import type { McpToolRow } from '../../core/config/tool-rows';
import type { JsonObject } from '../../core/json';
import type { TurnActivities } from '../../core/turn/activities';
import { turnProgressQuery } from '../../workflows/messages';
import { readTurnSearchAttributes } from '../../workflows/search-attributes';
import { decisionLog } from '../support/history';
import { held, heldTurnSuite, runSre } from '../support/held-turn-suite';
import { extracted, loanConfig } from '../support/loan-config';
import { answer } from '../support/order-config';
import { replayHistoryOf } from '../support/workflow-bundle';
import { type WorkflowHarness } from '../support/workflow-harness';

/** #22 for a request's direct tool call (D21): the same hold, update, audits and CLI as the planner's calls. */
const MESSAGE = 'Apply loan for customer CUST-1001, amount 350000 for 36 months.';
const SUBMIT = '/loan/applications';
const TOOL_REQUEST = { tool_request: { tool_code: 'loan.application.submit', args: { customerId: 'CUST-1001' } } };
const DIRECT = { allowDirectRequest: true, maxAttempts: 2, initialIntervalMs: 100 } satisfies Partial<McpToolRow>;
const HOLD: Partial<McpToolRow> = { ...DIRECT, onRetriesExhausted: 'HOLD' };

function execution(result: unknown): JsonObject {
  const context = (result as { context: JsonObject }).context;
  return (context['mcp'] as JsonObject)['toolExecution'] as JsonObject;
}

/** A direct submit that applies the write, then outlives its start-to-close: the worker "died" after the request left. */
function lateSubmit(base: TurnActivities): TurnActivities {
  return {
    ...base,
    DirectToolCall: async (input) => {
      const reply = await base.DirectToolCall(input);
      const real = input.verifiedResult === undefined && input.failure === undefined;
      if (input.call.toolCode === 'loan.application.submit' && real) {
        await new Promise((resolve) => setTimeout(resolve, 4_000));
      }
      return reply;
    },
  };
}

describe("a request's direct tool call out of retries holds its turn too (issue #22, D21)", () => {
  const suite = heldTurnSuite({ activities: lateSubmit, script: () => [extracted('CUST-1001'), answer('Submitted.')] });
  let h: WorkflowHarness;
  let cli: string[];
  beforeAll(() => {
    h = suite.harness();
    cli = suite.serverArgs();
  });

  async function sendWithUpstreamDown(submit: Partial<McpToolRow>): Promise<TurnReply> {
    await h.mcp.configure(loanConfig({ submit }));
    h.mcp.toolServer.faults.set(SUBMIT, { failTimes: 1_000, status: 503 });
    const reply = await h.send({ message: MESSAGE, inputParams: TOOL_REQUEST });
    h.mcp.toolServer.faults.clear(SUBMIT);
    return reply;
  }

  it('upstream down → HELD → upstream back → sre retry → the real result, one write under one key', async () => {
    const parked = held(await sendWithUpstreamDown(HOLD));
    const id = parked.ref.workflowId;
    expect(parked.held).toMatchObject({ toolCode: 'loan.application.submit', callIndex: 0 });
    const handle = h.client.workflow.getHandle(id);
    expect(readTurnSearchAttributes((await handle.describe()).searchAttributes).turnOutcome).toBe('HELD');
    expect((await handle.query(turnProgressQuery)).held).toMatchObject({ attempts: 2, outcomeUnknown: false });
    expect(h.mcp.toolServer.counters.totalWriteEffects()).toBe(0);

    const retried = await runSre(['retry', '--workflow-id', id, '--by', 'sre-bob', ...cli]);
    expect(retried).toMatchObject({ code: 0, err: [] });
    expect(execution(await handle.result())).toMatchObject({ status: 'SUCCESS', toolExecuted: true });
    expect(h.mcp.toolServer.counters.totalWriteEffects()).toBe(1);
    const submits = h.mcp.toolServer.counters.log.filter((r) => r.route === SUBMIT);
    expect(new Set(submits.map((r) => r.headers['idempotency-key'])).size).toBe(1);
    const audits = await h.mcp.audits(parked.ref.conversationId, 1);
    expect(audits.find((a) => a.stage === 'TOOL_HELD')?.payload).toMatchObject({
      tool_code: 'loan.application.submit',
      call_index: 0,
      attempts: 2,
    });
    expect(audits.find((a) => a.stage === 'TOOL_HOLD_RESOLVED')?.payload).toMatchObject({
      action: 'retry',
      decided_by: 'sre-bob',
    });
    expect(decisionLog(await h.history(id))).toEqual(['TOOL_HOLD_RESOLVED: tool=loan.application.submit reason=retry']);
    await expect(replayHistoryOf(handle)).resolves.toBeUndefined();
  });

  it('skip records the failure as the tool result, as ANSWER would have', async () => {
    const parked = held(await sendWithUpstreamDown(HOLD));
    expect(await runSre(['skip', '--workflow-id', parked.ref.workflowId, ...cli])).toMatchObject({ code: 0 });
    const result = await h.client.workflow.getHandle(parked.ref.workflowId).result();
    expect(execution(result)).toMatchObject({ status: 'ERROR', toolExecuted: false });
    expect(h.mcp.toolServer.counters.totalWriteEffects()).toBe(0);
    const audits = await h.mcp.audits(parked.ref.conversationId, 1);
    expect(audits.find((a) => a.stage === 'TOOL_HOLD_RESOLVED')?.payload).toMatchObject({ action: 'skip' });
  });

  it('fail ends the turn with a failure', async () => {
    const parked = held(await sendWithUpstreamDown(HOLD));
    expect(await runSre(['fail', '--workflow-id', parked.ref.workflowId, ...cli])).toMatchObject({ code: 0 });
    const failure = await h.client.workflow
      .getHandle(parked.ref.workflowId)
      .result()
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect(JSON.stringify((failure as WorkflowFailedError).cause)).toContain('TOOL_HOLD_FAILED');
  });

  it('a direct tool under ANSWER (the default) still answers with the failure, never held', async () => {
    const reply = await sendWithUpstreamDown(DIRECT);
    expect(reply.kind).not.toBe('HELD');
    const result = await h.client.workflow.getHandle(reply.ref.workflowId).result();
    expect(execution(result)).toMatchObject({ status: 'ERROR', toolExecuted: false });
    const audits = await h.mcp.audits(reply.ref.conversationId, 1);
    expect(audits.map((a) => a.stage)).not.toContain('TOOL_HELD');
  });

  it('a NON_IDEMPOTENT_WRITE with unknown outcome is held even under ANSWER; mark-done writes nothing again', async () => {
    const submit = { allowDirectRequest: true, sideEffect: 'NON_IDEMPOTENT_WRITE', startToCloseTimeoutMs: 1_500 };
    await h.mcp.configure(loanConfig({ submit: { ...submit, onRetriesExhausted: 'ANSWER' } }));
    const parked = held(await h.send({ message: MESSAGE, inputParams: TOOL_REQUEST }));
    const id = parked.ref.workflowId;
    const progress = await h.client.workflow.getHandle(id).query(turnProgressQuery);
    expect(progress.held).toMatchObject({ outcomeUnknown: true, failureType: 'TimeoutFailure', attempts: 1 });
    expect(h.mcp.toolServer.counters.totalWriteEffects()).toBe(1);
    const requests = h.mcp.toolServer.counters.requests(SUBMIT);

    const verified = '{"applicationId":"LA-90311","status":"SUBMITTED"}';
    expect(await runSre(['mark-done', '--workflow-id', id, '--result', verified, ...cli])).toMatchObject({ code: 0 });
    const result = await h.client.workflow.getHandle(id).result();
    expect(execution(result)).toMatchObject({ status: 'SUCCESS', toolExecuted: true });
    expect(JSON.stringify(execution(result)['result'])).toContain('LA-90311');
    expect(h.mcp.toolServer.counters.requests(SUBMIT)).toBe(requests);
    expect(h.mcp.toolServer.counters.totalWriteEffects()).toBe(1);
    const audits = await h.mcp.audits(parked.ref.conversationId, 1);
    expect(audits.find((a) => a.stage === 'TOOL_HOLD_RESOLVED')?.payload).toMatchObject({
      action: 'markDone',
      outcome_unknown: true,
      verified_result: { applicationId: 'LA-90311', status: 'SUBMITTED' },
    });
  });
});
