import { temporal } from '@temporalio/proto';
import { sql } from 'drizzle-orm';
import { ClaimCheckError } from '../../db/claims/codec';
import { activityEntries } from '../support/history';
import { answer, callTool, orderConfig } from '../support/order-config';
import { WorkflowHarness } from '../support/workflow-harness';

const FIVE_MB = 5 * 1024 * 1024;
const HISTORY_BUDGET_BYTES = 200 * 1024;

const historyBytes = (events: temporal.api.history.v1.IHistoryEvent[]) =>
  temporal.api.history.v1.History.encode({ events }).finish().byteLength;

describe('history budget: large payloads become claim checks (issue #13, item 7)', () => {
  let h: WorkflowHarness;
  beforeAll(async () => {
    h = await WorkflowHarness.start();
  });
  afterAll(async () => h?.stop());

  it('a 5 MB tool result: the turn completes and its history stays under 200 KiB', async () => {
    await h.mcp.configure(orderConfig());
    const blob = 'x'.repeat(FIVE_MB);
    h.mcp.setHandlers({ 'mock.order.status': async () => ({ orderId: 'ORD-7017', status: 'SHIPPED', trace: blob }) });
    h.mcp.llm.setScript([callTool('mock.order.status', { orderId: 'ORD-7017' }), answer('Order shipped.')]);
    const reply = await h.send({ message: 'Check order ORD-7017 status and trace.' });
    if (reply.kind !== 'COMPLETED') throw new Error(`expected a completed turn, got ${reply.kind}`);
    expect(reply.result).toMatchObject({ state: 'COMPLETED', outcome: 'ANSWERED' });
    expect(JSON.stringify(reply.result.context)).toContain(blob);

    const events = await h.history(reply.ref.workflowId);
    const bytes = historyBytes(events);
    console.log(`5 MB tool result: ${events.length} events, ${(bytes / 1024).toFixed(1)} KiB of history`);
    expect(bytes).toBeLessThan(HISTORY_BUDGET_BYTES);
    const tool = activityEntries(events).find((a) => a.type === 'McpToolCall');
    expect(tool?.result).toEqual({
      claim: { sha256: expect.stringMatching(/^[0-9a-f]{64}$/), sizeBytes: expect.any(Number) },
    });
    expect((tool?.result as { claim: { sizeBytes: number } }).claim.sizeBytes).toBeGreaterThan(FIVE_MB);

    // What the reference names is in the claim table, once per distinct body.
    const { rows } = await h.mcp.db.pool.query<{ n: number; biggest: number }>(
      'SELECT count(*)::int AS n, max(size_bytes) AS biggest FROM ce_payload_claim'
    );
    expect(rows[0]?.n).toBeGreaterThan(0);
    expect(rows[0]?.biggest).toBeGreaterThan(FIVE_MB);
  });

  it('a reference to a claim that is gone fails with a clear error, and nothing crashes', async () => {
    await h.mcp.configure(orderConfig());
    h.mcp.setHandlers({ 'mock.order.status': async () => ({ orderId: 'ORD-1', trace: 'y'.repeat(64 * 1024) }) });
    h.mcp.llm.setScript([callTool('mock.order.status', { orderId: 'ORD-1' }), answer('Done.')]);
    const reply = await h.send({ message: 'Check order ORD-1 status.' });
    expect(reply.kind).toBe('COMPLETED');
    await h.mcp.deps.db.execute(sql`DELETE FROM ce_payload_claim`);

    const result = h.client.workflow.getHandle(reply.ref.workflowId).result();
    await expect(result).rejects.toThrow(ClaimCheckError);
    await expect(result).rejects.toThrow(/payload claim sha256:[0-9a-f]{64} is not in ce_payload_claim/);
    // The harness's worker and client still serve the next turn.
    h.mcp.setHandlers({});
    h.mcp.llm.setScript([callTool('mock.order.status', { orderId: 'ORD-7017' }), answer('Order submitted.')]);
    expect((await h.send({ message: 'Check order ORD-7017 status.' })).kind).toBe('COMPLETED');
  });
});
