import { WorkflowFailedError } from '@temporalio/client';
import { ApiError } from '../../api/errors';
import { temporalHeldTools } from '../../api/turns/held-tools';
import type { McpToolRow } from '../../core/config/tool-rows';
import { Fallback } from '../../core/mcp/constants';
import { DECISION_LIMITS } from '../../core/turn/operator-decision';
import type { JsonObject } from '../../core/json';
import type { TurnActivities } from '../../core/turn/activities';
import { resolveHeldToolUpdate, turnProgressQuery } from '../../workflows/messages';
import { readTurnSearchAttributes } from '../../workflows/search-attributes';
import { activityEntries, decisionLog } from '../support/history';
import { held, heldTurnSuite, runSre } from '../support/held-turn-suite';
import { extracted, loanConfig, plan } from '../support/loan-config';
import { answer } from '../support/order-config';
import { replayHistoryOf } from '../support/workflow-bundle';
import { type WorkflowHarness } from '../support/workflow-harness';

const MESSAGE = 'Apply loan for customer CUST-1001, amount 350000 for 36 months.';
const SUBMIT = '/loan/applications';
const HOLD: Partial<McpToolRow> = { onRetriesExhausted: 'HOLD', maxAttempts: 2, initialIntervalMs: 100 };

function script(finalAnswer = 'Submitted LA-90311.') {
  return [
    extracted('CUST-1001'),
    plan('loan.credit.rating.check', 'CUST-1001'),
    plan('loan.application.submit', 'CUST-1001'),
    answer(finalAnswer),
  ];
}

/** A submit that applies the write, then outlives its start-to-close: the worker "died" after the request left. */
function lateSubmit(base: TurnActivities): TurnActivities {
  return {
    ...base,
    McpToolCall: async (input) => {
      const reply = await base.McpToolCall(input);
      if (input.call.toolCode === 'loan.application.submit' && input.verifiedResult === undefined) {
        await new Promise((resolve) => setTimeout(resolve, 4_000));
      }
      return reply;
    },
  };
}

describe('a tool call out of retries holds its turn for an operator (issue #22)', () => {
  const suite = heldTurnSuite({ activities: lateSubmit, script });
  let h: WorkflowHarness;
  let cli: string[];
  beforeAll(() => {
    h = suite.harness();
    cli = suite.serverArgs();
  });

  async function holdSubmit(submit: Partial<McpToolRow> = HOLD) {
    await h.mcp.configure(loanConfig({ submit }));
    h.mcp.toolServer.faults.set(SUBMIT, { failTimes: 1_000, status: 503 });
    const reply = held(await h.send({ message: MESSAGE }));
    h.mcp.toolServer.faults.clear(SUBMIT);
    return reply;
  }

  it('upstream down → HELD (search attribute, details, 409) → upstream back → sre retry → real answer, one write', async () => {
    const parked = await holdSubmit();
    const id = parked.ref.workflowId;
    expect(parked.held).toMatchObject({ toolCode: 'loan.application.submit', callIndex: 2 });
    const handle = h.client.workflow.getHandle(id);
    const described = await handle.describe();
    // Held turns are found by where they stand (`Intent = '…' AND TurnOutcome = 'HELD'`), not only once they end.
    expect(readTurnSearchAttributes(described.searchAttributes)).toMatchObject({
      turnOutcome: 'HELD',
      intent: parked.held.intent,
      state: parked.held.state,
      configVersion: expect.stringMatching(/\S/),
    });
    const metadata = (await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string };
    expect(metadata.currentDetails).toContain('loan.application.submit');
    expect(metadata.currentDetails).toContain('2 attempt(s)');
    expect((await handle.query(turnProgressQuery)).held).toMatchObject({ attempts: 2, outcomeUnknown: false });

    const next = await h
      .send({ conversationId: parked.ref.conversationId, message: 'hello?' })
      .catch((e: unknown) => e);
    expect(next).toBeInstanceOf(ApiError);
    expect(next).toMatchObject({ statusCode: 409, code: 'TURN_IN_PROGRESS', details: { workflowId: id } });

    const listed = await runSre(['list', '--json', ...cli]);
    expect(listed.out.map((l) => (JSON.parse(l) as { workflowId: string }).workflowId)).toContain(id);
    const retried = await runSre(['retry', '--workflow-id', id, '--by', 'sre-alice', ...cli]);
    expect(retried).toMatchObject({ code: 0, err: [] });

    const result = (await handle.result()) as { payload: { value: string } };
    expect(result.payload.value).toBe('Submitted LA-90311.');
    expect(h.mcp.toolServer.counters.totalWriteEffects()).toBe(1);
    const keys = new Set(
      h.mcp.toolServer.counters.log.filter((r) => r.route === SUBMIT).map((r) => r.headers['idempotency-key'])
    );
    expect(keys.size).toBe(1);
    const audits = await h.mcp.audits(parked.ref.conversationId, 1);
    expect(audits.find((a) => a.stage === 'TOOL_HELD')?.payload).toMatchObject({
      tool_code: 'loan.application.submit',
      attempts: 2,
      outcome_unknown: false,
    });
    expect(audits.find((a) => a.stage === 'TOOL_HOLD_RESOLVED')?.payload).toMatchObject({
      action: 'retry',
      decided_by: 'sre-alice',
    });
    expect(decisionLog(await h.history(id))).toEqual(['TOOL_HOLD_RESOLVED: tool=loan.application.submit reason=retry']);
    // The held path replays: the hold, the update and the retry are all in history.
    await expect(replayHistoryOf(handle)).resolves.toBeUndefined();
  });

  it("the update Temporal's own CLI sends (resolveHeldTool) works the same, and refuses bad decisions", async () => {
    const parked = await holdSubmit();
    const handle = h.client.workflow.getHandle(parked.ref.workflowId);
    const bad = await handle
      .executeUpdate(resolveHeldToolUpdate, { args: [{ action: 'markDone' }] })
      .catch((e: unknown) => e);
    expect(String((bad as Error).cause ?? bad)).toContain('markDone needs the verified result');
    // Around the API too (temporal workflow update): text PostgreSQL cannot store never reaches the turn.
    const unsafe = handle
      .executeUpdate(resolveHeldToolUpdate, { args: [{ action: 'markDone', result: { id: 'LA\u0000' } }] })
      .catch((e: unknown) => e);
    expect(String(((await unsafe) as Error).cause ?? '')).toContain(
      'INVALID_TEXT: result.id contains a NUL character.'
    );
    // The limits hold for every way in, `temporal workflow update` too: a 1 MB "verified result" or a result
    // with retry never reaches history nor the TOOL_HOLD_RESOLVED row.
    const refusedWith = async (decision: object) => {
      const err = await handle.executeUpdate(resolveHeldToolUpdate, { args: [decision as never] }).catch((e) => e);
      return String((err as Error).cause ?? err);
    };
    const huge = { action: 'markDone', result: { blob: 'x'.repeat(1_000_000) } };
    expect(await refusedWith(huge)).toContain(
      `RESULT_TOO_LARGE: result must be at most ${DECISION_LIMITS.resultBytes}`
    );
    expect(await refusedWith({ action: 'retry', result: {} })).toContain('RESULT_NOT_ALLOWED');
    const long = { action: 'skip', reason: 'x'.repeat(DECISION_LIMITS.reasonChars + 1) };
    expect(await refusedWith(long)).toContain('REASON_TOO_LONG');
    const stale = temporalHeldTools(h.client, { taskQueue: h.taskQueue }).resolve(parked.ref.workflowId, {
      action: 'retry',
      callIndex: 9,
    });
    await expect(stale).rejects.toMatchObject({ statusCode: 409, code: 'STALE_DECISION' });
    await handle.executeUpdate(resolveHeldToolUpdate, { args: [{ action: 'retry', decidedBy: 'temporal-cli' }] });
    const result = (await handle.result()) as { payload: { value: string } };
    expect(result.payload.value).toBe('Submitted LA-90311.');
    expect(h.mcp.toolServer.counters.totalWriteEffects()).toBe(1);
    // The turn has ended: it exists and holds nothing (409), unlike a turn that never was (404).
    const again = temporalHeldTools(h.client, { taskQueue: h.taskQueue }).resolve(parked.ref.workflowId, {
      action: 'retry',
    });
    await expect(again).rejects.toMatchObject({ statusCode: 409, code: 'NOT_HELD' });
    const none = temporalHeldTools(h.client, { taskQueue: h.taskQueue }).resolve(`turn-${crypto.randomUUID()}-1`, {
      action: 'retry',
    });
    await expect(none).rejects.toMatchObject({ statusCode: 404, code: 'TURN_NOT_FOUND' });
  });

  it('skip ends the planner loop with the tool error, as ANSWER would have: the planner is not asked again', async () => {
    const parked = await holdSubmit();
    expect(await runSre(['skip', '--workflow-id', parked.ref.workflowId, ...cli])).toMatchObject({ code: 0 });
    const handle = h.client.workflow.getHandle(parked.ref.workflowId);
    const result = (await handle.result()) as { context: JsonObject; payload: { value: string } };
    const mcp = result.context['mcp'] as JsonObject;
    expect(mcp['lifecycle']).toMatchObject({ status: 'TOOL_ERROR' });
    expect(h.mcp.toolServer.counters.totalWriteEffects()).toBe(0);
    // Two plans (rating check, submit) and no third: the scripted answer after the submit is never asked for.
    const plans = activityEntries(await h.history(parked.ref.workflowId)).filter((a) => a.type === 'McpPlan');
    expect(plans).toHaveLength(2);
    expect(result.payload.value).toBe(Fallback.toolError);
  });

  it('fail ends the turn with a failure reply, audited', async () => {
    const parked = await holdSubmit();
    const args = ['fail', '--workflow-id', parked.ref.workflowId, '--reason', 'core banking is down for the day'];
    expect(await runSre([...args, ...cli])).toMatchObject({ code: 0 });
    const failure = await h.client.workflow
      .getHandle(parked.ref.workflowId)
      .result()
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect(JSON.stringify((failure as WorkflowFailedError).cause)).toContain('TOOL_HOLD_FAILED');
    const audits = await h.mcp.audits(parked.ref.conversationId, 1);
    expect(audits.find((a) => a.stage === 'TOOL_HOLD_RESOLVED')?.payload).toMatchObject({
      action: 'fail',
      reason: 'core banking is down for the day',
    });
    // No step failed: the workflow writes the turn's failure row, its last, as a regular activity of its own.
    expect(audits.at(-1)).toMatchObject({
      stage: 'ENGINE_KNOWN_FAILURE',
      payload: { step: 'McpToolHold', errorCode: 'TOOL_HOLD_FAILED', recoverable: false },
    });
    const recorded = activityEntries(await h.history(parked.ref.workflowId)).filter((a) => a.type === 'TurnFailure');
    expect(recorded).toMatchObject([{ local: false, summary: 'TurnFailure: TOOL_HOLD_FAILED at McpToolHold' }]);
    // A failed turn is found by where it stood, as an answered one is.
    const described = await h.client.workflow.getHandle(parked.ref.workflowId).describe();
    expect(readTurnSearchAttributes(described.searchAttributes)).toMatchObject({
      turnOutcome: 'FAILED',
      intent: parked.held.intent,
      state: parked.held.state,
      configVersion: expect.stringMatching(/\S/),
    });
    expect(h.mcp.toolServer.counters.totalWriteEffects()).toBe(0);
  });

  it('the hold timeout falls back to ANSWER', async () => {
    const parked = await holdSubmit({ ...HOLD, holdTimeoutMs: 1_500 });
    const result = (await h.client.workflow.getHandle(parked.ref.workflowId).result()) as { context: JsonObject };
    expect((result.context['mcp'] as JsonObject)['lifecycle']).toMatchObject({ status: 'TOOL_ERROR' });
    const audits = await h.mcp.audits(parked.ref.conversationId, 1);
    expect(audits.find((a) => a.stage === 'TOOL_HOLD_RESOLVED')?.payload).toMatchObject({ action: 'expired' });
  });

  it('a NON_IDEMPOTENT_WRITE whose outcome is unknown is held even under ANSWER; mark-done writes nothing again', async () => {
    await h.mcp.configure(
      loanConfig({
        submit: { sideEffect: 'NON_IDEMPOTENT_WRITE', onRetriesExhausted: 'ANSWER', startToCloseTimeoutMs: 1_500 },
      })
    );
    const parked = held(await h.send({ message: MESSAGE }));
    const id = parked.ref.workflowId;
    const progress = await h.client.workflow.getHandle(id).query(turnProgressQuery);
    expect(progress.held).toMatchObject({ outcomeUnknown: true, failureType: 'TimeoutFailure', attempts: 1 });
    expect(h.mcp.toolServer.counters.totalWriteEffects()).toBe(1);
    const requests = h.mcp.toolServer.counters.requests(SUBMIT);

    const done = ['mark-done', '--workflow-id', id, '--result', '{"applicationId":"LA-90311","status":"SUBMITTED"}'];
    expect(await runSre([...done, ...cli])).toMatchObject({ code: 0 });
    const result = (await h.client.workflow.getHandle(id).result()) as { payload: { value: string } };
    expect(result.payload.value).toBe('Submitted LA-90311.');
    expect(h.mcp.toolServer.counters.requests(SUBMIT)).toBe(requests);
    expect(h.mcp.toolServer.counters.totalWriteEffects()).toBe(1);
    const audits = await h.mcp.audits(parked.ref.conversationId, 1);
    expect(audits.find((a) => a.stage === 'TOOL_HOLD_RESOLVED')?.payload).toMatchObject({
      action: 'markDone',
      outcome_unknown: true,
      verified_result: { applicationId: 'LA-90311', status: 'SUBMITTED' },
    });
  });

  it('the CLI refuses incomplete commands before it connects', async () => {
    expect((await runSre(['retry'])).code).toBe(2);
    expect((await runSre(['mark-done', '--workflow-id', 'turn-x-1'])).err.join()).toContain('--result');
    expect((await runSre(['mark-done', '--workflow-id', 'turn-x-1', '--result', '{nope'])).err.join()).toContain(
      'JSON'
    );
    expect((await runSre(['retry', '--workflow-id', 'turn-x-1', '--call', '-1'])).code).toBe(2);
    expect((await runSre(['retry', '--workflow-id', 'turn-x-1', '--call', '1.5'])).code).toBe(2);
    expect((await runSre(['explode'])).code).toBe(2);
    // The turn's limits, said before connecting, with the option at fault.
    const retryWithResult = await runSre(['retry', '--workflow-id', 'turn-x-1', '--result', '{}']);
    expect(retryWithResult).toMatchObject({ code: 2 });
    expect(retryWithResult.err[0]).toBe('--result: Only markDone takes a result, not retry.');
    const big = JSON.stringify({ blob: 'x'.repeat(DECISION_LIMITS.resultBytes) });
    const tooBig = await runSre(['mark-done', '--workflow-id', 'turn-x-1', '--result', big]);
    expect(tooBig.err[0]).toContain(`--result: result must be at most ${DECISION_LIMITS.resultBytes} bytes of JSON`);
    const none = await runSre(['mark-done', '--workflow-id', 'turn-x-1', '--result', 'null']);
    expect(none).toMatchObject({ code: 2 });
    expect(none.err[0]).toContain('--result: markDone needs the verified result');
    expect((await runSre(['mark-done', '--workflow-id', 'turn-x-1', '--result', '42'])).err[0]).toContain(
      '--result: result must be a JSON object or list'
    );
    const reason = 'x'.repeat(DECISION_LIMITS.reasonChars + 1);
    expect((await runSre(['skip', '--workflow-id', 'turn-x-1', '--reason', reason])).err[0]).toContain(
      `--reason: reason must be at most ${DECISION_LIMITS.reasonChars} characters`
    );
    expect((await runSre(['skip', '--workflow-id', 'turn-x-1', '--call', '99999999999'])).err[0]).toContain(
      '--call: callIndex must be a whole number'
    );
  });
});
