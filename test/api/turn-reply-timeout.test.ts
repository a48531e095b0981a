/**
 * No caller waits on a turn without end (TURN_REPLY_TIMEOUT_MS): a turn that outlives the wait (here
 * a slow model; in production a tool in a long retry backoff) answers 202 RUNNING, and goes on. The
 * same request again, with its idempotency key, attaches to the turn and gets its answer.
 */
import { ApiHarness } from '../support/api-harness';
import { answer, callTool, orderConfig } from '../support/order-config';

describe('a turn that outlives the API wait', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await ApiHarness.start({ replyTimeoutMs: 400 });
  });
  afterAll(async () => h?.stop());

  it('answers 202 RUNNING, goes on, and answers the same request again once it has finished', async () => {
    await h.wf.mcp.configure(orderConfig());
    h.wf.mcp.llm.setScript([
      { ...callTool('mock.order.status', { orderId: 'ORD-7017' }), delayMs: 1500 },
      answer('Order ORD-7017 is submitted.'),
    ]);
    const request = {
      json: { message: 'Check order ORD-7017 status.' },
      headers: { 'idempotency-key': 'slow-turn-1' },
    };
    const first = await h.request('POST', '/api/v1/conversation/message', request);
    expect(first.status).toBe(202);
    const body = first.json();
    expect(body).toMatchObject({
      success: true,
      intent: 'UNKNOWN',
      payload: { type: 'TEXT', value: expect.stringContaining('taking a little longer') },
      turn: { number: 1, outcome: 'RUNNING' },
      running: { reason: 'REPLY_TIMEOUT' },
    });

    let again = await h.request('POST', '/api/v1/conversation/message', {
      ...request,
      json: { ...request.json, conversationId: body.conversationId },
    });
    for (let i = 0; again.status === 202 && i < 20; i++) {
      again = await h.request('POST', '/api/v1/conversation/message', {
        ...request,
        json: { ...request.json, conversationId: body.conversationId },
      });
    }
    expect(again.status).toBe(200);
    expect(again.json()).toMatchObject({
      payload: { value: expect.stringContaining('Order ORD-7017 is submitted.') },
      turn: { workflowId: body.turn.workflowId, number: 1, outcome: 'ANSWERED' },
    });
    const conversation = await h.request('GET', `/api/v1/conversation/${body.conversationId}`);
    expect(conversation.json()).toMatchObject({ turnCount: 1 });
  });
});
