import type { McpToolRow } from '../../core/config/tool-rows';
import type { JsonObject } from '../../core/json';
import { mcpTool } from '../../db/seed/builders';
import { configRow } from '../support/config-rows';
import { McpHarness } from '../support/mcp-harness';
import { answer, ORDER, ORDER_STATUS, ORDER_TRACE, orderConfig } from '../support/order-config';

/**
 * D21: a request's direct tool_request obeys the planner's tool policy — scope, the next-tool
 * guardrail, whether the tool may be called directly, approval — and retries by the tool's own
 * policy, not the pipeline step's.
 */
const MESSAGE = 'Check order ORD-7017 status.';
/** A failed tool, as the caller's context says it; the audit row keeps the tool's own words. */
const TOOL_FAILED = 'Tool mock.order.status failed (TOOL_EXECUTION_FAILED).';
const POSTGRES_QUERY = mcpTool({
  toolId: 5009,
  toolCode: 'postgres.query',
  toolGroup: 'DB',
  intentCode: ORDER,
  stateCode: 'ANALYZE',
});
const request = (toolCode: string, args: JsonObject = { orderId: 'ORD-7017' }) => ({
  tool_request: { tool_code: toolCode, args },
});

/** The order config with its tool rows replaced (orderConfig's extras append). */
const withTools = (mcpTools: McpToolRow[]) => ({ ...orderConfig(), mcpTools });

function execution(context: JsonObject): JsonObject {
  return (context['mcp'] as JsonObject)['toolExecution'] as JsonObject;
}

describe('direct tool_request obeys the tool policy (D21)', () => {
  let h: McpHarness;
  beforeAll(async () => {
    h = await McpHarness.start();
  });
  afterAll(async () => h.stop());
  beforeEach(() => {
    h.llm.setScript([answer('Done.')]);
    h.toolServer.counters.reset();
    h.setHandlers({});
  });

  it('refuses postgres.query by default, whatever the SQL', async () => {
    await h.configure(withTools([ORDER_STATUS, ORDER_TRACE, POSTGRES_QUERY]));
    const result = await h.turn({
      message: MESSAGE,
      inputParams: request('postgres.query', { query: 'select user_text from public.ce_conversation' }),
    });
    expect(execution(result.context)).toMatchObject({
      status: 'ERROR',
      toolExecuted: false,
      errorType: 'TOOL_NOT_ALLOWED',
      errorMessage: 'Tool postgres.query may not be called directly from a request (allow_direct_request)',
    });
    expect(await h.stages(result.conversationId)).not.toContain('DYNAMIC_SQL_EXECUTION');
  });

  it('runs postgres.query when its row allows direct requests, still through the SQL guardrail', async () => {
    const allowed = { ...POSTGRES_QUERY, allowDirectRequest: true };
    await h.configure(withTools([ORDER_STATUS, ORDER_TRACE, allowed]));
    const ok = await h.turn({ message: MESSAGE, inputParams: request('postgres.query', { query: 'select 1 as one' }) });
    expect(execution(ok.context)).toMatchObject({ status: 'SUCCESS', result: { rows: [{ one: 1 }] } });
    h.llm.setScript([answer('Done.')]);
    const catalog = await h.turn({
      message: MESSAGE,
      inputParams: request('postgres.query', { query: 'select * from pg_user' }),
    });
    expect(execution(catalog.context)).toMatchObject({ status: 'ERROR', errorType: 'SQL_GUARDRAIL_REJECTED' });
  });

  it('lets a row forbid a read-only HTTP tool from being called directly', async () => {
    await h.configure(withTools([{ ...ORDER_STATUS, allowDirectRequest: false }, ORDER_TRACE]));
    const result = await h.turn({ message: MESSAGE, inputParams: request('mock.order.status') });
    expect(execution(result.context)).toMatchObject({ status: 'ERROR', errorType: 'TOOL_NOT_ALLOWED' });
    expect(h.toolServer.counters.requests('/orders/status')).toBe(0);
  });

  it('applies the configured next-tool guardrail to the first tool of the turn', async () => {
    await h.configure(
      orderConfig({
        configs: [
          configRow('McpGuardrail', 'ENABLED', 'true'),
          configRow(
            'McpGuardrail',
            'ALLOWED_NEXT_BY_CURRENT_TOOL',
            JSON.stringify({ __START__: ['mock.order.async.trace'] })
          ),
        ],
      })
    );
    const result = await h.turn({ message: MESSAGE, inputParams: request('mock.order.status') });
    expect(execution(result.context)).toMatchObject({
      status: 'ERROR',
      errorType: 'GUARDRAIL_BLOCKED',
      errorMessage: expect.stringContaining('NEXT_TOOL_GUARDRAIL_BLOCKED'),
    });
    expect(h.toolServer.counters.requests('/orders/status')).toBe(0);
  });

  it('refuses a tool that needs approval (a request cannot wait for a human), approval_granted or not', async () => {
    await h.configure({
      ...withTools([{ ...ORDER_STATUS, requiresApproval: true }, ORDER_TRACE]),
      // The sensitive-action gate is on and the message is sensitive: approval_granted opens that gate, and only it.
      configs: [
        configRow('GuardrailStep', 'REQUIRE_APPROVAL_FOR_SENSITIVE_ACTIONS', 'true'),
        configRow('GuardrailStep', 'SENSITIVE_PATTERNS', JSON.stringify(['order'])),
      ],
    });
    const denied = await h.turn({ message: MESSAGE, inputParams: request('mock.order.status') });
    expect(await h.stages(denied.conversationId)).toContain('GUARDRAIL_DENY');
    for (const approval of ['approval_granted', 'approvalGranted'].map((key): JsonObject => ({ [key]: true }))) {
      h.llm.setScript([answer('Done.')]);
      const result = await h.turn({ message: MESSAGE, inputParams: { ...request('mock.order.status'), ...approval } });
      expect(await h.stages(result.conversationId)).toContain('GUARDRAIL_ALLOW');
      expect(execution(result.context)).toMatchObject({
        status: 'ERROR',
        errorType: 'TOOL_NOT_ALLOWED',
        errorMessage: 'Tool mock.order.status needs human approval; ask for it in the conversation instead',
      });
    }
    expect(h.toolServer.counters.requests('/orders/status')).toBe(0);
  });

  it('retries by the tool row (max_attempts) and never retries a non-idempotent write', async () => {
    let calls = 0;
    const flaky = async () => {
      calls += 1;
      throw new Error('upstream hiccup');
    };
    await h.configure(withTools([{ ...ORDER_STATUS, maxAttempts: 2 }, ORDER_TRACE]));
    h.setHandlers({ 'mock.order.status': flaky });
    const retried = await h.turn({ message: MESSAGE, inputParams: request('mock.order.status') });
    expect(calls).toBe(2);
    expect(execution(retried.context)).toMatchObject({ status: 'ERROR', errorMessage: TOOL_FAILED });
    calls = 0;
    h.llm.setScript([answer('Done.')]);
    const write = { ...ORDER_STATUS, sideEffect: 'NON_IDEMPOTENT_WRITE', allowDirectRequest: true, maxAttempts: 5 };
    await h.configure(withTools([write, ORDER_TRACE]));
    h.setHandlers({ 'mock.order.status': flaky });
    await h.turn({ message: MESSAGE, inputParams: request('mock.order.status') });
    expect(calls).toBe(1);
  });

  it('in process (no operator) a HOLD tool out of retries answers with the failure, as a planner call does (#22)', async () => {
    let calls = 0;
    const down = async () => {
      calls += 1;
      throw new Error('upstream down');
    };
    await h.configure(withTools([{ ...ORDER_STATUS, maxAttempts: 2, onRetriesExhausted: 'HOLD' }, ORDER_TRACE]));
    h.setHandlers({ 'mock.order.status': down });
    const result = await h.turn({ message: MESSAGE, inputParams: request('mock.order.status') });
    expect(calls).toBe(2);
    expect(execution(result.context)).toMatchObject({ status: 'ERROR', errorMessage: TOOL_FAILED });
    expect(await h.stages(result.conversationId)).not.toContain('TOOL_HELD');
  });
});
