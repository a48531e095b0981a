/**
 * The loan seed pack with its submit behind an approval (an operator's `requires_approval: true`), on the defaults of
 * `convengine start` (every seed pack, the keyless demo model, the demo tool server), through the HTTP API: a refused
 * submit (rejected, or its approval expired) tells the user so and what to do next, not the CONFIRMATION reply; a
 * "go ahead" then asks for the approval again, and an approved submit reads as before.
 */
import type { ConfigRows } from '../../core/config/types';
import { packConfigRows, SEED_PACKS } from '../../db/seed';
import { ApiHarness, type ApiJson } from '../support/api-harness';

const SUBMIT = 'loan.application.submit';
const REQUEST = 'I need a loan for my customer. Customer id 1234, 35000, 24 months.';
const CONFIRM = 'Please confirm: customerId 1234, requestedAmount 35000, tenureMonths 24. Proceed?';
const SUBMITTED =
  'Loan application submitted for customer 1234. Amount 35000, tenure 24 months. Application ID LA-90311.';

describe('the loan pack after its submit was refused an approval', () => {
  let h: ApiHarness;
  let rows: Partial<ConfigRows>;

  beforeAll(async () => {
    h = await ApiHarness.start({ demoModel: true });
    rows = packConfigRows(SEED_PACKS);
  });
  afterAll(async () => h?.stop());

  /** Every pack, with the submit waiting for an approval for `approvalTimeoutMs`. */
  async function submitNeedsApproval(approvalTimeoutMs: number): Promise<void> {
    const mcpTools = (rows.mcpTools ?? []).map((t) =>
      t.toolCode === SUBMIT ? { ...t, requiresApproval: true, approvalTimeoutMs } : t
    );
    await h.wf.mcp.configure({ ...rows, mcpTools });
  }

  const say = async (message: string, conversationId?: string): Promise<{ status: number; body: ApiJson }> => {
    const res = await h.request('POST', '/api/v1/conversation/message', { json: { message, conversationId } });
    return { status: res.status, body: res.json() };
  };

  /** A confirmed application whose submit parks on its approval: the 202's body. */
  async function parkedSubmit(conversationId?: string): Promise<ApiJson> {
    const asked = conversationId ? null : await say(REQUEST);
    if (asked)
      expect([asked.status, asked.body.state, asked.body.payload.value]).toEqual([200, 'CONFIRMATION', CONFIRM]);
    const parked = await say('go ahead', conversationId ?? asked?.body.conversationId);
    expect([parked.status, parked.body.turn.outcome, parked.body.approval.toolCode]).toEqual([
      202,
      'AWAITING_APPROVAL',
      SUBMIT,
    ]);
    return parked.body;
  }

  const decide = (parked: ApiJson, decision: 'approve' | 'reject') =>
    h.request('POST', parked.approval.decideWith.url, {
      json: { decision, callIndex: parked.approval.callIndex, decidedBy: 'loan-officer' },
    });

  it('a rejected submit says the application was not submitted and why; "go ahead" asks again; approved, it is submitted', async () => {
    await submitNeedsApproval(600_000);
    const parked = await parkedSubmit();
    const rejected = await decide(parked, 'reject');
    expect(rejected.status).toBe(200);
    expect(rejected.json()).toMatchObject({ intent: 'LOAN_APPLICATION', state: 'APPROVAL_REFUSED' });
    expect(rejected.json().payload.value).toBe(
      'The loan application for customer 1234 (amount 35000, tenure 24 months) was not submitted: the approval ' +
        'it needs was refused. Say "go ahead" to send the same details for approval again, or change a detail ' +
        'first, for example "change amount to 30000".'
    );
    expect(h.wf.mcp.toolServer.counters.totalWriteEffects()).toBe(0);

    // The next message is taken as in CONFIRMATION: "go ahead" sends the submit for approval again.
    const again = await parkedSubmit(parked.conversationId);
    const approved = await decide(again, 'approve');
    expect(approved.status).toBe(200);
    expect(approved.json()).toMatchObject({ state: 'COMPLETED', payload: { value: SUBMITTED } });
    expect(h.wf.mcp.toolServer.counters.totalWriteEffects()).toBe(1);
  });

  it('an edit after a refusal is confirmed as in CONFIRMATION', async () => {
    await submitNeedsApproval(600_000);
    const parked = await parkedSubmit();
    expect((await decide(parked, 'reject')).json().state).toBe('APPROVAL_REFUSED');
    const edited = await say('change amount to 30000', parked.conversationId);
    expect(edited.body).toMatchObject({
      state: 'CONFIRMATION',
      payload: { value: 'Updated. Please confirm: customerId 1234, requestedAmount 30000, tenureMonths 24. Proceed?' },
    });
  });

  it('an expired approval says it was not given in time', async () => {
    await submitNeedsApproval(1_500);
    const parked = await parkedSubmit();
    const ended = await h.wf.client.workflow.getHandle(parked.turn.workflowId).result();
    expect(ended).toMatchObject({ state: 'APPROVAL_NOT_GIVEN' });
    const conversation = await h.conversation(parked.conversationId);
    expect(conversation.lastAssistant.value).toBe(
      'The loan application for customer 1234 (amount 35000, tenure 24 months) was not submitted: the approval ' +
        'it needs was not given in time. Say "go ahead" to send the same details for approval again, or change a ' +
        'detail first, for example "change amount to 30000".'
    );
  });
});
