import { runMcpStep } from '../../../core/mcp';
import { failedDirectCall } from '../../../core/mcp/direct-failure';
import type { JsonObject } from '../../../core/json';
import type { Session } from '../../../core/session';
import { answer, callTool, FakeMcpExecutor, loopPlan, stepInput, tool } from './fake-executor';

const STATUS = { status: 200, attempt: 1, latencyMs: 4, mapped: { orderId: 'ORD-7017', status: 'SUBMITTED' } };
const ORDER_TOOLS = [tool('mock.order.status'), tool('mock.order.async.trace')];
const PUBLIC_ERROR = 'Tool mock.order.status failed: its HTTP call did not succeed (TOOL_HTTP_ERROR).';

/** The session ToolOrchestration and DirectToolCall leave when the request's tool failed (activities/mcp). */
function afterDirectFailure(errorSource = 'TOOL', args: JsonObject = { orderId: 'ORD-7017', verbose: true }) {
  const session: Partial<Session> = {
    inputParams: {
      tool_request: { tool_code: 'mock.order.status', tool_group: 'HTTP_API', args },
      tool_status: 'ERROR',
    },
    context: {
      mcp: {
        toolExecution: {
          phase: 'POST_TOOL_EXECUTION',
          status: 'ERROR',
          outcome: 'ERROR',
          finished: true,
          error: true,
          toolCode: 'mock.order.status',
          toolGroup: 'HTTP_API',
          errorMessage: PUBLIC_ERROR,
          errorType: 'TOOL_HTTP_ERROR',
          errorSource,
        },
      },
    },
  };
  return stepInput(session);
}

function mcpOf(session: { context: JsonObject }): JsonObject {
  return session.context['mcp'] as JsonObject;
}

describe('the planner loop and the direct tool call that failed this turn (§6.9)', () => {
  it('refuses the same call (any key order, any case) without sending it and ends with that failure', async () => {
    const exec = new FakeMcpExecutor(
      loopPlan(ORDER_TOOLS),
      [callTool('MOCK.ORDER.STATUS', { verbose: true, orderId: 'ORD-7017' })],
      { 'mock.order.status': STATUS }
    );
    const out = await runMcpStep(afterDirectFailure(), exec);
    expect(exec.toolInputs).toHaveLength(0);
    expect(exec.decisions).toEqual([
      { kind: 'REPEAT_REFUSED', toolCode: 'MOCK.ORDER.STATUS', reason: 'DIRECT_TOOL_CALL_FAILED', iteration: 1 },
    ]);
    expect(exec.carried).toEqual([
      { callKey: '19-McpTool-finalize', carryKey: '19-McpTool-carried-1', stages: ['MCP_TOOL_REPEAT_REFUSED'] },
    ]);
    expect(exec.carriedAudits[0]?.payload).toEqual({
      tool_code: 'MOCK.ORDER.STATUS',
      tool_group: 'HTTP_API',
      args: { verbose: true, orderId: 'ORD-7017' },
      reason: 'DIRECT_TOOL_CALL_FAILED',
      error: PUBLIC_ERROR,
      error_type: 'TOOL_HTTP_ERROR',
    });
    expect(mcpOf(out.session)).toMatchObject({
      finalAnswer: 'Tool execution failed',
      lifecycle: { status: 'TOOL_ERROR', outcome: 'ERROR', error: true, errorMessage: PUBLIC_ERROR },
      toolExecutionError: { toolCode: 'MOCK.ORDER.STATUS', errorType: 'TOOL_HTTP_ERROR', attempts: 0 },
    });
  });

  it.each([
    ['other arguments', afterDirectFailure('TOOL', { orderId: 'ORD-9999' })],
    ['a call the engine refused, not the tool', afterDirectFailure('ENGINE')],
    ['no direct call this turn', stepInput()],
  ])('sends the call after %s', async (_, input) => {
    const exec = new FakeMcpExecutor(
      loopPlan(ORDER_TOOLS),
      [callTool('mock.order.status', { orderId: 'ORD-7017', verbose: true }), answer('done')],
      { 'mock.order.status': STATUS }
    );
    await runMcpStep(input, exec);
    expect(exec.toolInputs).toHaveLength(1);
    expect(exec.decisions.map((d) => d.kind)).not.toContain('REPEAT_REFUSED');
  });

  it('sends it again when the executor says the turn was recorded before the refusal (workflow replay)', async () => {
    const exec = new FakeMcpExecutor(
      loopPlan(ORDER_TOOLS),
      [callTool('mock.order.status', { orderId: 'ORD-7017', verbose: true }), answer('done')],
      { 'mock.order.status': STATUS }
    );
    Object.assign(exec, { refusesFailedDirectRepeat: () => false });
    await runMcpStep(afterDirectFailure(), exec);
    expect(exec.toolInputs).toHaveLength(1);
    expect(exec.decisions).toEqual([]);
  });

  it("takes the failed call from the tool's ERROR and the request naming the same tool", () => {
    const input = afterDirectFailure();
    expect(failedDirectCall(input.session)).toMatchObject({
      toolCode: 'mock.order.status',
      args: { orderId: 'ORD-7017', verbose: true },
      signature: 'mock.order.status|{"orderId":"ORD-7017","verbose":true}',
    });
    const mismatched = { ...input.session, inputParams: { tool_request: { tool_code: 'other', args: {} } } };
    expect(failedDirectCall(mismatched)).toBeNull();
  });
});
