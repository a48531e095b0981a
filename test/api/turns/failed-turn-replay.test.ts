import { ApiHarness } from '../../support/api-harness';
import { orderConfig } from '../../support/order-config';

const MESSAGE = 'Check order ORD-7017 status.';

/**
 * A failed turn is the final result of its request: the same request with the same Idempotency-Key gets it again,
 * so it must not ask for that request again (no Retry-After), and it must say how to run the turn again; and
 * GET /conversation/{id} must say what the POST said, also when the failure row could not be written.
 */
describe('a failed turn answered again for its Idempotency-Key', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await ApiHarness.start();
    await h.wf.mcp.configure(orderConfig());
  });
  afterAll(async () => h?.stop());

  const send = (key: string, conversationId: string) =>
    h.request('POST', '/api/v1/conversation/message', {
      json: { message: MESSAGE, conversationId },
      headers: { 'idempotency-key': key },
    });

  it('answers without retry-after, says how to retry, and agrees with GET lastTurn', async () => {
    h.wf.mcp.llm.setScript([{ kind: 'PLAN', error: { status: 529, retryAfterMs: 10 }, persistent: true }]);
    const key = `replay-${crypto.randomUUID()}`;
    const id = crypto.randomUUID();
    const failed = await send(key, id);
    for (const answer of [failed, await send(key, id)]) {
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBeNull();
      expect(answer.json().error).toMatchObject({
        code: 'TURN_FAILED',
        details: { failureType: 'LLM_CALL_FAILED', retryable: true },
      });
      expect(answer.json().error.message).toContain('new Idempotency-Key');
      expect(answer.json().error.message).toContain('retryWith');
    }
    const shown = async () => (await h.request('GET', `/api/v1/conversation/${id}`)).json().lastTurn;
    const agreed = { turnNumber: 1, status: 'FAILED', failureType: 'LLM_CALL_FAILED', retryable: true };
    expect(await shown()).toEqual(agreed);

    // The failure row unwritten (the database was down as the turn failed): Temporal's failure says the same.
    await h.wf.mcp.db.pool.query("DELETE FROM ce_audit WHERE conversation_id = $1 AND stage LIKE 'ENGINE_%_FAILURE'", [
      id,
    ]);
    expect(await shown()).toEqual(agreed);
  }, 180_000);
});
