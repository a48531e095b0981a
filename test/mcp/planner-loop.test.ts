import type { JsonObject } from '../../core/json';
import { configRow } from '../support/config-rows';
import { McpHarness } from '../support/mcp-harness';
import { expectInOrder } from '../support/pipeline-harness';
import { answer, callTool, maxLoops, ORDER, orderConfig } from '../support/order-config';

const MESSAGE = 'Check order ORD-7017 status and trace.';

function mcpOf(context: JsonObject): JsonObject {
  return context['mcp'] as JsonObject;
}

describe('MCP planner loop over real HTTP tools (§14 #32–35)', () => {
  let h: McpHarness;
  beforeAll(async () => {
    h = await McpHarness.start();
  });
  afterAll(async () => h.stop());
  beforeEach(async () => {
    h.llm.setScript([]);
    h.llm.clearRequests();
    h.toolServer.counters.reset();
    h.toolServer.faults.clear();
    await h.configure(orderConfig());
  });
  afterEach(() => expect(h.llm.unconsumed()).toEqual([]));

  it('32/33 runs status → trace → ANSWER, then POST_AGENT_MCP → PRE_RESPONSE_RESOLUTION → response', async () => {
    h.llm.setScript([
      callTool('mock.order.status', { orderId: 'ORD-7017' }),
      callTool('mock.order.async.trace', { orderId: 'ORD-7017' }),
      answer('Order submitted, callback pending.'),
    ]);
    const result = await h.turn({ message: MESSAGE });
    expect(result).toMatchObject({
      intent: ORDER,
      state: 'COMPLETED',
      payload: { type: 'TEXT', value: 'Done: Order submitted, callback pending.' },
    });
    const mcp = mcpOf(result.context);
    expect(mcp['observations']).toEqual([
      expect.objectContaining({
        toolCode: 'mock.order.status',
        args: { orderId: 'ORD-7017' },
        status: 'SUCCESS',
        result: expect.objectContaining({
          status: 200,
          attempt: 1,
          mapped: { orderId: 'ORD-7017', status: 'SUBMITTED' },
        }),
      }),
      expect.objectContaining({
        toolCode: 'mock.order.async.trace',
        result: expect.objectContaining({ mapped: { orderId: 'ORD-7017', callbackAt: null } }),
      }),
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
    const stages = await h.stages(result.conversationId);
    expectInOrder(stages, [
      'RULE_NO_MATCH (McpToolStep PreMcp)',
      'MCP_CONTEXT_CLEARED',
      'MCP_PLAN_LLM_INPUT',
      'MCP_PLAN_LLM_OUTPUT',
      'MCP_TOOL_CALL',
      'MCP_TOOL_RESULT',
      'MCP_PLAN_LLM_INPUT',
      'MCP_PLAN_LLM_OUTPUT',
      'MCP_TOOL_CALL',
      'MCP_TOOL_RESULT',
      'MCP_PLAN_LLM_INPUT',
      'MCP_PLAN_LLM_OUTPUT',
      'MCP_FINAL_ANSWER',
      'RULE_MATCH (McpToolStep)',
      'SET_STATE',
      'RULE_APPLIED (McpToolStep)',
      'RULE_APPLIED (RulesStep)',
      'RESOLVE_RESPONSE',
    ]);
    const calls = (await h.audits(result.conversationId))
      .filter((a) => a.stage === 'MCP_TOOL_CALL')
      .map((a) => a.payload['current_observation_tool']);
    expect(calls).toEqual(['__START__', 'mock.order.status']);
    const final = await h.payload(result.conversationId, 'MCP_FINAL_ANSWER');
    expect(final).toMatchObject({ answer: 'Order submitted, callback pending.' });
    expect((final?.['_meta'] as JsonObject)['inputParams']).toMatchObject({
      mcp_status: 'ANSWER',
      mcp_final_answer: 'Order submitted, callback pending.',
    });
    const engineReturn = await h.payload(result.conversationId, 'RESOLVE_RESPONSE');
    expect((engineReturn?.['_meta'] as JsonObject)['inputParams']).toMatchObject({ closed: true });
  });

  it('32 sends the injected context and API key to the tool server and shows the planner the mapped payload (D15, D16)', async () => {
    h.llm.setScript([callTool('mock.order.status', { orderId: 'ORD-7017' }), answer('Submitted.')]);
    const result = await h.turn({ message: MESSAGE, requestContext: { userId: 'agent-7', tenantId: 'acme' } });
    const logged = h.toolServer.counters.log[0];
    expect(logged?.headers).toMatchObject({
      'x-conversation-id': result.conversationId,
      'x-turn-number': '1',
      'x-user-id': 'agent-7',
      'x-tenant-id': 'acme',
      'x-api-key': expect.any(String),
    });
    const secondPlan = h.llm.requestsOf('PLAN')[1];
    const shown = JSON.parse((secondPlan?.userText ?? '').split('Observations: ')[1] ?? 'null') as unknown;
    expect(shown).toEqual([
      {
        toolCode: 'mock.order.status',
        args: { orderId: 'ORD-7017' },
        status: 'SUCCESS',
        result: { status: 200, mapped: { orderId: 'ORD-7017', status: 'SUBMITTED' } },
      },
    ]);
    const input = (await h.audits(result.conversationId)).filter((a) => a.stage === 'MCP_PLAN_LLM_INPUT')[1];
    expect(input?.payload).toMatchObject({
      source: 'ce_mcp_planner(planner_id=5101, intent_code=ORDER_DIAGNOSTICS, state_code=ANALYZE)',
    });
  });

  it('34 blocks a call the configured next-tool guardrail does not allow; POST_AGENT_MCP rules still run', async () => {
    await h.configure(
      orderConfig({
        configs: [
          configRow('McpGuardrail', 'ENABLED', 'true'),
          configRow(
            'McpGuardrail',
            'ALLOWED_NEXT_BY_CURRENT_TOOL',
            '{"__START__":["mock.order.status"],"mock.order.status":["mock.order.async.trace"]}'
          ),
        ],
      })
    );
    h.llm.setScript([callTool('mock.order.async.trace', { orderId: 'ORD-7017' })]);
    const result = await h.turn({ message: MESSAGE });
    const mcp = mcpOf(result.context);
    expect(mcp).toMatchObject({
      finalAnswer: 'Tool sequence guardrail blocked this action. Please rephrase or provide missing details.',
      lifecycle: {
        status: 'GUARDRAIL_BLOCKED_NEXT_TOOL',
        outcome: 'BLOCKED',
        finished: true,
        blocked: true,
        errorMessage: 'NEXT_TOOL_GUARDRAIL_BLOCKED',
      },
    });
    expect(h.toolServer.counters.log).toHaveLength(0);
    const stages = await h.stages(result.conversationId);
    expect(stages).not.toContain('MCP_TOOL_CALL');
    expectInOrder(stages, [
      'MCP_PLAN_LLM_OUTPUT',
      'MCP_TOOL_ERROR',
      'RULE_MATCH (McpToolStep)',
      'SET_INPUT_PARAM',
      'RULE_APPLIED (McpToolStep)',
    ]);
    const matched = (await h.audits(result.conversationId)).find(
      (a) => a.stage === 'RULE_MATCH (McpToolStep)' && a.payload['ruleId'] === 502
    );
    expect(matched).toBeDefined();
    expect(result.outcome).toBe('GUARDRAIL_BLOCKED');
  });

  it.each([
    [true, false],
    [false, true],
  ])(
    '34 variant: enabled guard with an empty map, fail-closed=%s → first call allowed=%s',
    async (failClosed, allowed) => {
      await h.configure(
        orderConfig({
          configs: [
            configRow('McpGuardrail', 'ENABLED', 'true'),
            configRow('McpGuardrail', 'FAIL_CLOSED', String(failClosed)),
          ],
        })
      );
      h.llm.setScript(
        allowed
          ? [callTool('mock.order.status', { orderId: 'ORD-1' }), answer('ok')]
          : [callTool('mock.order.status', { orderId: 'ORD-1' })]
      );
      const result = await h.turn({ message: MESSAGE });
      expect(h.toolServer.counters.requests('/orders/status')).toBe(allowed ? 1 : 0);
      expect(mcpOf(result.context)['lifecycle']).toMatchObject({ outcome: allowed ? 'ANSWERED' : 'BLOCKED' });
    }
  );

  it('35 stops at MCP_TOOL_MAX_LOOPS=2 without a third planner call, and POST_AGENT_MCP rules still run', async () => {
    await h.configure(orderConfig({ configs: [maxLoops(2)] }));
    h.llm.setScript([
      callTool('mock.order.status', { orderId: 'ORD-1' }),
      callTool('mock.order.status', { orderId: 'ORD-2' }),
    ]);
    const result = await h.turn({ message: MESSAGE });
    expect(h.llm.requestsOf('PLAN')).toHaveLength(2);
    const mcp = mcpOf(result.context);
    expect(mcp).toMatchObject({
      toolExecutionAbrupted: true,
      finalAnswerDetermined: false,
      toolExecutionAbruptionLimit: 2,
      lifecycle: { status: 'TOOL_RESULT', outcome: 'IN_PROGRESS', finished: false },
    });
    expect(mcp['finalAnswer']).toBeUndefined();
    expect(result).toMatchObject({ state: 'ANALYZE', outcome: 'LOOP_LIMIT' });
    const stages = await h.stages(result.conversationId);
    expectInOrder(stages, [
      'MCP_TOOL_RESULT',
      'MCP_TOOL_RESULT',
      'MCP_LOOP_LIMIT_REACHED',
      'RULE_NO_MATCH (McpToolStep)',
    ]);
  });

  it('35 uses the default limit of 5 without an override', async () => {
    h.llm.setScript([1, 2, 3, 4, 5].map((n) => callTool('mock.order.status', { orderId: `ORD-${n}` })));
    const result = await h.turn({ message: MESSAGE });
    expect(h.llm.requestsOf('PLAN')).toHaveLength(5);
    expect(mcpOf(result.context)).toMatchObject({ toolExecutionAbrupted: true, toolExecutionAbruptionLimit: 5 });
  });

  it('40/41 skips greetings and scopes without tools, but always evaluates PRE_AGENT_MCP rules', async () => {
    const greeting = await h.turn({ message: "Hey, what's the status of ORD-1?" });
    expect(mcpOf(greeting.context)['lifecycle']).toMatchObject({ status: 'SKIPPED_GREETING', outcome: 'SKIPPED' });
    const stages = await h.stages(greeting.conversationId);
    expect(stages).toContain('RULE_NO_MATCH (McpToolStep PreMcp)');
    expect(stages.filter((s) => s.startsWith('MCP_'))).toEqual([]);
    const faq = await h.turn({ message: 'hello' });
    expect(mcpOf(faq.context)['lifecycle']).toMatchObject({ status: 'SKIPPED_GREETING' });
  });

  it('41 does not skip when the LLM alone calls a message RESET (regex guard keeps NEW_REQUEST)', async () => {
    await h.configure(orderConfig({}, { dialogueActMode: 'REGEX_THEN_LLM' }));
    h.llm.setScript([{ kind: 'DA', reply: { dialogueAct: 'RESET', confidence: 0.9 } }, answer('Status checked.')]);
    const result = await h.turn({ message: 'restart please for ORD-7017' });
    expect(await h.payload(result.conversationId, 'DIALOGUE_ACT_CLASSIFIED')).toMatchObject({
      dialogueAct: 'NEW_REQUEST',
      source: 'REGEX_GUARD',
    });
    expect(mcpOf(result.context)['lifecycle']).toMatchObject({ status: 'ANSWER', outcome: 'ANSWERED' });
  });

  it.each(['no', 'edit', 'start over', 'yes'])('41 skips the planner for the dialogue act of %j', async (text) => {
    h.llm.setScript([
      { kind: 'INTENT', reply: { intent: 'FAQ', confidence: 0.3, intentScores: [{ intent: 'FAQ', confidence: 0.3 }] } },
    ]);
    const result = await h.turn({ message: text });
    expect(mcpOf(result.context)['lifecycle']).toMatchObject({
      status: 'SKIPPED_DIALOGUE_ACT',
      outcome: 'SKIPPED',
      finished: true,
    });
    expect(h.llm.requestsOf('PLAN')).toHaveLength(0);
  });
});
