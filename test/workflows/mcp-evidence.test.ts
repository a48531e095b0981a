import { EngineError } from '../../core/errors';
import type { JsonObject } from '../../core/json';
import { stepRuns, decisionLog, upsertedSearchAttributes } from '../support/history';
import { answer, callTool, maxLoops, orderConfig } from '../support/order-config';
import { WorkflowHarness } from '../support/workflow-harness';
import { readTurnSearchAttributes } from '../../workflows/search-attributes';

const MESSAGE = 'Check order ORD-7017 status and trace.';

function completed(reply: Awaited<ReturnType<WorkflowHarness['send']>>) {
  if (reply.kind !== 'COMPLETED') throw new Error(`expected a completed turn, got ${JSON.stringify(reply)}`);
  return reply;
}

describe('MCP decisions in turn history (issue #6, items 2–5)', () => {
  let h: WorkflowHarness;
  beforeAll(async () => {
    h = await WorkflowHarness.start();
  });
  afterAll(async () => h?.stop());
  beforeEach(() => {
    h.mcp.llm.setScript([]);
    h.mcp.setHandlers({});
  });
  afterEach(() => expect(h.mcp.llm.unconsumed()).toEqual([]));

  it('a planner that never answers runs exactly MCP_TOOL_MAX_LOOPS planner activities, then records the loop limit', async () => {
    await h.mcp.configure(orderConfig({ configs: [maxLoops(3)] }));
    h.mcp.llm.setScript([1, 2, 3].map((n) => callTool('mock.order.status', { orderId: `ORD-70${n}` })));
    const reply = completed(await h.send({ message: MESSAGE }));
    const acts = stepRuns(await h.history(reply.ref.workflowId));
    expect(acts.filter((a) => a.type === 'McpPlan')).toHaveLength(3);
    expect(acts.filter((a) => a.type === 'McpToolCall')).toHaveLength(3);
    expect(decisionLog(await h.history(reply.ref.workflowId))).toEqual([
      'LOOP_LIMIT: reason=MCP_TOOL_MAX_LOOPS limit=3',
    ]);
    // The decision rides on the next step (McpFinalize), which writes its TURN_DECISION row.
    const finalize = acts.find((a) => a.type === 'McpFinalize');
    expect(acts.indexOf(finalize!)).toBeGreaterThan(acts.map((a) => a.type).lastIndexOf('McpPlan'));
    const mcp = reply.result.context['mcp'] as JsonObject;
    expect(mcp).toMatchObject({
      toolExecutionAbrupted: true,
      finalAnswerDetermined: false,
      toolExecutionAbruptionLimit: 3,
    });
    expect(reply.result.outcome).toBe('LOOP_LIMIT');
    const upserted = upsertedSearchAttributes(await h.history(reply.ref.workflowId));
    expect(readTurnSearchAttributes(upserted).turnOutcome).toBe('LOOP_LIMIT');
  });

  it('a blocked next tool leaves a guardrail record naming the tool and reason, and no tool activity', async () => {
    await h.mcp.configure(orderConfig());
    h.mcp.llm.setScript([callTool('loan.application.submit', { customerId: 'C-1' })]);
    const reply = completed(await h.send({ message: MESSAGE }));
    const acts = stepRuns(await h.history(reply.ref.workflowId));
    expect(acts.filter((a) => a.type === 'McpToolCall')).toHaveLength(0);
    expect(decisionLog(await h.history(reply.ref.workflowId))).toEqual([
      'GUARDRAIL_BLOCKED: tool=loan.application.submit reason=TOOL_NOT_IN_SCOPE',
    ]);
    expect(reply.result.outcome).toBe('GUARDRAIL_BLOCKED');
    expect((reply.result.context['mcp'] as JsonObject)['finalAnswer']).toBe(
      'Tool sequence guardrail blocked this action. Please rephrase or provide missing details.'
    );
  });

  it('a tool that fails twice shows attempt 3 in history, and the turn completes', async () => {
    await h.mcp.configure(orderConfig());
    let calls = 0;
    h.mcp.setHandlers({
      'mock.order.status': async () => {
        calls += 1;
        if (calls <= 2) throw new Error(`upstream hiccup ${calls}`);
        return { status: 'SUBMITTED', orderId: 'ORD-7017' };
      },
    });
    h.mcp.llm.setScript([callTool('mock.order.status', { orderId: 'ORD-7017' }), answer('Order submitted.')]);
    const reply = completed(await h.send({ message: MESSAGE }));
    const tool = stepRuns(await h.history(reply.ref.workflowId)).find((a) => a.type === 'McpToolCall');
    expect(tool).toMatchObject({ attempt: 3, outcome: 'COMPLETED' });
    expect(tool?.summary).toBe('McpToolCall: mock.order.status (call 1, READ_ONLY)');
    expect(calls).toBe(3);
    expect(reply.result).toMatchObject({ state: 'COMPLETED', outcome: 'ANSWERED' });
  });

  it('a non-retryable tool error ends the planner with TOOL_ERROR and the turn still answers', async () => {
    await h.mcp.configure(orderConfig());
    let calls = 0;
    h.mcp.setHandlers({
      'mock.order.status': async () => {
        calls += 1;
        throw new EngineError('TOOL_ARGS_INVALID', 'orderId must look like ORD-<digits>');
      },
    });
    h.mcp.llm.setScript([callTool('mock.order.status', { orderId: 'bogus' })]);
    const reply = completed(await h.send({ message: MESSAGE }));
    const acts = stepRuns(await h.history(reply.ref.workflowId));
    const tool = acts.find((a) => a.type === 'McpToolCall');
    expect(tool).toMatchObject({
      attempt: 1,
      outcome: 'FAILED',
      failure: { type: 'TOOL_ARGS_INVALID', nonRetryable: true },
    });
    expect(calls).toBe(1);
    expect(decisionLog(await h.history(reply.ref.workflowId))).toEqual([
      'TOOL_FAILED: tool=mock.order.status reason=TOOL_ARGS_INVALID',
    ]);
    expect(acts.filter((a) => a.type === 'McpPlan')).toHaveLength(1);
    expect(reply.result.outcome).toBe('TOOL_ERROR');
    expect(reply.result.payload).toEqual({ type: 'TEXT', value: 'Done: Tool execution failed' });
    expect((reply.result.context['mcp'] as JsonObject)['lifecycle']).toMatchObject({
      status: 'TOOL_ERROR',
      error: true,
    });
  });

  it('a tool that fails for good on its third attempt reports 3 attempts, in the context and the audit', async () => {
    await h.mcp.configure(orderConfig());
    let calls = 0;
    h.mcp.setHandlers({
      'mock.order.status': async () => {
        calls += 1;
        // Retryable by its type (ERROR_RETRYABLE): before, an EngineError without `retryable` was final.
        if (calls < 3) throw new EngineError('TOOL_EXECUTION_FAILED', `upstream hiccup ${calls}`);
        throw new EngineError('TOOL_ARGS_INVALID', 'orderId must look like ORD-<digits>');
      },
    });
    h.mcp.llm.setScript([callTool('mock.order.status', { orderId: 'ORD-7017' })]);
    const reply = completed(await h.send({ message: MESSAGE }));
    const tool = stepRuns(await h.history(reply.ref.workflowId)).find((a) => a.type === 'McpToolCall');
    expect(tool).toMatchObject({ attempt: 3, outcome: 'FAILED', failure: { type: 'TOOL_ARGS_INVALID' } });
    expect(calls).toBe(3);
    const mcp = reply.result.context['mcp'] as JsonObject;
    expect(mcp['toolExecutionError']).toMatchObject({ errorType: 'TOOL_ARGS_INVALID', attempts: 3 });
    const audits = await h.mcp.audits(reply.ref.conversationId, 1);
    expect(audits.find((a) => a.stage === 'MCP_TOOL_ERROR')?.payload).toMatchObject({
      attempts: 3,
      root_cause_class: 'TOOL_ARGS_INVALID',
      root_cause_message: 'orderId must look like ORD-<digits>',
    });
  });

  it('gives every activity a one-line summary', async () => {
    await h.mcp.configure(orderConfig());
    h.mcp.llm.setScript([callTool('mock.order.status', { orderId: 'ORD-7017' }), answer('Order submitted.')]);
    const reply = completed(await h.send({ message: MESSAGE }));
    const acts = stepRuns(await h.history(reply.ref.workflowId));
    for (const a of acts) expect(a.summary).toMatch(/^\S/);
    expect(acts.map((a) => a.summary)).toContain('McpPlan: planner iteration 2');
  });
});
