/**
 * The console's conversation list (GET /api/v1/console/conversations) shows a conversation whose turn is parked on a
 * tool approval as AWAITING_APPROVAL, and one whose turn holds a tool call for an operator (#22) as HELD, not RUNNING,
 * and filters by them: read from the parked turns' TurnOutcome search attribute (Temporal's visibility, one list), as
 * the approvals and held panels list them; the conversation page (its turns route) says the same. Once decided, it
 * is RUNNING again.
 */
import { ApiHarness, type ApiJson } from '../support/api-harness';
import { extracted, LOAN_MESSAGE, loanConfig, plan } from '../support/loan-config';
import { answer } from '../support/order-config';

const SUBMIT = 'loan.application.submit';
const SUBMIT_PATH = '/loan/applications';
const HOLD = { onRetriesExhausted: 'HOLD', maxAttempts: 2, initialIntervalMs: 100 } as const;

describe('the console lists a conversation parked on an approval as AWAITING_APPROVAL', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await ApiHarness.start();
    await h.wf.mcp.configure(loanConfig({ submitNeedsApproval: true }));
  });
  afterAll(async () => {
    h?.wf.mcp.toolServer.faults.clear(SUBMIT_PATH);
    await h?.stop();
  });

  const say = async (message: string, conversationId?: string): Promise<ApiJson> => {
    const res = await h.request('POST', '/api/v1/conversation/message', { json: { message, conversationId } });
    return res.json();
  };
  const reject = async (parked: ApiJson): Promise<number> => {
    const json = { decision: 'reject', callIndex: parked.approval.callIndex };
    return (await h.request('POST', parked.approval.decideWith.url, { json })).status;
  };
  /** The ids the list shows under `query`, each with its status. */
  const listed = async (query: string): Promise<Map<string, string>> => {
    const res = await h.request('GET', `/api/v1/console/conversations?limit=100&${query}`);
    expect(res.status).toBe(200);
    const items = res.json().items as { conversationId: string; status: string }[];
    return new Map(items.map((i) => [i.conversationId, i.status]));
  };
  /** The status the conversation page (its turns route) shows the conversation with. */
  const pageStatus = async (id: string): Promise<string> => {
    const res = await h.request('GET', `/api/v1/console/conversations/${id}/turns?limit=1`);
    expect(res.status).toBe(200);
    return res.json().conversation.status;
  };

  it('shows and filters the parked conversation by its own status; decided, it is RUNNING again', async () => {
    // A conversation with an answered turn, and one whose first turn was decided and whose second is parked.
    h.wf.mcp.llm.setScript([extracted('CUST-1001'), plan('loan.credit.rating.check', 'CUST-1001'), answer('Done.')]);
    const answered = await say(LOAN_MESSAGE);
    h.wf.mcp.llm.setScript([extracted('CUST-1001'), plan(SUBMIT, 'CUST-1001')]);
    const first = await say(LOAN_MESSAGE);
    expect(first.turn.outcome).toBe('AWAITING_APPROVAL');
    expect(await reject(first)).toBe(200);
    h.wf.mcp.llm.setScript([extracted('CUST-1001'), plan(SUBMIT, 'CUST-1001')]);
    const parked = await say(LOAN_MESSAGE, first.conversationId);
    expect(parked.turn.outcome).toBe('AWAITING_APPROVAL');
    const id = parked.conversationId as string;
    const other = answered.conversationId as string;

    const all = await listed('');
    expect([all.get(id), all.get(other)]).toEqual(['AWAITING_APPROVAL', 'RUNNING']);
    // The conversation page says what the list says, also when the parked turn is not on its page of turns.
    expect([await pageStatus(id), await pageStatus(other)]).toEqual(['AWAITING_APPROVAL', 'RUNNING']);
    const awaiting = await listed('status=AWAITING_APPROVAL');
    expect([awaiting.has(id), awaiting.has(other)]).toEqual([true, false]);
    expect([...awaiting.values()].every((s) => s === 'AWAITING_APPROVAL')).toBe(true);
    const running = await listed('status=RUNNING');
    expect([running.has(id), running.has(other)]).toEqual([false, true]);
    const total = (await h.request('GET', '/api/v1/console/conversations?status=AWAITING_APPROVAL')).json().total;
    expect(total).toBe(awaiting.size);

    expect(await reject(parked)).toBe(200);
    expect((await listed('')).get(id)).toBe('RUNNING');
    expect(await pageStatus(id)).toBe('RUNNING');
    expect((await listed('status=AWAITING_APPROVAL')).has(id)).toBe(false);
    expect((await listed('status=RUNNING')).has(id)).toBe(true);
  });

  it('shows and filters a conversation held for an operator (#22) as HELD; decided, it is RUNNING again', async () => {
    await h.wf.mcp.configure(loanConfig({ submit: HOLD }));
    h.wf.mcp.llm.setScript([extracted('CUST-1001'), plan('loan.credit.rating.check', 'CUST-1001'), answer('Done.')]);
    const other = (await say(LOAN_MESSAGE)).conversationId as string;
    h.wf.mcp.toolServer.faults.set(SUBMIT_PATH, { failTimes: 1_000, status: 503 });
    h.wf.mcp.llm.setScript([extracted('CUST-1001'), plan(SUBMIT, 'CUST-1001'), answer('Ok.')]);
    const held = await say(LOAN_MESSAGE);
    expect(held.turn.outcome).toBe('HELD');
    const id = held.conversationId as string;

    const all = await listed('');
    expect([all.get(id), all.get(other)]).toEqual(['HELD', 'RUNNING']);
    expect([await pageStatus(id), await pageStatus(other)]).toEqual(['HELD', 'RUNNING']);
    const onHold = await listed('status=HELD');
    expect([onHold.has(id), onHold.has(other)]).toEqual([true, false]);
    expect([...onHold.values()].every((s) => s === 'HELD')).toBe(true);
    expect((await listed('status=RUNNING')).has(id)).toBe(false);
    expect((await listed('status=AWAITING_APPROVAL')).has(id)).toBe(false);

    const skipped = await h.request('POST', `/api/v1/console/turns/${held.turn.workflowId}/actions/held-skip`, {
      json: { callIndex: held.held.callIndex },
    });
    expect([200, 202]).toContain(skipped.status);
    expect((await listed('')).get(id)).toBe('RUNNING');
    expect(await pageStatus(id)).toBe('RUNNING');
    expect((await listed('status=HELD')).has(id)).toBe(false);
  });

  it('names AWAITING_APPROVAL and HELD among the statuses a wrong one is refused with, and in the API docs', async () => {
    const res = await h.request('GET', '/api/v1/console/conversations?status=PARKED');
    expect([res.status, res.json().error.code]).toEqual([400, 'INVALID_STATUS']);
    expect(res.json().error.details.allowed).toEqual(['RUNNING', 'BLOCKED', 'AWAITING_APPROVAL', 'HELD']);
    const doc = (await h.request('GET', '/docs/openapi.json')).json();
    const list = doc.paths['/api/v1/console/conversations'].get;
    const item = list.responses['200'].content['application/json'].schema.properties.items.items;
    expect(item.properties.status.enum).toEqual(['RUNNING', 'BLOCKED', 'AWAITING_APPROVAL', 'HELD']);
  });
});
