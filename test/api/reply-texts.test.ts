import type { ConfigRows } from '../../core/config/types';
import { DEFAULT_RESERVED_TEXTS } from '../../core/response/reserved';
import { responseRow } from '../support/config-rows';
import { extracted, loanConfig, plan } from '../support/loan-config';
import { answer, callTool, orderConfig } from '../support/order-config';
import { ApiHarness } from '../support/api-harness';

const ORDER_MESSAGE = 'Check order ORD-7017 status.';
const LOAN_MESSAGE = 'Apply loan for customer CUST-1001, amount 350000 for 36 months.';

function withResponses(rows: Partial<ConfigRows>, extra: ConfigRows['responses']): Partial<ConfigRows> {
  return { ...rows, responses: [...(rows.responses ?? []), ...extra] };
}

describe('end-user texts outside a completed turn (issue 14 items 5 and 10)', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await ApiHarness.start();
  });
  afterAll(async () => h?.stop());
  beforeEach(() => {
    h.wf.mcp.llm.setScript([]);
    h.wf.mcp.llm.setFaults([]);
    h.wf.mcp.setHandlers({});
  });

  const send = (json: unknown) => h.request('POST', '/api/v1/conversation/message', { json });

  it('item 5: the 202 approval text comes from ce_response (intent, AWAITING_APPROVAL), else the default', async () => {
    const script = () => [extracted('CUST-1001'), plan('loan.application.submit', 'CUST-1001')];
    await h.wf.mcp.configure(loanConfig({ submitNeedsApproval: true }));
    h.wf.mcp.llm.setScript(script());
    const byDefault = await send({ message: LOAN_MESSAGE });
    expect(byDefault.status).toBe(202);
    expect(byDefault.json().payload).toEqual({
      type: 'TEXT',
      value: 'Waiting for approval to run loan.application.submit.',
    });
    expect(DEFAULT_RESERVED_TEXTS.AWAITING_APPROVAL).toBe('Waiting for approval to run {{toolCode}}.');

    await h.wf.mcp.configure(
      withResponses(loanConfig({ submitNeedsApproval: true }), [
        responseRow({
          responseId: 901,
          intentCode: 'ANY',
          stateCode: 'AWAITING_APPROVAL',
          exactText: 'Generic approval text.',
        }),
        responseRow({
          responseId: 902,
          intentCode: 'LOAN_APPLICATION',
          stateCode: 'AWAITING_APPROVAL',
          exactText: 'A loan officer must approve {{toolCode}} for {{args.customerId}} ({{state}}).',
        }),
      ])
    );
    h.wf.mcp.llm.setScript(script());
    const configured = await send({ message: LOAN_MESSAGE });
    expect(configured.status).toBe(202);
    expect(configured.json().payload.value).toBe(
      `A loan officer must approve loan.application.submit for CUST-1001 (${configured.json().state}).`
    );
    expect(configured.json().approval.toolCode).toBe('loan.application.submit');
  });

  it('item 10: an LLM that keeps failing ends the turn 503 with the configured text; the retry endpoint completes it', async () => {
    await h.wf.mcp.configure(
      withResponses(orderConfig(), [
        responseRow({
          responseId: 903,
          intentCode: 'ANY',
          stateCode: 'TURN_FAILED',
          exactText: 'Generic failure text.',
        }),
        responseRow({
          responseId: 904,
          intentCode: 'ORDER_DIAGNOSTICS',
          stateCode: 'TURN_FAILED',
          exactText: 'Our order assistant is busy ({{failureType}}). Please send that again in a minute.',
        }),
      ])
    );
    // The first turn answers, so the conversation has an intent; the second meets a dead LLM.
    h.wf.mcp.llm.setScript([callTool('mock.order.status', { orderId: 'ORD-7017' }), answer('Order submitted.')]);
    const first = await send({ message: ORDER_MESSAGE });
    expect(first.status).toBe(200);
    const conversationId = first.json().conversationId as string;

    h.wf.mcp.llm.setScript([{ kind: 'PLAN', error: { status: 529, retryAfterMs: 10 }, persistent: true }]);
    const failed = await send({ conversationId, message: ORDER_MESSAGE });
    expect(failed.status).toBe(503);
    // The failure is the request's final result: nothing invites the same request again (a new key, or an operator's
    // retryWith, runs it again).
    expect(failed.headers.get('retry-after')).toBeNull();
    expect(failed.json().error).toMatchObject({
      code: 'TURN_FAILED',
      details: {
        failureType: 'LLM_CALL_FAILED',
        retryable: true,
        number: 2,
        userMessage: 'Our order assistant is busy (LLM_CALL_FAILED). Please send that again in a minute.',
        retryWith: { method: 'POST', url: `/api/v1/admin/turns/turn-${conversationId}-2/retry`, access: 'operator' },
      },
    });
    expect(h.wf.mcp.llm.requestsOf('PLAN').length).toBeGreaterThan(3);
    // Nothing of the failed turn was committed: the conversation is where turn 1 left it.
    const after = (await h.request('GET', `/api/v1/conversation/${conversationId}`)).json();
    expect(after).toMatchObject({ turnCount: 1, intent: 'ORDER_DIAGNOSTICS', state: 'COMPLETED' });
    expect(after.history).toHaveLength(1);

    h.wf.mcp.llm.setScript([callTool('mock.order.status', { orderId: 'ORD-7017' }), answer('Order shipped.')]);
    const retried = await h.request('POST', failed.json().error.details.retryWith.url);
    expect(retried.status).toBe(200);
    expect(retried.json()).toMatchObject({
      conversationId,
      payload: { value: 'Done: Order shipped.' },
      turn: { number: 2, outcome: 'ANSWERED' },
    });
    const done = (await h.request('GET', `/api/v1/conversation/${conversationId}`)).json();
    expect(done).toMatchObject({ turnCount: 2 });
  }, 180_000);
});
