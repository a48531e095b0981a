/**
 * No caller waits on a turn without end (TURN_REPLY_TIMEOUT_MS): a turn that outlives the wait (here
 * a slow model; in production a tool in a long retry backoff) answers 202 RUNNING, and goes on. The
 * same request again, with its idempotency key, attaches to the turn and gets its answer. A turn that
 * fails after its 202 says so where the 202 sends the caller: the audit stream and GET /conversation/{id}.
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
    expect(conversation.json()).toMatchObject({ turnCount: 1, lastTurn: { turnNumber: 1, status: 'COMPLETED' } });
  });

  it('a turn that fails after the 202 ends its audit stream with ENGINE_KNOWN_FAILURE and reads as lastTurn FAILED', async () => {
    await h.wf.mcp.configure(orderConfig());
    // The model answers 500 on every try: each attempt fails, and the turn fails once the retry policy is used up.
    h.wf.mcp.llm.setScript([{ kind: 'PLAN', error: { status: 500, retryAfterMs: 10 }, persistent: true }]);
    const first = await h.request('POST', '/api/v1/conversation/message', {
      json: { message: 'Check order ORD-7017 status.' },
    });
    expect(first.status).toBe(202);
    const { conversationId, turn } = first.json();
    const id = conversationId as string;
    expect(await h.request('GET', `/api/v1/conversation/${id}`).then((r) => r.json().lastTurn)).toBeNull();
    await expect(h.wf.client.workflow.getHandle(turn.workflowId).result()).rejects.toThrow();

    const conversation = (await h.request('GET', `/api/v1/conversation/${id}`)).json();
    expect(conversation).toMatchObject({
      turnCount: 0,
      lastAssistant: null,
      lastTurn: { turnNumber: 1, status: 'FAILED', failureType: 'LLM_CALL_FAILED', retryable: true },
    });
    const stream = await h.request('GET', `/api/v1/conversation/${id}/stream`);
    const events = [...stream.body.matchAll(/^event: (\S+)\n(?:id: \d+\n)?data: (.*)$/gm)].map(
      (m) => [m[1] ?? '', m[2] ?? ''] as const
    );
    const stages = events.map(([stage]) => stage);
    expect(stages.filter((stage) => stage === 'STEP_ERROR')).toHaveLength(6);
    expect(stages.filter((stage) => stage.startsWith('ENGINE_'))).toEqual(['ENGINE_KNOWN_FAILURE']);
    const [last, data] = events.at(-1) ?? [];
    expect(last).toBe('ENGINE_KNOWN_FAILURE');
    expect(JSON.parse(data ?? '{}')).toMatchObject({
      stage: 'ENGINE_KNOWN_FAILURE',
      payload: { step: 'McpPlan', errorCode: 'LLM_CALL_FAILED', recoverable: true, attempt: 6 },
    });
  }, 120_000);
});
