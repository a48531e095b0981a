import { runMcpStep } from '../../../core/mcp';
import type { JsonObject } from '../../../core/json';
import { ToolCallFailure } from '../../../core/turn/executor';
import { answer, callTool, FakeMcpExecutor, loopPlan, stepInput, tool } from './fake-executor';

const STATUS = { status: 200, attempt: 1, latencyMs: 4, mapped: { orderId: 'ORD-7017', status: 'SUBMITTED' } };
const TRACE = { status: 200, attempt: 1, latencyMs: 3, mapped: { orderId: 'ORD-7017', callbackAt: null } };
const ORDER_TOOLS = [tool('mock.order.status'), tool('mock.order.async.trace')];

function mcpOf(session: { context: JsonObject }): JsonObject {
  return session.context['mcp'] as JsonObject;
}

describe('MCP planner loop driver', () => {
  it('runs plan → tool → plan → tool → plan(ANSWER) and finalizes (scenario 32)', async () => {
    const exec = new FakeMcpExecutor(
      loopPlan(ORDER_TOOLS),
      [
        callTool('mock.order.status', { orderId: 'ORD-7017' }),
        callTool('mock.order.async.trace', { orderId: 'ORD-7017' }),
        answer('Order submitted, callback pending.'),
      ],
      { 'mock.order.status': STATUS, 'mock.order.async.trace': TRACE }
    );
    const out = await runMcpStep(stepInput(), exec);
    expect(exec.calls).toEqual([
      '19-McpTool-prepare',
      '19-McpTool-plan-1',
      '19-McpTool-tool-1',
      '19-McpTool-plan-2',
      '19-McpTool-tool-2',
      '19-McpTool-plan-3',
      '19-McpTool-finalize',
    ]);
    expect(exec.toolInputs.map((i) => i.call.idempotencyKey)).toEqual([
      'turn-00000000-0000-0000-0000-000000000001-3/tool/1',
      'turn-00000000-0000-0000-0000-000000000001-3/tool/2',
    ]);
    const mcp = mcpOf(out.session);
    expect(mcp['observations']).toEqual([
      { toolCode: 'mock.order.status', args: { orderId: 'ORD-7017' }, status: 'SUCCESS', result: STATUS },
      { toolCode: 'mock.order.async.trace', args: { orderId: 'ORD-7017' }, status: 'SUCCESS', result: TRACE },
    ]);
    expect(mcp).toMatchObject({
      finalAnswer: 'Order submitted, callback pending.',
      finalAnswerDetermined: true,
      toolExecutionAbrupted: false,
      toolExecutionAbruptionLimit: 5,
      lifecycle: {
        phase: 'POST_AGENT_MCP',
        status: 'ANSWER',
        outcome: 'ANSWERED',
        finished: true,
        blocked: false,
        error: false,
        lastAction: 'ANSWER',
      },
    });
    expect(out.session.inputParams).toMatchObject({
      mcp_status: 'ANSWER',
      mcp_final_answer: 'Order submitted, callback pending.',
    });
    expect(out.audits.map((a) => a.stage)).toEqual([
      'MCP_CONTEXT_CLEARED',
      'MCP_TOOL_RESULT',
      'MCP_TOOL_RESULT',
      'MCP_FINAL_ANSWER',
    ]);
    expect(exec.decisions).toEqual([]);
  });

  it('stops at the loop limit, records it and marks the turn abrupted (scenario 35)', async () => {
    const exec = new FakeMcpExecutor(
      loopPlan(ORDER_TOOLS, { maxLoops: 2 }),
      [callTool('mock.order.status', { orderId: 'A' }), callTool('mock.order.status', { orderId: 'B' })],
      { 'mock.order.status': STATUS }
    );
    const out = await runMcpStep(stepInput(), exec);
    expect(exec.calls.filter((c) => c.includes('plan'))).toHaveLength(2);
    expect(exec.decisions).toEqual([{ kind: 'LOOP_LIMIT', toolCode: null, reason: 'MCP_TOOL_MAX_LOOPS', limit: 2 }]);
    const mcp = mcpOf(out.session);
    expect(mcp).toMatchObject({
      toolExecutionAbrupted: true,
      finalAnswerDetermined: false,
      toolExecutionAbruptionLimit: 2,
    });
    expect(mcp['finalAnswer']).toBeUndefined();
    expect(mcp['lifecycle']).toMatchObject({ status: 'TOOL_RESULT', outcome: 'IN_PROGRESS', finished: false });
    expect(exec.calls[exec.calls.length - 1]).toBe('19-McpTool-finalize');
  });

  it('blocks a POLICY_RESTRICTED_OPERATION call before it runs and carries MCP_TOOL_ERROR to finalize', async () => {
    const exec = new FakeMcpExecutor(loopPlan(ORDER_TOOLS), [
      callTool('mock.order.status', { orderId: 'X' }, 'policy_restricted_operation'),
    ]);
    const out = await runMcpStep(stepInput(), exec);
    expect(exec.toolInputs).toHaveLength(0);
    expect(exec.decisions[0]).toMatchObject({ kind: 'GUARDRAIL_BLOCKED', reason: 'POLICY_RESTRICTED_OPERATION' });
    expect(exec.carried).toEqual([
      { callKey: '19-McpTool-finalize', carryKey: '19-McpTool-carried-1', stages: ['MCP_TOOL_ERROR'] },
    ]);
    expect(mcpOf(out.session)).toMatchObject({
      finalAnswer: 'This request is restricted by policy. Read-only operations are allowed.',
      lifecycle: {
        status: 'GUARDRAIL_BLOCKED_NEXT_TOOL',
        outcome: 'BLOCKED',
        blocked: true,
        errorMessage: 'POLICY_RESTRICTED_OPERATION',
      },
    });
  });

  it('suppresses a repeated call with the same args in any key order (scenario 38)', async () => {
    const exec = new FakeMcpExecutor(
      loopPlan(ORDER_TOOLS),
      [
        callTool('mock.order.status', { orderId: 'ORD-7017', verbose: true }),
        callTool('MOCK.ORDER.STATUS', { verbose: true, orderId: 'ORD-7017' }),
      ],
      { 'mock.order.status': { status: 200, summary: 'Submitted' } }
    );
    const out = await runMcpStep(stepInput(), exec);
    expect(exec.toolInputs).toHaveLength(1);
    expect(exec.decisions[0]).toMatchObject({ kind: 'DUPLICATE_SUPPRESSED', toolCode: 'MOCK.ORDER.STATUS' });
    expect(exec.carried[0]?.stages).toEqual(['MCP_DUPLICATE_TOOL_CALL_SUPPRESSED']);
    expect(mcpOf(out.session)).toMatchObject({
      finalAnswer: 'Submitted',
      lifecycle: { status: 'ANSWER', outcome: 'ANSWERED' },
    });
  });

  it('answers with the unsafe-next-step fallback when a duplicate has no summary', async () => {
    const exec = new FakeMcpExecutor(
      loopPlan(ORDER_TOOLS),
      [callTool('mock.order.status'), callTool('mock.order.status')],
      {
        'mock.order.status': STATUS,
      }
    );
    const out = await runMcpStep(stepInput(), exec);
    expect(mcpOf(out.session)['finalAnswer']).toBe("I couldn't decide the next tool step safely.");
  });

  it('blocks with the configured next-tool guardrail (scenario 34)', async () => {
    const nextToolGuard = {
      enabled: true,
      failClosed: false,
      allowedNextByCurrentTool: { __START__: ['mock.order.status'], 'mock.order.status': ['mock.order.async.trace'] },
    };
    const exec = new FakeMcpExecutor(loopPlan(ORDER_TOOLS, { nextToolGuard }), [callTool('mock.order.async.trace')]);
    const out = await runMcpStep(stepInput(), exec);
    expect(exec.toolInputs).toHaveLength(0);
    expect(exec.decisions[0]).toEqual({
      kind: 'GUARDRAIL_BLOCKED',
      toolCode: 'mock.order.async.trace',
      reason: 'NEXT_TOOL_GUARDRAIL_BLOCKED',
      iteration: 1,
    });
    expect(mcpOf(out.session)).toMatchObject({
      finalAnswer: 'Tool sequence guardrail blocked this action. Please rephrase or provide missing details.',
      lifecycle: {
        status: 'GUARDRAIL_BLOCKED_NEXT_TOOL',
        outcome: 'BLOCKED',
        finished: true,
        blocked: true,
        errorMessage: 'NEXT_TOOL_GUARDRAIL_BLOCKED',
      },
    });
    expect(out.session.inputParams['mcp_status']).toBe('GUARDRAIL_BLOCKED_NEXT_TOOL');
  });

  it('blocks an out-of-scope or unknown tool gracefully (D9, scenario 39)', async () => {
    const exec = new FakeMcpExecutor(loopPlan(ORDER_TOOLS), [callTool('loan.application.submit', { customerId: '1' })]);
    const out = await runMcpStep(stepInput(), exec);
    expect(exec.toolInputs).toHaveLength(0);
    expect(exec.decisions[0]).toMatchObject({ kind: 'GUARDRAIL_BLOCKED', reason: 'TOOL_NOT_IN_SCOPE' });
    expect(mcpOf(out.session)['lifecycle']).toMatchObject({ outcome: 'BLOCKED', errorMessage: 'TOOL_NOT_IN_SCOPE' });
    expect(exec.carried[0]?.stages).toEqual(['MCP_TOOL_ERROR']);
  });

  it('turns a failed tool into TOOL_ERROR with root cause audits and no further planning (scenario 36)', async () => {
    const driverWords = 'relation "loans" does not exist (SQLSTATE 42P01)';
    const failure = new ToolCallFailure('TOOL_EXECUTION_FAILED', driverWords, 3);
    const exec = new FakeMcpExecutor(loopPlan(ORDER_TOOLS), [callTool('mock.order.status', { orderId: '1' })], {
      'mock.order.status': failure,
    });
    const out = await runMcpStep(stepInput(), exec);
    expect(exec.calls.filter((c) => c.includes('plan'))).toHaveLength(1);
    expect(exec.decisions[0]).toMatchObject({
      kind: 'TOOL_FAILED',
      toolCode: 'mock.order.status',
      reason: 'TOOL_EXECUTION_FAILED',
    });
    expect(exec.carried[0]?.stages).toEqual(['MCP_TOOL_ERROR', 'MCP_TOOL_ROOT_CAUSE']);
    const mcp = mcpOf(out.session);
    const said = 'Tool mock.order.status failed (TOOL_EXECUTION_FAILED).';
    expect(mcp).toMatchObject({
      finalAnswer: 'Tool execution failed',
      lifecycle: { status: 'TOOL_ERROR', outcome: 'ERROR', finished: true, error: true, errorMessage: said },
      toolExecutionError: { toolCode: 'mock.order.status', attempts: 3, rootCauseMessage: said, errorMessage: said },
    });
    expect(out.session.inputParams['mcp_status']).toBe('TOOL_ERROR');
    // The caller sees the context: the driver's words (a table, a SQLSTATE) are only in the audit rows.
    expect(JSON.stringify(out.session.context)).not.toContain('loans');
    expect(exec.carriedAudits[0]?.payload).toMatchObject({ error: driverWords, root_cause_message: driverWords });
  });

  it('rethrows errors that are not tool failures (bugs must not be hidden as tool errors)', async () => {
    const exec = new FakeMcpExecutor(loopPlan(ORDER_TOOLS), [callTool('mock.order.status')], {
      'mock.order.status': () => {
        throw new TypeError('bug');
      },
    });
    await expect(runMcpStep(stepInput(), exec)).rejects.toThrow('bug');
  });

  it('records a skip and runs neither planner nor finalize', async () => {
    const exec = new FakeMcpExecutor(loopPlan(ORDER_TOOLS, { run: false, skipReason: 'SKIPPED_GREETING' }), []);
    await runMcpStep(stepInput(), exec);
    expect(exec.calls).toEqual(['19-McpTool-prepare']);
    expect(exec.decisions).toEqual([{ kind: 'MCP_SKIPPED', toolCode: null, reason: 'SKIPPED_GREETING' }]);
  });
});
