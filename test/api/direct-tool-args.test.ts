import { ApiHarness } from '../support/api-harness';
import { answer, orderConfig } from '../support/order-config';

/**
 * Issue #21 through the HTTP API and the real turn workflow: a request's direct tool_request is
 * held to the tool's input schema like a planner call. Arguments the schema does not allow never
 * reach the tool's upstream (the demo tool server counts its requests).
 */
const MESSAGE = 'Check order ORD-7017 status.';

describe('direct tool requests obey the tool input schema (issue #21)', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await ApiHarness.start();
    await h.wf.mcp.configure(orderConfig());
  });
  afterAll(async () => h?.stop());
  beforeEach(() => h.wf.mcp.toolServer.counters.reset());

  const send = (args: Record<string, unknown>) =>
    h.request('POST', '/api/v1/conversation/message', {
      json: { message: MESSAGE, inputParams: { tool_request: { tool_code: 'mock.order.status', args } } },
    });

  it.each([
    ['an undeclared field', { orderId: 'ORD-7017', isAdmin: true }],
    ['a wrong type', { orderId: 7017 }],
    ['a missing field', {}],
  ])('refuses %s without calling the upstream, and audits TOOL_ARGS_REJECTED', async (_label, args) => {
    h.wf.mcp.llm.setScript([answer('I could not check that order.')]);
    const res = await send(args);
    expect(res.status).toBe(200);
    expect(h.wf.mcp.toolServer.counters.requests('/orders/status')).toBe(0);
    const id = res.json().conversationId as string;
    expect(await h.wf.mcp.payload(id, 'TOOL_ARGS_REJECTED')).toMatchObject({ tool_code: 'mock.order.status' });
    expect(await h.wf.mcp.payload(id, 'TOOL_ORCHESTRATION_ERROR')).toMatchObject({ errorType: 'TOOL_ARGS_INVALID' });
  });

  it("records a request for an unknown tool as the tool's error (as the Java engine does), naming no table", async () => {
    h.wf.mcp.llm.setScript([answer('I could not check that order.')]);
    const res = await h.request('POST', '/api/v1/conversation/message', {
      json: { message: MESSAGE, inputParams: { tool_request: { tool_code: 'mock.order.cancel', args: {} } } },
    });
    expect(res.status).toBe(200);
    expect(res.body).not.toMatch(/ce_mcp_tool|ce_\w+/);
    const id = res.json().conversationId as string;
    expect(await h.wf.mcp.payload(id, 'TOOL_ORCHESTRATION_ERROR')).toMatchObject({
      errorType: 'TOOL_NOT_ALLOWED',
      error: 'No enabled tool is named mock.order.cancel.',
    });
  });

  it('runs the tool once for arguments the schema allows', async () => {
    const res = await send({ orderId: 'ORD-7017' });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ state: 'ORDER_SUBMITTED_DIAGNOSIS' });
    expect(h.wf.mcp.toolServer.counters.requests('/orders/status')).toBe(1);
  });
});
