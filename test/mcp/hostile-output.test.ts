import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ConfigRows } from '../../core/config/types';
import { McpHarness } from '../support/mcp-harness';
import { extracted, LOAN, loanConfig, plan } from '../support/loan-config';
import { answer } from '../support/order-config';

const MESSAGE = 'Apply loan for customer CUST-1001, amount 350000 for 36 months.';

/** An upstream that answers every request with `body` (status 201) and counts the requests. */
async function upstream(body: string): Promise<{ url: string; requests: () => number; stop: () => Promise<void> }> {
  let count = 0;
  const server = http.createServer((_req, res) => {
    count += 1;
    res.writeHead(201, { 'Content-Type': 'application/json' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/loan/applications`,
    requests: () => count,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The loan config with the submit tool (6004) pointed at `url`. */
function submittingTo(url: string): Partial<ConfigRows> {
  const rows = loanConfig();
  rows.mcpHttpTools = (rows.mcpHttpTools ?? []).map((r) => (r.toolId === 6004 ? { ...r, urlTemplate: url } : r));
  return rows;
}

const UP_TO_SUBMIT = [
  extracted('CUST-1001'),
  plan('loan.credit.rating.check', 'CUST-1001'),
  plan('loan.credit.fraud.check', 'CUST-1001'),
  plan('loan.debt.credit.summary', 'CUST-1001'),
  plan('loan.application.submit', 'CUST-1001', { requestedAmount: 350000, tenureMonths: 36 }),
];

describe('hostile model output and tool results are taken in, not retried into failure', () => {
  let h: McpHarness;
  beforeAll(async () => {
    h = await McpHarness.start();
  });
  afterAll(async () => h.stop());
  beforeEach(() => {
    h.llm.setScript([]);
    h.llm.clearRequests();
    h.toolServer.counters.reset();
  });

  it('a write tool whose 201 body holds a NUL is called once, its result stored with U+FFFD, and the turn completes', async () => {
    const up = await upstream('{"applicationId":"LA-1","note":"a\\u0000b"}');
    try {
      await h.configure(submittingTo(up.url));
      h.llm.setScript([...UP_TO_SUBMIT, answer('Submitted: LA-1 \u0000 done.')]);
      const result = await h.turn({ message: MESSAGE });
      expect(up.requests()).toBe(1);
      expect(result).toMatchObject({
        intent: LOAN,
        state: 'COMPLETED',
        payload: { value: 'Submitted: LA-1 \uFFFD done.' },
      });
      const results = (await h.audits(result.conversationId)).filter((a) => a.stage === 'MCP_TOOL_RESULT');
      expect(JSON.stringify(results.at(-1)?.payload)).toContain('a\uFFFDb');
    } finally {
      await up.stop();
    }
  });

  it('a tool body nested 20,000 levels is one non-retried TOOL_ERROR with its reason', async () => {
    const levels = 20_000;
    const up = await upstream(`{"applicationId":${'['.repeat(levels)}${']'.repeat(levels)}}`);
    try {
      await h.configure(submittingTo(up.url));
      h.llm.setScript(UP_TO_SUBMIT);
      const result = await h.turn({ message: MESSAGE });
      expect(up.requests()).toBe(1);
      const toolError = await h.payload(result.conversationId, 'MCP_TOOL_ERROR');
      expect(toolError).toMatchObject({
        root_cause_class: 'TOOL_EXECUTION_FAILED',
        error_message: expect.stringContaining('nested deeper than 64 levels'),
      });
    } finally {
      await up.stop();
    }
  });

  it('a planner answer whose args nest 10,000 levels is an invalid plan, recorded, not a failed turn', async () => {
    await h.configure(loanConfig());
    const levels = 10_000;
    const deepPlan = `{"action":"CALL_TOOL","tool_code":"loan.credit.rating.check","args":{"customerId":${'['.repeat(levels)}${']'.repeat(levels)}},"answer":null,"operation_tag":null}`;
    h.llm.setScript([extracted('CUST-1001'), { kind: 'PLAN', reply: deepPlan }]);
    const result = await h.turn({ message: MESSAGE });
    expect(h.llm.requestsOf('PLAN')).toHaveLength(1);
    expect(await h.payload(result.conversationId, 'MCP_PLAN_LLM_OUTPUT')).toMatchObject({ valid: false });
    expect(h.toolServer.counters.requests('/loan/credit-rating')).toBe(0);
  });
});
