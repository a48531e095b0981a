import type { JsonObject } from '../../core/json';
import { McpHarness } from '../support/mcp-harness';
import { expectInOrder } from '../support/pipeline-harness';
import { extracted, LOAN, loanConfig, plan } from '../support/loan-config';
import { answer } from '../support/order-config';

const MESSAGE = 'Apply loan for customer CUST-1001, amount 350000 for 36 months.';
const ROUTES = {
  rating: '/loan/credit-rating',
  fraud: '/loan/fraud-check',
  debt: '/loan/debt-summary',
  submit: '/loan/applications',
};

function mcpOf(context: JsonObject): JsonObject {
  return context['mcp'] as JsonObject;
}

describe('Example 2: conditional loan chain over HTTP tools (§12.4, §14 #57, D16)', () => {
  let h: McpHarness;
  beforeAll(async () => {
    h = await McpHarness.start();
  });
  afterAll(async () => h.stop());
  beforeEach(async () => {
    h.llm.setScript([]);
    h.llm.clearRequests();
    h.toolServer.counters.reset();
    await h.configure(loanConfig());
  });
  afterEach(() => expect(h.llm.unconsumed()).toEqual([]));

  function requests(): Record<keyof typeof ROUTES, number> {
    const c = h.toolServer.counters;
    return {
      rating: c.requests(ROUTES.rating),
      fraud: c.requests(ROUTES.fraud),
      debt: c.requests(ROUTES.debt),
      submit: c.requests(ROUTES.submit),
    };
  }

  it('full chain: rating → fraud → debt → submit → ANSWER in exactly five planner calls', async () => {
    h.llm.setScript([
      extracted('CUST-1001'),
      plan('loan.credit.rating.check', 'CUST-1001'),
      plan('loan.credit.fraud.check', 'CUST-1001'),
      plan('loan.debt.credit.summary', 'CUST-1001'),
      plan('loan.application.submit', 'CUST-1001', { requestedAmount: 350000, tenureMonths: 36 }),
      answer('Loan application submitted successfully. Application ID: LA-90311.'),
    ]);
    const result = await h.turn({ message: MESSAGE });
    expect(result).toMatchObject({
      intent: LOAN,
      state: 'COMPLETED',
      payload: { value: 'Loan application submitted successfully. Application ID: LA-90311.' },
    });
    expect(requests()).toEqual({ rating: 1, fraud: 1, debt: 1, submit: 1 });
    const mcp = mcpOf(result.context);
    expect(mcp).toMatchObject({ toolExecutionAbrupted: false, finalAnswerDetermined: true });
    const results = (mcp['observations'] as JsonObject[]).map((o) => (o['result'] as JsonObject)['mapped']);
    expect(results).toEqual([
      { customerId: 'CUST-1001', creditRating: 782 },
      { customerId: 'CUST-1001', flagged: false },
      { customerId: 'CUST-1001', dti: 0.31, availableCredit: 220000 },
      { applicationId: 'LA-90311', status: 'SUBMITTED' },
    ]);
    const key = `turn-${result.conversationId}-1/tool/4`;
    expect(h.toolServer.counters.log.find((l) => l.route === ROUTES.submit)?.headers['idempotency-key']).toBe(key);
    expect(h.toolServer.counters.writeEffects(key)).toBe(1);
    expect(
      h.toolServer.counters.log
        .filter((l) => l.method === 'GET')
        .every((l) => l.headers['idempotency-key'] === undefined)
    ).toBe(true);
  });

  it.each([
    [
      'low rating',
      'CUST-LOW-7',
      ['loan.credit.rating.check'],
      'Rejected: credit rating 640 is below 750.',
      { rating: 1, fraud: 0, debt: 0, submit: 0 },
    ],
    [
      'fraud hit',
      'CUST-FRAUD-7',
      ['loan.credit.rating.check', 'loan.credit.fraud.check'],
      'Rejected: fraud check flagged the customer.',
      { rating: 1, fraud: 1, debt: 0, submit: 0 },
    ],
    [
      'poor affordability',
      'CUST-DEBT-7',
      ['loan.credit.rating.check', 'loan.credit.fraud.check', 'loan.debt.credit.summary'],
      'Manual review: debt-to-income 0.72 is above 0.65.',
      { rating: 1, fraud: 1, debt: 1, submit: 0 },
    ],
  ] as const)('57/branches: %s stops the chain early', async (_name, customerId, tools, text, expected) => {
    h.llm.setScript([extracted(customerId), ...tools.map((t) => plan(t, customerId)), answer(text)]);
    const result = await h.turn({ message: MESSAGE });
    expect(result).toMatchObject({ state: 'COMPLETED', payload: { value: text } });
    expect(requests()).toEqual(expected);
    const stages = await h.stages(result.conversationId);
    expect(stages.filter((s) => s === 'MCP_TOOL_CALL')).toHaveLength(tools.length);
    const last = (mcpOf(result.context)['observations'] as JsonObject[]).at(-1)?.['result'] as JsonObject;
    if (customerId.includes('LOW')) expect(last['mapped']).toMatchObject({ creditRating: 640 });
    if (customerId.includes('FRAUD')) expect(last['mapped']).toMatchObject({ flagged: true });
    if (customerId.includes('DEBT')) expect(last['mapped']).toMatchObject({ dti: 0.72 });
  });

  describe('human approval of the write tool (D16)', () => {
    beforeEach(async () => h.configure(loanConfig({ submitNeedsApproval: true })));

    const script = (customerId: string, finalAnswer?: string) => [
      extracted(customerId),
      plan('loan.credit.rating.check', customerId),
      plan('loan.application.submit', customerId),
      ...(finalAnswer ? [answer(finalAnswer)] : []),
    ];

    it('runs the write exactly once after approval', async () => {
      h.llm.setScript(script('CUST-1001', 'Submitted LA-90311.'));
      const asked: JsonObject[] = [];
      const result = await h.turn(
        { message: MESSAGE },
        {
          approve: async (request) => (
            asked.push(request as unknown as JsonObject),
            { decision: 'APPROVED', reason: null, decidedBy: 'ops-lead' }
          ),
        }
      );
      expect(asked).toEqual([
        {
          toolCode: 'loan.application.submit',
          args: { customerId: 'CUST-1001' },
          callIndex: 2,
          sideEffect: 'IDEMPOTENT_WRITE',
          timeoutMs: 60000,
        },
      ]);
      expect(result.payload.value).toBe('Submitted LA-90311.');
      expect(h.toolServer.counters.totalWriteEffects()).toBe(1);
      expectInOrder(await h.stages(result.conversationId), [
        'MCP_TOOL_APPROVAL_REQUESTED',
        'MCP_TOOL_APPROVAL_GRANTED',
        'MCP_TOOL_CALL',
        'MCP_TOOL_RESULT',
      ]);
      expect(await h.payload(result.conversationId, 'MCP_TOOL_APPROVAL_GRANTED')).toMatchObject({
        decided_by: 'ops-lead',
      });
    });

    it.each([
      ['REJECTED', 'APPROVAL_REJECTED', 'rejected by the approver'],
      ['EXPIRED', 'APPROVAL_EXPIRED', 'not approved in time'],
    ] as const)('never runs the write when the decision is %s', async (decision, status, text) => {
      h.llm.setScript(script('CUST-1001'));
      const result = await h.turn(
        { message: MESSAGE },
        { approve: async () => ({ decision, reason: null, decidedBy: null }) }
      );
      expect(h.toolServer.counters.requests(ROUTES.submit)).toBe(0);
      expect(mcpOf(result.context)).toMatchObject({
        lifecycle: { status, outcome: 'BLOCKED', blocked: true, errorMessage: status },
      });
      expect(String(mcpOf(result.context)['finalAnswer'])).toContain(text);
      expect(await h.stages(result.conversationId)).toContain(`MCP_TOOL_${status}`);
    });
  });
});
