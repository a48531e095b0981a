import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpHarness } from '../support/mcp-harness';
import { answer, callTool, orderConfig, ORDER_HTTP_TOOLS } from '../support/order-config';
import { planner } from '../../db/seed/builders';

/** An upstream answering every request with `body`. */
async function upstream(body: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/trace`, stop: () => new Promise<void>((r) => server.close(() => r())) };
}

const BODY = JSON.stringify({ orderId: 'ORD-28', status: 'S'.repeat(1_900_000) });

describe('a tool result under the 2 MiB cap costs a bounded amount of audit and prompt', () => {
  let h: McpHarness;
  beforeAll(async () => {
    h = await McpHarness.start();
  });
  afterAll(async () => h.stop());

  it('stores the 1.9 MB result in the rows that carry it, not in every row, and cuts {{context}} in the prompt', async () => {
    const up = await upstream(BODY);
    try {
      const rows = orderConfig();
      rows.mcpHttpTools = ORDER_HTTP_TOOLS.map((r) => (r.toolId === 5002 ? { ...r, urlTemplate: up.url } : r));
      // The demo pack's planner reads the whole context, as the sweep's did.
      rows.mcpPlanners = (rows.mcpPlanners ?? []).map((p) =>
        planner({ ...p, userPrompt: `${p.userPrompt}\nFull context: {{context}}` })
      );
      await h.configure(rows);
      h.llm.setScript([callTool('mock.order.async.trace', { orderId: 'ORD-28' }), answer('done')]);
      h.llm.clearRequests();
      const result = await h.turn({ message: 'check ORD-28' });
      expect(result.state).toBe('COMPLETED');
      const prompts = h.llm.requestsOf('PLAN').map((r) => JSON.stringify(r).length);
      expect(prompts).toHaveLength(2);
      // Each placeholder at most 65,536 characters (PROMPT_VALUE_MAX_CHARS): {{context}} once, the rest small.
      expect(Math.max(...prompts)).toBeLessThan(200_000);
      expect(JSON.stringify(h.llm.requestsOf('PLAN')[1])).toMatch(/…\[cut: 65536 of \d+ characters shown\]/);
      const audits = await h.audits(result.conversationId);
      const bytes = audits.reduce((sum, a) => sum + JSON.stringify(a.payload).length, 0);
      // MCP_TOOL_RESULT (the result) and ENGINE_RETURN (the committed reply): two copies, and the rest small.
      expect(bytes).toBeLessThan(2 * BODY.length + 1_000_000);
      const elided = audits.filter((a) => a.stage.startsWith('RULE_MATCH') || a.stage === 'ASSISTANT_OUTPUT');
      expect(elided.length).toBeGreaterThan(0);
      for (const row of elided) expect(row.payload['context']).toMatchObject({ bytes: expect.any(Number) });
    } finally {
      await up.stop();
    }
  });
});
