/**
 * The approvers' queue (D16): GET /api/v1/admin/turns/awaiting-approval and `convengine sre approvals` list the
 * turns parked on a tool approval from Temporal's visibility (TurnOutcome=AWAITING_APPROVAL), each with the call
 * it waits on as its worker tells it, a page at a time; a decided turn leaves the queue.
 */
import { ApiHarness } from '../support/api-harness';
import { runSre } from '../support/held-turn-suite';
import { extracted, LOAN, LOAN_MESSAGE, loanConfig, plan } from '../support/loan-config';
import { answer } from '../support/order-config';

const URL = '/api/v1/admin/turns/awaiting-approval';
const SUBMIT = 'loan.application.submit';
const APPROVAL_TIMEOUT_MS = 600_000;

interface Listed {
  workflowId: string;
  approval: { toolCode: string; callIndex: number; requestedAt: string | null; expiresAt: string } | null;
}

describe('the turns awaiting approval', () => {
  let h: ApiHarness;
  const auth = { authorization: 'Bearer approver-token' };
  const send = (json: unknown) => h.request('POST', '/api/v1/conversation/message', { json, headers: auth });
  const list = (query = '') => h.request('GET', `${URL}${query}`, { headers: auth });
  /** Parks a turn on the submit's approval: its 202. */
  const park = async (customerId: string) => {
    h.wf.mcp.llm.setScript([extracted(customerId), plan(SUBMIT, customerId), answer('Not submitted.')]);
    const parked = await send({ message: LOAN_MESSAGE });
    expect([parked.status, parked.json().turn.outcome]).toEqual([202, 'AWAITING_APPROVAL']);
    return parked.json();
  };
  const decide = (turn: { conversationId: string; turn: { number: number }; approval: { callIndex: number } }) =>
    h.request('POST', `/api/v1/conversation/${turn.conversationId}/turns/${turn.turn.number}/approval`, {
      json: { decision: 'reject', callIndex: turn.approval.callIndex, decidedBy: 'approver-ann' },
      headers: auth,
    });

  beforeAll(async () => {
    h = await ApiHarness.start({ apiToken: 'approver-token' });
    await h.wf.mcp.configure(loanConfig({ submitNeedsApproval: true, approvalTimeoutMs: APPROVAL_TIMEOUT_MS }));
  });
  afterAll(async () => h?.stop());

  it('lists a parked turn with its call, when it was asked and when it expires; a decided one leaves it', async () => {
    expect((await h.request('GET', URL)).status).toBe(401);
    const parked = await park('CUST-1001');
    const { workflowId } = parked.turn;

    const res = await list();
    expect(res.status).toBe(200);
    const entry = res.json().turns.find((t: Listed) => t.workflowId === workflowId);
    expect(entry).toMatchObject({
      conversationId: parked.conversationId,
      turnNumber: 1,
      intent: LOAN,
      approval: {
        toolCode: SUBMIT,
        callIndex: parked.approval.callIndex,
        expiresAt: parked.approval.expiresAt,
        decideWith: { method: 'POST', url: parked.approval.decideWith.url },
      },
    });
    expect(Date.parse(entry.approval.expiresAt) - Date.parse(entry.approval.requestedAt)).toBe(APPROVAL_TIMEOUT_MS);

    const cli = h.wf.serverArgs();
    const sre = await runSre(['approvals', ...cli]);
    // Exit 1 only for turns it cannot read: on the real server the namespace is shared with other suites, whose
    // parked turns can outlive their workers. This turn's worker runs, so it is read (below) and not among them.
    expect(sre.err.every((line) => /^cannot read the pending call of [1-9]\d* turn\(s\): no worker/.test(line))).toBe(
      true
    );
    expect(sre.code).toBe(sre.err.length === 0 ? 0 : 1);
    const at = sre.out.indexOf(`${workflowId}  ${SUBMIT} (call ${parked.approval.callIndex}) awaits approval`);
    expect(at).toBeGreaterThanOrEqual(0);
    expect(sre.out.slice(at + 1, at + 3)).toEqual([
      `  conversation ${parked.conversationId} turn 1, at ${LOAN} / ${entry.state} (${workflowId})`,
      `  requested ${entry.approval.requestedAt}, expires ${entry.approval.expiresAt}`,
    ]);
    // The held turns' list says that turns await approval, which it does not list.
    const held = await runSre(['list', ...cli]);
    expect(held.out).toContainEqual(
      expect.stringMatching(/^[1-9][0-9]* turn\(s\) await a tool approval: convengine sre approvals$/)
    );
    const json = await runSre(['approvals', '--json', ...cli]);
    expect(json.out.map((l) => JSON.parse(l) as Listed)).toContainEqual(entry);

    expect((await decide(parked)).status).toBe(200);
    const after = (await list()).json().turns.map((t: Listed) => t.workflowId);
    expect(after).not.toContain(workflowId);
    expect((await runSre(['approvals', ...cli])).out.join('\n')).not.toContain(workflowId);
  });

  it('pages by `limit` and `next` (and its Link header) through every parked turn; a forged cursor is 400', async () => {
    const parked = [await park('CUST-2001'), await park('CUST-2002')];
    const seen: string[] = [];
    const cursors: string[] = [];
    let query = '?limit=1';
    for (let pages = 0; query && pages < 50; pages++) {
      const res = await list(query);
      expect(res.status).toBe(200);
      const page = res.json();
      expect(page.limit).toBe(1);
      expect(page.turns.length).toBeLessThanOrEqual(1);
      seen.push(...page.turns.map((t: Listed) => t.workflowId));
      if (page.next) expect(res.headers.get('link')).toBe(`<${URL}?limit=1&after=${page.next}>; rel="next"`);
      else expect(res.headers.get('link')).toBeNull();
      if (page.next) cursors.push(page.next);
      query = page.next ? `?limit=1&after=${page.next}` : '';
    }
    expect(seen).toEqual(expect.arrayContaining(parked.map((p) => p.turn.workflowId)));
    expect(new Set(seen).size).toBe(seen.length);

    // Real Temporal answers a token it cannot read with UNKNOWN, and takes some it never wrote: the API tells.
    const cursor = cursors[0] ?? '';
    // A character of the check, whose bits all count (the last one's may be padding).
    const altered = `${cursor.slice(0, 4)}${cursor[4] === 'A' ? 'B' : 'A'}${cursor.slice(5)}`;
    for (const forged of ['AAAA', 'e30', cursor.slice(0, 8), altered]) {
      const res = await list(`?after=${forged}`);
      expect([forged, res.status, res.json().error.code]).toEqual([forged, 400, 'INVALID_CURSOR']);
    }
    for (const bad of ['?limit=0', '?limit=101', '?after=not%20base64', '?status=x']) {
      expect([bad, (await list(bad)).json().error.code]).toEqual([bad, 'VALIDATION_FAILED']);
    }
    for (const p of parked) expect((await decide(p)).status).toBe(200);
  });
});
