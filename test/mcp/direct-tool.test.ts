import type { JsonObject } from '../../core/json';
import { httpTool, mcpTool, objectSchema } from '../../db/seed/builders';
import { orderDiagnosticsPack } from '../../db/seed/packs';
import { configRow, intentRow, ruleRow } from '../support/config-rows';
import { McpHarness } from '../support/mcp-harness';
import { expectInOrder } from '../support/pipeline-harness';
import { answer, ORDER, orderConfig } from '../support/order-config';

const MESSAGE = 'Check order ORD-7017 status.';
const TOOL_REQUEST = {
  tool_request: { tool_code: 'mock.order.status', tool_group: 'http', args: { orderId: 'ORD-7017' } },
};

function mcpOf(context: JsonObject): JsonObject {
  return context['mcp'] as JsonObject;
}

const SCOPE_MISMATCH_RULE = ruleRow({
  ruleId: 560,
  intentCode: ORDER,
  stateCode: 'ANY',
  phase: 'PRE_RESPONSE_RESOLUTION',
  ruleType: 'JSON_PATH',
  matchPattern: '$[?(@.context.mcp.toolExecution.scopeMismatch == true)]',
  action: 'SET_INPUT_PARAM',
  actionValue: 'scope_mismatch_seen:true',
});

describe('direct tool path: ToolOrchestration (§14 #44–45, §12.7)', () => {
  let h: McpHarness;
  beforeAll(async () => {
    h = await McpHarness.start();
  });
  afterAll(async () => h.stop());
  beforeEach(async () => {
    h.llm.setScript([]);
    h.llm.clearRequests();
    h.toolServer.counters.reset();
    h.setHandlers({});
    await h.configure(orderConfig({ rules: [SCOPE_MISMATCH_RULE] }));
  });
  afterEach(() => expect(h.llm.unconsumed()).toEqual([]));

  it('44 runs exactly one tool, writes tool_result and toolExecution, and POST_TOOL_EXECUTION moves the state', async () => {
    const result = await h.turn({ message: MESSAGE, inputParams: TOOL_REQUEST });
    expect(result).toMatchObject({
      intent: ORDER,
      state: 'ORDER_SUBMITTED_DIAGNOSIS',
      payload: { value: 'Order ORD-7017 is SUBMITTED.' },
    });
    expect(h.toolServer.counters.requests('/orders/status')).toBe(1);
    expect(mcpOf(result.context)['toolExecution']).toMatchObject({
      phase: 'POST_TOOL_EXECUTION',
      status: 'SUCCESS',
      outcome: 'SUCCESS',
      finished: true,
      toolExecuted: true,
      scopeMismatch: false,
      error: false,
      toolCode: 'mock.order.status',
      toolGroup: 'HTTP_API',
      result: { status: 200, attempt: 1, mapped: { orderId: 'ORD-7017', status: 'SUBMITTED' } },
      meta: { tool_id: 5001, tool_code: 'mock.order.status', intent_code: ORDER, state_code: 'ANALYZE' },
    });
    const stages = await h.stages(result.conversationId);
    expectInOrder(stages, [
      'TOOL_ORCHESTRATION_REQUEST',
      'TOOL_ORCHESTRATION_RESULT',
      'RULE_MATCH (ToolOrchestrationStep PostTool)',
      'SET_STATE',
      'RULE_APPLIED (ToolOrchestrationStep PostTool)',
      'MCP_NO_TOOLS_AVAILABLE',
      'RESOLVE_RESPONSE',
    ]);
    const request = await h.payload(result.conversationId, 'TOOL_ORCHESTRATION_REQUEST');
    expect(request).toMatchObject({
      tool_code: 'mock.order.status',
      tool_group: 'HTTP_API',
      args: { orderId: 'ORD-7017' },
    });
    const meta = (await h.payload(result.conversationId, 'RESOLVE_RESPONSE'))?.['_meta'] as JsonObject;
    expect(meta['inputParams']).toMatchObject({
      tool_status: 'SUCCESS',
      tool_result: { status: 'SUCCESS', tool_code: 'mock.order.status', tool_group: 'HTTP_API' },
    });
  });

  it('45a reports a tool scoped to another intent as SKIPPED_SCOPE_MISMATCH without rules', async () => {
    await h.configure(
      orderConfig({
        intents: [intentRow('LOAN_APPLICATION')],
        mcpTools: [
          mcpTool({
            toolId: 6001,
            toolCode: 'loan.credit.rating.check',
            toolGroup: 'HTTP_API',
            intentCode: 'LOAN_APPLICATION',
            stateCode: 'ANY',
          }),
        ],
        mcpHttpTools: [
          httpTool({
            toolId: 6001,
            urlTemplate: '{{env.CONVENGINE_TOOL_DEMO_URL}}/loan/credit-rating',
            inputSchema: objectSchema({}),
          }),
        ],
        rules: [SCOPE_MISMATCH_RULE],
      })
    );
    h.llm.setScript([answer('Nothing to check.')]);
    const request = { tool_request: { tool_code: 'loan.credit.rating.check', args: { customerId: 'C1' } } };
    const result = await h.turn({ message: MESSAGE, inputParams: request });
    expect(mcpOf(result.context)['toolExecution']).toMatchObject({
      status: 'SKIPPED_SCOPE_MISMATCH',
      outcome: 'SCOPE_MISMATCH',
      scopeMismatch: true,
      error: false,
      toolExecuted: false,
    });
    expect(h.toolServer.counters.log).toHaveLength(0);
    const stages = await h.stages(result.conversationId);
    expect(stages).toContain('TOOL_ORCHESTRATION_RESULT');
    expect(stages).not.toContain('TOOL_ORCHESTRATION_ERROR');
    expect(stages.some((s) => s.endsWith('(ToolOrchestrationStep PostTool)'))).toBe(false);
    const meta = (await h.payload(result.conversationId, 'RESOLVE_RESPONSE'))?.['_meta'] as JsonObject;
    expect(meta['inputParams']).toMatchObject({ tool_status: 'SKIPPED_SCOPE_MISMATCH', scope_mismatch_seen: true });
  });

  it('45b turns a failing tool into tool_status ERROR and TOOL_ORCHESTRATION_ERROR, without rules', async () => {
    h.setHandlers({
      'mock.order.status': async () => {
        throw new Error('upstream exploded');
      },
    });
    h.llm.setScript([answer('Could not check.')]);
    const result = await h.turn({ message: MESSAGE, inputParams: TOOL_REQUEST });
    expect(mcpOf(result.context)['toolExecution']).toMatchObject({
      status: 'ERROR',
      outcome: 'ERROR',
      error: true,
      toolExecuted: false,
      errorMessage: 'Tool mock.order.status failed (TOOL_EXECUTION_FAILED).',
    });
    // The caller's context says what failed; the operators' audit row keeps the tool's own words.
    expect(JSON.stringify(result.context)).not.toContain('exploded');
    expect(await h.payload(result.conversationId, 'TOOL_ORCHESTRATION_ERROR')).toMatchObject({
      error: 'upstream exploded',
    });
    const stages = await h.stages(result.conversationId);
    expect(stages).toContain('TOOL_ORCHESTRATION_ERROR');
    expect(stages.some((s) => s.endsWith('(ToolOrchestrationStep PostTool)'))).toBe(false);
    expect(result.state).toBe('COMPLETED');
  });

  it('45c (D10) never replays a tool_request (or its result) on a later turn', async () => {
    const first = await h.turn({ message: MESSAGE, inputParams: TOOL_REQUEST });
    expect(first.state).toBe('ORDER_SUBMITTED_DIAGNOSIS');
    h.llm.setScript([answer('Nothing new.')]);
    const second = await h.turn({ conversationId: first.conversationId, message: 'And now ORD-7017?' });
    expect(h.toolServer.counters.requests('/orders/status')).toBe(1);
    expect(await h.stages(second.conversationId, 2)).not.toContain('TOOL_ORCHESTRATION_REQUEST');
    expect(mcpOf(second.context)['toolExecution']).toBeUndefined();
  });

  it('runs the bundled order-diagnostics seed example: ORD-7017 → ORDER_SUBMITTED_DIAGNOSIS', async () => {
    await h.configure({
      ...orderDiagnosticsPack.rows,
      configs: [configRow('DialogueActStep', 'RESOLUTE_MODE', 'REGEX_ONLY')],
    });
    const result = await h.turn({ message: 'Check order ORD-7017 status.', inputParams: TOOL_REQUEST });
    expect(result).toMatchObject({
      intent: ORDER,
      state: 'ORDER_SUBMITTED_DIAGNOSIS',
      payload: { type: 'TEXT', value: 'Order ORD-7017 is SUBMITTED; its async callback has not been confirmed yet.' },
    });
    expect(h.llm.requests).toHaveLength(0);
    expect(h.toolServer.counters.log[0]?.headers['x-api-key']).toBeDefined();

    // "ok thanks" runs no tool: response 52, which reads this turn's tool result, would not be sent
    // (TURN_OUTPUT_MISSING, the TURN_FAILED text). The pack's acknowledgement rule answers it, even when the
    // intent model names the state the last turn ended in (the state is kept for the same intent).
    h.llm.setScript([
      { kind: 'INTENT', reply: { intent: ORDER, state: 'ORDER_SUBMITTED_DIAGNOSIS', confidence: 0.9 } },
    ]);
    const next = await h.turn({ conversationId: result.conversationId, message: 'ok thanks' });
    expect(next).toMatchObject({
      state: 'ACKNOWLEDGED',
      payload: { type: 'TEXT', value: expect.stringMatching(/^Glad I could help\. To check another order\b/) },
    });
    expect(h.toolServer.counters.requests('/orders/status')).toBe(1);
    expect(await h.stages(result.conversationId, 2)).not.toContain('EXACT_RESPONSE_RENDERING');
  });
});
