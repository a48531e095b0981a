import type { ConfigRows } from '../../core/config/types';
import { extracted, loanConfig, plan } from '../support/loan-config';
import { answer, callTool, orderConfig } from '../support/order-config';
import { ruleRow } from '../support/config-rows';
import { ApiHarness } from '../support/api-harness';
import { pruneConversations } from '../../db/repositories/retention';
import { until } from '../support/worker-stop-stack';

const ORDER_MESSAGE = 'Check order ORD-7017 status.';

function withoutReplyFor(rows: Partial<ConfigRows>, state: string): Partial<ConfigRows> {
  return { ...rows, responses: (rows.responses ?? []).filter((r) => r.stateCode !== state) };
}

describe('HTTP gateway routes over the real turn workflow', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await ApiHarness.start();
  });
  afterAll(async () => h?.stop());
  beforeEach(async () => {
    h.wf.mcp.llm.setScript([]);
    h.wf.mcp.setHandlers({});
    await h.wf.mcp.configure(orderConfig());
  });

  const send = (json: unknown, headers: Record<string, string> = {}) =>
    h.request('POST', '/api/v1/conversation/message', { json, headers });

  it('runs a turn, then serves the conversation, its audit rows, the trace and the SSE stream', async () => {
    h.wf.mcp.llm.setScript([callTool('mock.order.status', { orderId: 'ORD-7017' }), answer('Order submitted.')]);
    const res = await send({ message: ORDER_MESSAGE });
    expect(res.status).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      success: true,
      intent: 'ORDER_DIAGNOSTICS',
      state: 'COMPLETED',
      payload: { type: 'TEXT', value: 'Done: Order submitted.' },
      turn: { workflowId: `turn-${body.conversationId}-1`, number: 1, outcome: 'ANSWERED' },
    });
    expect(body.turn.runId).toEqual(expect.any(String));
    const id = body.conversationId as string;

    const conversation = (await h.request('GET', `/api/v1/conversation/${id}`)).json();
    expect(conversation).toMatchObject({ intent: 'ORDER_DIAGNOSTICS', state: 'COMPLETED', turnCount: 1 });
    expect(conversation.history).toEqual([expect.objectContaining({ turnNumber: 1, userInput: ORDER_MESSAGE })]);

    const audits = (await h.request('GET', `/api/v1/conversation/audit/${id}`)).json() as {
      auditId: number;
      stage: string;
    }[];
    expect(audits.map((a) => a.auditId)).toEqual([...audits.map((a) => a.auditId)].sort((a, b) => a - b));
    expect(audits.map((a) => a.stage)).toEqual(
      expect.arrayContaining(['USER_INPUT', 'MCP_TOOL_CALL', 'ENGINE_RETURN'])
    );

    const trace = (await h.request('GET', `/api/v1/conversation/audit/${id}/trace`)).json();
    expect(trace.stages).toHaveLength(audits.length);
    const userInput = trace.steps.find((s: { step: string }) => s.step === 'AuditUserInput');
    expect(userInput).toMatchObject({ status: 'OK', stages: [expect.objectContaining({ stage: 'USER_INPUT' })] });

    const stream = await h.request('GET', `/api/v1/conversation/${id}/stream`);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const events = stream.body.split('\n\n').filter(Boolean);
    expect(events[0]).toContain('event: CONNECTED');
    expect(events).toHaveLength(audits.length + 1);
    expect(events[1]).toContain(`event: ${audits[0]?.stage}`);
    expect(events[1]).toContain('"eventType":"AUDIT"');
  });

  it('answers 409 TURN_IN_PROGRESS for a concurrent turn and replays an idempotency key', async () => {
    h.wf.mcp.llm.setScript([
      { ...callTool('mock.order.status', { orderId: 'ORD-7017' }), delayMs: 5000 },
      answer('Order submitted.'),
    ]);
    h.wf.mcp.llm.clearRequests();
    const conversationId = crypto.randomUUID();
    const first = send({ conversationId, message: ORDER_MESSAGE }, { 'idempotency-key': 'k-1' });
    // The first turn is running once its planner call reached the model (which holds it 5 s); a fixed sleep was
    // too short on a loaded machine, so the second message found no turn in progress.
    await until(() => h.wf.mcp.llm.requests.length > 0, 'the first turn to reach the model');
    const refused = await send({ conversationId, message: 'Check order ORD-7018 status.' });
    expect([refused.status, refused.json().error.code]).toEqual([409, 'TURN_IN_PROGRESS']);
    const attached = await send({ conversationId, message: ORDER_MESSAGE }, { 'idempotency-key': 'k-1' });
    const original = await first;
    expect(original.status).toBe(200);
    expect(attached.json()).toEqual(original.json());
    const replay = await send({ conversationId, message: ORDER_MESSAGE }, { 'idempotency-key': 'k-1' });
    expect(replay.json()).toEqual(original.json());
  });

  it('replays an idempotency key on a first message without a conversationId: one conversation, not two', async () => {
    h.wf.mcp.llm.setScript([answer('Order ORD-7017 is on its way.')]);
    const key = { 'idempotency-key': `first-${crypto.randomUUID()}` };
    const first = await send({ message: ORDER_MESSAGE }, key);
    expect(first.status).toBe(200);
    const again = await send({ message: ORDER_MESSAGE }, key);
    expect(again.json()).toEqual(first.json());
    const other = await send({ message: 'Check order ORD-7018 status.' }, key);
    expect([other.status, other.json().error.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    const conversation = await h.request('GET', `/api/v1/conversation/${first.json().conversationId}`);
    expect(conversation.json().history).toHaveLength(1);
  });

  it('answers 410 CONVERSATION_RETIRED for a pruned conversation whose completed turns Temporal still holds', async () => {
    h.wf.mcp.llm.setScript([answer('Order ORD-7017 is on its way.'), answer('Order ORD-7017 is on its way.')]);
    const conversationId = crypto.randomUUID();
    expect((await send({ conversationId, message: ORDER_MESSAGE })).status).toBe(200);
    const db = h.wf.mcp.deps.db;
    const ago = "now() - interval '3 days'";
    for (const table of ['ce_conversation', 'ce_audit', 'ce_turn_request']) {
      const column = table === 'ce_conversation' ? 'updated_at' : 'created_at';
      await db.$client.query(`UPDATE ${table} SET ${column} = ${ago} WHERE conversation_id = $1`, [conversationId]);
    }
    await pruneConversations(db, new Date(Date.now() - 2 * 24 * 3600 * 1000));
    const read = await h.request('GET', `/api/v1/conversation/${conversationId}`);
    expect([read.status, read.json().error.code]).toEqual([410, 'CONVERSATION_RETIRED']);
    const again = await send({ conversationId, message: ORDER_MESSAGE });
    expect([again.status, again.json().error.code]).toEqual([410, 'CONVERSATION_RETIRED']);
    expect(again.json().error.message).toContain('Start a new conversation');
    const fresh = await send({ message: ORDER_MESSAGE });
    expect(fresh.status).toBe(200);
  });

  it('answers 410 TURN_REPLY_GONE for a key whose turn completed and is no longer in Temporal, never running it again', async () => {
    h.wf.mcp.llm.setScript([answer('Order ORD-7017 is on its way.'), answer('Order ORD-7017 is on its way.')]);
    const conversationId = crypto.randomUUID();
    expect((await send({ conversationId, message: ORDER_MESSAGE })).status).toBe(200);
    // A claim as a retried request finds it once its turn has aged out of the namespace's retention.
    await h.wf.mcp.deps.db.$client.query(
      `INSERT INTO ce_turn_request (conversation_id, idempotency_key, turn_number, workflow_id) VALUES ($1, $2, 1, $3)`,
      [conversationId, `aged-${conversationId}`, `turn-${conversationId}-1-retained-no-more`]
    );
    const late = await send(
      { conversationId, message: ORDER_MESSAGE },
      { 'idempotency-key': `aged-${conversationId}` }
    );
    expect([late.status, late.json().error.code]).toEqual([410, 'TURN_REPLY_GONE']);
    const conversation = await h.request('GET', `/api/v1/conversation/${conversationId}`);
    expect(conversation.json().history).toHaveLength(1);
  });

  it('answers 202 with the pending tool, then 200 once approved', async () => {
    await h.wf.mcp.configure(loanConfig({ submitNeedsApproval: true }));
    h.wf.mcp.llm.setScript([
      extracted('CUST-1001'),
      plan('loan.application.submit', 'CUST-1001'),
      answer('Submitted LA-90311.'),
    ]);
    const parked = await send({ message: 'Apply loan for customer CUST-1001, amount 350000 for 36 months.' });
    expect(parked.status).toBe(202);
    const body = parked.json();
    expect(body).toMatchObject({
      turn: { outcome: 'AWAITING_APPROVAL', number: 1 },
      approval: {
        toolCode: 'loan.application.submit',
        callIndex: 1,
        decideWith: {
          method: 'POST',
          url: `/api/v1/conversation/${body.conversationId}/turns/1/approval`,
          body: { callIndex: 1 },
        },
      },
    });
    const decided = await h.request('POST', body.approval.decideWith.url, {
      json: { decision: 'approve', callIndex: body.approval.decideWith.body.callIndex },
    });
    expect(decided.status).toBe(200);
    expect(decided.json()).toMatchObject({ payload: { value: 'Submitted LA-90311.' }, turn: { outcome: 'ANSWERED' } });
  });

  it('lets an SRE retry a failed turn once the cause is fixed', async () => {
    // A config gap: no reply for COMPLETED, so response resolution fails the turn (non-retryable).
    await h.wf.mcp.configure(withoutReplyFor(orderConfig(), 'COMPLETED'));
    const script = [callTool('mock.order.status', { orderId: 'ORD-7017' }), answer('Order submitted.')];
    h.wf.mcp.llm.setScript(script);
    const failed = await send({ message: ORDER_MESSAGE });
    expect(failed.status).toBe(500);
    expect(failed.json().error).toMatchObject({
      code: 'TURN_FAILED',
      details: { failureType: 'RESPONSE_MAPPING_NOT_FOUND', retryable: false, number: 1 },
    });
    const workflowId = failed.json().error.details.workflowId as string;

    await h.wf.mcp.configure(orderConfig());
    h.wf.mcp.llm.setScript(script);
    const retried = await h.request('POST', `/api/v1/admin/turns/${workflowId}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.json()).toMatchObject({
      state: 'COMPLETED',
      payload: { value: 'Done: Order submitted.' },
      turn: { workflowId, number: 1, outcome: 'ANSWERED' },
    });
    // Named with its UUID upper-case, the turn is named so in the refusal, not as its workflow is named.
    const sent = `turn-${workflowId.slice('turn-'.length).toUpperCase()}`;
    const again = await h.request('POST', `/api/v1/admin/turns/${sent}/retry`);
    expect([again.status, again.json().error]).toEqual([
      409,
      { code: 'TURN_ALREADY_COMPLETED', message: `Turn ${sent} already completed.` },
    ]);
  });

  it('refreshes config, or refuses it listing every violation while the running config stays', async () => {
    const ok = await h.request('POST', '/api/v1/admin/config/refresh');
    expect(ok.status).toBe(200);
    expect(ok.json()).toEqual({ version: expect.any(String), changed: false });
    const broken = orderConfig({
      rules: [
        ruleRow({
          ruleId: 990,
          intentCode: 'ORDER_DIAGNOSTICS',
          stateCode: 'ANY',
          ruleType: 'REGEX',
          matchPattern: '(unclosed',
          action: 'SET_INPUT_PARAM',
          actionValue: 'x:1',
        }),
      ],
    });
    await expect(h.wf.mcp.configure(broken)).rejects.toMatchObject({ type: 'CONFIG_INVALID' });
    const refused = await h.request('POST', '/api/v1/admin/config/refresh');
    expect(refused.status).toBe(422);
    expect(refused.json().error.code).toBe('CONFIG_INVALID');
    expect(refused.json().error.details.violations).toEqual([expect.stringMatching(/^ce_rule\[990\]: /)]);
    h.wf.mcp.llm.setScript([answer('still works')]);
    expect((await send({ message: ORDER_MESSAGE })).json().payload.value).toBe('Done: still works');
  });

  it('serves liveness, readiness and the OpenAPI document', async () => {
    expect((await h.request('GET', '/healthz')).json()).toEqual({ status: 'ok' });
    const ready = await h.request('GET', '/readyz');
    expect([ready.status, ready.json().checks]).toEqual([200, { database: 'ok', temporal: 'ok' }]);
    const doc = (await h.request('GET', '/docs/openapi.json')).json();
    expect(doc.openapi).toBe('3.0.3');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/conversation/message',
        '/api/v1/conversation/{id}',
        '/api/v1/conversation/audit/{id}',
        '/api/v1/conversation/audit/{id}/trace',
        '/api/v1/conversation/{id}/stream',
        '/api/v1/conversation/{id}/turns/{n}/approval',
        '/api/v1/admin/turns/{workflowId}/retry',
        '/api/v1/admin/config/refresh',
      ])
    );
    expect(doc.paths['/api/v1/conversation/message'].post.requestBody).toBeDefined();
  });
});
