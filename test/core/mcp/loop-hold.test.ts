import { runMcpStep } from '../../../core/mcp';
import {
  outcomeUnknown,
  shouldHold,
  toolHeldAudit,
  toolHoldResolvedAudit,
  WORKER_SHUTDOWN_FAILURE,
} from '../../../core/mcp/hold';
import type { JsonObject } from '../../../core/json';
import { Fallback } from '../../../core/mcp/constants';
import type { McpToolCallInput } from '../../../core/turn/contracts';
import {
  ToolCallFailure,
  type HeldToolRequest,
  type HeldToolResolution,
  type TurnExecutor,
} from '../../../core/turn/executor';
import { answer, callTool, FakeMcpExecutor, loopPlan, stepInput, tool } from './fake-executor';

const DOWN = new ToolCallFailure('TOOL_HTTP_ERROR', 'status 503 after 2 attempt(s)', 3);
const TIMED_OUT = new ToolCallFailure('TimeoutFailure', 'activity Heartbeat timeout', 1);
const HELD_SUBMIT = tool('loan.application.submit', { sideEffect: 'IDEMPOTENT_WRITE', onRetriesExhausted: 'HOLD' });
const WRITE_ONCE = tool('loan.application.submit', { sideEffect: 'NON_IDEMPOTENT_WRITE' });

/** The fake executor plus an operator: each hold gets the next scripted decision. */
class HoldingExecutor extends FakeMcpExecutor implements Required<Pick<TurnExecutor, 'holdToolCall'>> {
  readonly holds: HeldToolRequest[] = [];
  readonly holdInputs: string[] = [];
  constructor(
    submit: typeof HELD_SUBMIT,
    outcomes: (Error | JsonObject)[],
    private readonly operator: HeldToolResolution[]
  ) {
    let call = 0;
    super(loopPlan([submit]), [callTool(submit.toolCode, { customerId: '1234' }), answer('Submitted LA-90311.')], {
      [submit.toolCode]: (input: McpToolCallInput) => {
        if (input.verifiedResult !== undefined) return input.verifiedResult;
        const outcome = outcomes[call++];
        if (outcome instanceof Error) throw outcome;
        return outcome ?? null;
      },
    });
  }

  async holdToolCall(request: HeldToolRequest, inputFor: (suffix: string) => { callKey: string }) {
    this.holds.push(request);
    this.holdInputs.push(inputFor('held').callKey);
    return this.operator.shift() ?? null;
  }
}

const resolution = (action: HeldToolResolution['action'], extra: Partial<HeldToolResolution> = {}) => ({
  action,
  decidedBy: 'sre',
  reason: null,
  ...extra,
});

function lifecycle(out: { session: { context: JsonObject } }): JsonObject {
  return (out.session.context['mcp'] as JsonObject)['lifecycle'] as JsonObject;
}

describe('MCP loop: a tool call out of retries held for an operator (#22)', () => {
  it('holds a HOLD tool, retries it under the same idempotency key, and answers with the real result', async () => {
    const exec = new HoldingExecutor(HELD_SUBMIT, [DOWN, { applicationId: 'LA-90311' }], [resolution('retry')]);
    const out = await runMcpStep(stepInput(), exec);
    expect(exec.holds).toEqual([
      expect.objectContaining({ toolCode: 'loan.application.submit', attempts: 3, outcomeUnknown: false, hold: 1 }),
    ]);
    expect(exec.toolInputs.map((i) => [i.callKey, i.call.idempotencyKey])).toEqual([
      ['19-McpTool-tool-1', 'turn-00000000-0000-0000-0000-000000000001-3/tool/1'],
      ['19-McpTool-tool-1-retry-1', 'turn-00000000-0000-0000-0000-000000000001-3/tool/1'],
    ]);
    expect(exec.holdInputs).toEqual(['19-McpTool-tool-1-hold-1-held']);
    expect(exec.decisions).toContainEqual(expect.objectContaining({ kind: 'TOOL_HOLD_RESOLVED', reason: 'retry' }));
    expect((out.session.context['mcp'] as JsonObject)['finalAnswer']).toBe('Submitted LA-90311.');
  });

  it('holds again when the retry fails again, and skip then ends the loop with the tool error', async () => {
    const exec = new HoldingExecutor(HELD_SUBMIT, [DOWN, DOWN], [resolution('retry'), resolution('skip')]);
    const out = await runMcpStep(stepInput(), exec);
    expect(exec.holds.map((h) => h.hold)).toEqual([1, 2]);
    expect(lifecycle(out)).toMatchObject({ status: 'TOOL_ERROR' });
    // The planner is not asked again: its scripted answer stays unused, and the turn says the tool failed.
    expect(exec.calls.filter((key) => key.includes('-plan-'))).toEqual(['19-McpTool-plan-1']);
    expect((out.session.context['mcp'] as JsonObject)['finalAnswer']).toBe(Fallback.toolError);
    expect(exec.decisions.map((d) => d.kind)).toEqual(['TOOL_HOLD_RESOLVED', 'TOOL_HOLD_RESOLVED', 'TOOL_FAILED']);
  });

  it('markDone records the verified result without running the tool again', async () => {
    const verified = { applicationId: 'LA-90311' };
    const exec = new HoldingExecutor(WRITE_ONCE, [TIMED_OUT], [resolution('markDone', { result: verified })]);
    const out = await runMcpStep(stepInput(), exec);
    expect(exec.holds[0]).toMatchObject({ outcomeUnknown: true, failureType: 'TimeoutFailure' });
    expect(exec.toolInputs.map((i) => i.callKey)).toEqual(['19-McpTool-tool-1', '19-McpTool-tool-1-done']);
    expect(exec.toolInputs[1]?.verifiedResult).toEqual(verified);
    expect((out.session.context['mcp'] as JsonObject)['finalAnswer']).toBe('Submitted LA-90311.');
  });

  it('an expired hold, or an executor that cannot hold, is ANSWER', async () => {
    const expired = new HoldingExecutor(HELD_SUBMIT, [DOWN], [resolution('expired', { decidedBy: null })]);
    expect(lifecycle(await runMcpStep(stepInput(), expired))).toMatchObject({ status: 'TOOL_ERROR' });
    const cannot = new HoldingExecutor(HELD_SUBMIT, [DOWN], []);
    expect(lifecycle(await runMcpStep(stepInput(), cannot))).toMatchObject({ status: 'TOOL_ERROR' });
  });

  it('an ANSWER tool is never held unless it is a write whose outcome is unknown', () => {
    const answerTool = tool('loan.application.submit', { sideEffect: 'IDEMPOTENT_WRITE' });
    expect(shouldHold(answerTool, DOWN)).toBe(false);
    expect(shouldHold(answerTool, TIMED_OUT)).toBe(false);
    expect(shouldHold(WRITE_ONCE, DOWN)).toBe(false);
    expect(shouldHold(WRITE_ONCE, TIMED_OUT)).toBe(true);
    expect(outcomeUnknown(WRITE_ONCE, new ToolCallFailure('TOOL_TIMEOUT', 'read timeout', 1))).toBe(true);
    expect(shouldHold(HELD_SUBMIT, DOWN)).toBe(true);
  });

  it('a write whose last attempt a stopping worker cut is of unknown outcome, unless the history predates it', () => {
    const cut = new ToolCallFailure(WORKER_SHUTDOWN_FAILURE, 'Worker is shutting down', 1);
    expect(shouldHold(WRITE_ONCE, cut)).toBe(true);
    expect(shouldHold(tool('loan.application.submit', { sideEffect: 'IDEMPOTENT_WRITE' }), cut)).toBe(false);
    const asked: string[] = [];
    const before = { holdsShutdownCutWrite: () => (asked.push('asked'), false) };
    expect(shouldHold(WRITE_ONCE, cut, before)).toBe(false);
    // Asked only for such a failure: a timed-out write needs no history's say.
    expect(shouldHold(WRITE_ONCE, TIMED_OUT, before)).toBe(true);
    expect(asked).toEqual(['asked']);
  });

  it('audits who decided what, with the error and whether the outcome was unknown', () => {
    const request: HeldToolRequest = {
      toolCode: 'loan.application.submit',
      callIndex: 2,
      idempotencyKey: 'k',
      sideEffect: 'NON_IDEMPOTENT_WRITE',
      attempts: 1,
      failureType: 'TimeoutFailure',
      error: 'activity Heartbeat timeout',
      outcomeUnknown: true,
      timeoutMs: 1000,
      hold: 1,
    };
    expect(toolHeldAudit(request, '2026-01-01T00:00:01.000Z')).toEqual({
      stage: 'TOOL_HELD',
      payload: expect.objectContaining({
        error: 'activity Heartbeat timeout',
        outcome_unknown: true,
        hold_timeout_ms: 1000,
      }),
    });
    const done = toolHoldResolvedAudit(request, resolution('markDone', { result: { id: 1 }, reason: 'checked' }));
    expect(done.payload).toMatchObject({
      action: 'markDone',
      decided_by: 'sre',
      reason: 'checked',
      verified_result: { id: 1 },
    });
    expect(toolHoldResolvedAudit(request, resolution('skip')).payload).not.toHaveProperty('verified_result');
  });
});
