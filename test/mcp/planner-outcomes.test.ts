import { EngineError, ErrorType } from '../../core/errors';
import type { JsonObject } from '../../core/json';
import { httpTool, mcpTool, objectSchema, planner } from '../../db/seed/builders';
import { classifierRow, intentRow, responseRow } from '../support/config-rows';
import { McpHarness } from '../support/mcp-harness';
import { expectInOrder } from '../support/pipeline-harness';
import { answer, callTool, maxLoops, ORDER, orderConfig } from '../support/order-config';

const MESSAGE = 'Check order ORD-7017 status and trace.';

function mcpOf(context: JsonObject): JsonObject {
  return context['mcp'] as JsonObject;
}

const LOAN_SUBMIT = mcpTool({
  toolId: 6004,
  toolCode: 'loan.application.submit',
  toolGroup: 'HTTP_API',
  intentCode: 'LOAN_APPLICATION',
  stateCode: 'ANY',
});

const LOAN_SUBMIT_HTTP = httpTool({
  toolId: 6004,
  urlTemplate: '{{env.CONVENGINE_TOOL_DEMO_URL}}/loan/applications',
  httpMethod: 'POST',
  inputSchema: objectSchema({ customerId: { type: 'string' } }, ['customerId']),
});

describe('MCP planner outcomes: failures, fallbacks, suppression, scope (§14 #36–43)', () => {
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
    h.setHandlers({});
    await h.configure(orderConfig());
  });
  afterEach(() => expect(h.llm.unconsumed()).toEqual([]));

  it('36 turns a failing tool into TOOL_ERROR after its retries, with root-cause audits and no further planning', async () => {
    let attempts = 0;
    h.setHandlers({
      'mock.order.status': async () => {
        attempts += 1;
        throw new Error('boom');
      },
    });
    h.llm.setScript([callTool('mock.order.status', { orderId: 'ORD-7017' })]);
    const result = await h.turn({ message: MESSAGE });
    const FAILED = 'Tool mock.order.status failed (TOOL_EXECUTION_FAILED).';
    expect(JSON.stringify(result.context)).not.toContain('boom');
    expect(attempts).toBe(5); // the step table's READ_ONLY default, as in the workflow
    expect(h.llm.requestsOf('PLAN')).toHaveLength(1);
    const mcp = mcpOf(result.context);
    expect(mcp).toMatchObject({
      finalAnswer: 'Tool execution failed',
      lifecycle: { status: 'TOOL_ERROR', outcome: 'ERROR', finished: true, error: true, errorMessage: FAILED },
      toolExecutionError: { toolCode: 'mock.order.status', errorType: 'TOOL_EXECUTION_FAILED', attempts: 5 },
    });
    expect(await h.payload(result.conversationId, 'MCP_TOOL_ERROR')).toMatchObject({
      error_message: 'boom',
      tool_code: 'mock.order.status',
      // As the workflow reports it: the failure is its own root cause.
      root_cause_class: 'TOOL_EXECUTION_FAILED',
      root_cause_message: 'boom',
      attempts: 5,
    });
    expectInOrder(await h.stages(result.conversationId), [
      'MCP_TOOL_CALL',
      'MCP_TOOL_ERROR',
      'MCP_TOOL_ROOT_CAUSE',
      'RULE_MATCH (McpToolStep)',
    ]);
    const audits = await h.audits(result.conversationId);
    expect(audits.some((a) => a.stage === 'SET_INPUT_PARAM' && JSON.stringify(a.payload).includes('tool_failed'))).toBe(
      true
    );
    expect(result.outcome).toBe('TOOL_ERROR');
  });

  it('36 counts the attempts a tool really made when it fails for good before running out of them', async () => {
    let attempts = 0;
    h.setHandlers({
      'mock.order.status': async () => {
        attempts += 1;
        // TOOL_EXECUTION_FAILED is retryable by its type (ERROR_RETRYABLE); the third failure is final.
        if (attempts < 3) throw new EngineError(ErrorType.ToolExecutionFailed, `upstream hiccup ${attempts}`);
        throw new EngineError(ErrorType.ToolArgsInvalid, 'orderId must look like ORD-<digits>');
      },
    });
    h.llm.setScript([callTool('mock.order.status', { orderId: 'ORD-7017' })]);
    const result = await h.turn({ message: MESSAGE });
    expect(attempts).toBe(3);
    expect(mcpOf(result.context)['toolExecutionError']).toMatchObject({ errorType: 'TOOL_ARGS_INVALID', attempts: 3 });
    expect(await h.payload(result.conversationId, 'MCP_TOOL_ERROR')).toMatchObject({
      attempts: 3,
      error_class: 'TOOL_ARGS_INVALID',
      root_cause_class: 'TOOL_ARGS_INVALID',
      root_cause_message: 'orderId must look like ORD-<digits>',
    });
  });

  it('36 reports an upstream outage of a real HTTP tool the same way', async () => {
    h.toolServer.faults.set('/orders/status', { failTimes: 100, status: 503 });
    h.llm.setScript([callTool('mock.order.status', { orderId: 'ORD-7017' })]);
    const result = await h.turn({ message: MESSAGE });
    expect(mcpOf(result.context)['lifecycle']).toMatchObject({
      status: 'TOOL_ERROR',
      errorMessage: 'Tool mock.order.status failed: its HTTP call did not succeed (TOOL_HTTP_ERROR).',
    });
    expect(await h.payload(result.conversationId, 'MCP_TOOL_ERROR')).toMatchObject({
      error_message: expect.stringContaining('status 503'),
    });
    expect(h.toolServer.counters.requests('/orders/status')).toBe(5);
  });

  it.each([
    [
      'non-JSON output',
      { kind: 'PLAN', reply: 'I think you should call a tool' },
      "I couldn't plan tool usage safely. Can you rephrase your question?",
    ],
    [
      'an action outside the contract',
      { kind: 'PLAN', reply: { action: 'clarify', answer: 'which order?' } },
      "I couldn't plan tool usage safely. Can you rephrase your question?",
    ],
    ['CALL_TOOL without a tool', callTool(null), "I couldn't decide the next tool step safely."],
  ])('37 answers with the fallback text for %s', async (_name, reply, text) => {
    h.llm.setScript([reply]);
    const result = await h.turn({ message: MESSAGE });
    expect(mcpOf(result.context)).toMatchObject({
      finalAnswer: text,
      lifecycle: { status: 'ANSWER', outcome: 'ANSWERED' },
    });
    expect(h.toolServer.counters.log).toHaveLength(0);
  });

  it('37 executes a tool named without an action', async () => {
    h.llm.setScript([
      { kind: 'PLAN', reply: { tool_code: 'mock.order.status', args: { orderId: 'ORD-7017' } } },
      answer('done'),
    ]);
    await h.turn({ message: MESSAGE });
    expect(h.toolServer.counters.requests('/orders/status')).toBe(1);
  });

  it('37 blocks a POLICY_RESTRICTED_OPERATION call without running it', async () => {
    h.llm.setScript([
      callTool('mock.order.status', { orderId: 'ORD-7017' }, { operation_tag: 'POLICY_RESTRICTED_OPERATION' }),
    ]);
    const result = await h.turn({ message: MESSAGE });
    expect(mcpOf(result.context)).toMatchObject({
      finalAnswer: 'This request is restricted by policy. Read-only operations are allowed.',
      lifecycle: {
        status: 'GUARDRAIL_BLOCKED_NEXT_TOOL',
        outcome: 'BLOCKED',
        blocked: true,
        errorMessage: 'POLICY_RESTRICTED_OPERATION',
      },
    });
    expect(await h.stages(result.conversationId)).toContain('MCP_TOOL_ERROR');
    expect(h.toolServer.counters.log).toHaveLength(0);
  });

  it('38 suppresses a repeated call (args in any key order) and answers with the latest summary', async () => {
    let calls = 0;
    h.setHandlers({
      'mock.order.status': async () => {
        calls += 1;
        return { status: 'OK', summary: 'Submitted' };
      },
    });
    h.llm.setScript([
      callTool('mock.order.status', { orderId: 'ORD-7017', verbose: true }),
      callTool('mock.order.status', { verbose: true, orderId: 'ORD-7017' }),
    ]);
    const result = await h.turn({ message: MESSAGE });
    expect(calls).toBe(1);
    expect(mcpOf(result.context)).toMatchObject({ finalAnswer: 'Submitted', lifecycle: { status: 'ANSWER' } });
    expect(await h.payload(result.conversationId, 'MCP_DUPLICATE_TOOL_CALL_SUPPRESSED')).toMatchObject({
      answer: 'Submitted',
      tool_code: 'mock.order.status',
    });
  });

  it.each(['loan.application.submit', 'does.not.exist'])(
    '39 (D9) blocks the out-of-scope or unknown tool %s gracefully',
    async (toolCode) => {
      await h.configure(
        orderConfig({
          intents: [intentRow('LOAN_APPLICATION')],
          mcpTools: [LOAN_SUBMIT],
          mcpHttpTools: [LOAN_SUBMIT_HTTP],
        })
      );
      h.llm.setScript([callTool(toolCode, { customerId: '1' })]);
      const result = await h.turn({ message: MESSAGE });
      expect(result.success).toBe(true);
      expect(mcpOf(result.context)).toMatchObject({
        finalAnswer: 'Tool sequence guardrail blocked this action. Please rephrase or provide missing details.',
        lifecycle: { status: 'GUARDRAIL_BLOCKED_NEXT_TOOL', outcome: 'BLOCKED', errorMessage: 'TOOL_NOT_IN_SCOPE' },
      });
      expect(await h.payload(result.conversationId, 'MCP_TOOL_ERROR')).toMatchObject({
        tool_code: toolCode,
        error: 'TOOL_NOT_IN_SCOPE',
      });
    }
  );

  it('40 reports no tools for FAQ/IDLE, without clearing, planning or POST_AGENT_MCP rules', async () => {
    await h.configure(
      orderConfig({
        classifiers: [classifierRow({ intentCode: 'FAQ', stateCode: 'IDLE', pattern: '(?i)\\bhow do i\\b' })],
        responses: [responseRow({ intentCode: 'FAQ', stateCode: 'IDLE', exactText: 'See the help page.' })],
      })
    );
    const result = await h.turn({ message: 'How do I move my account' });
    expect(result).toMatchObject({ intent: 'FAQ', state: 'IDLE', payload: { value: 'See the help page.' } });
    expect(mcpOf(result.context)['lifecycle']).toMatchObject({
      status: 'NO_TOOLS_FOR_SCOPE',
      outcome: 'NO_TOOLS',
      finished: true,
    });
    const stages = await h.stages(result.conversationId);
    expect(stages.filter((s) => s.startsWith('MCP_'))).toEqual(['MCP_NO_TOOLS_AVAILABLE']);
    expect(stages.some((s) => s.endsWith('(McpToolStep)'))).toBe(false);
    expect(await h.payload(result.conversationId, 'MCP_NO_TOOLS_AVAILABLE')).toMatchObject({
      intent: 'FAQ',
      state: 'IDLE',
    });
  });

  it('42 takes the planner prompt from the most specific ce_mcp_planner row, else ce_config', async () => {
    const rows = orderConfig();
    rows.mcpPlanners = [
      planner({
        plannerId: 1001,
        intentCode: 'ANY',
        stateCode: 'ANY',
        systemPrompt: 'generic',
        userPrompt: '{{user_input}}',
      }),
      planner({
        plannerId: 1003,
        intentCode: ORDER,
        stateCode: 'ANY',
        systemPrompt: 'order-wide',
        userPrompt: '{{user_input}}',
      }),
    ];
    await h.configure(rows);
    h.llm.setScript([answer('a')]);
    const first = await h.turn({ message: MESSAGE });
    expect(await h.payload(first.conversationId, 'MCP_PLAN_LLM_INPUT')).toMatchObject({
      source: expect.stringContaining('planner_id=1003'),
      system_prompt: 'order-wide',
    });
    rows.mcpPlanners = [];
    await h.configure(rows);
    h.llm.setScript([answer('b')]);
    const second = await h.turn({ message: MESSAGE });
    expect(await h.payload(second.conversationId, 'MCP_PLAN_LLM_INPUT')).toMatchObject({
      source: 'ce_config(SYSTEM_PROMPT,USER_PROMPT)',
    });
  });

  it('43 lists only the tools the planner prompt names and shows the last two observations', async () => {
    const rows = orderConfig({ configs: [maxLoops(5)] });
    rows.mcpPlanners = [
      planner({
        plannerId: 5101,
        intentCode: ORDER,
        stateCode: 'ANALYZE',
        systemPrompt: 'Use `mock.order.status` only.',
        userPrompt: 'Tools: {{mcp_tools}}\nObs: {{mcp_observations}}',
      }),
    ];
    await h.configure(rows);
    h.llm.setScript([
      ...[1, 2, 3].map((n) => callTool('mock.order.status', { orderId: `ORD-${n}` })),
      answer('three orders'),
    ]);
    await h.turn({ message: MESSAGE });
    const plans = h.llm.requestsOf('PLAN');
    const tools = JSON.parse(plans[0]?.userText.split('\n')[0]?.replace('Tools: ', '') ?? '[]') as JsonObject[];
    expect(tools.map((t) => t['tool_code'])).toEqual(['mock.order.status']);
    const observations = JSON.parse(plans[3]?.userText.split('Obs: ')[1] ?? '[]') as JsonObject[];
    expect(observations.map((o) => (o['args'] as JsonObject)['orderId'])).toEqual(['ORD-2', 'ORD-3']);
    expect(observations[0]?.['result']).toEqual({ status: 200, mapped: { orderId: 'ORD-2', status: 'SUBMITTED' } });
  });
});
