import type { StoredAudit } from '../../db/repositories/audit';
import type { Json, JsonObject } from '../../core/json';
import { FAILED_DIRECT_REPEAT_PATCH } from '../../workflows/turn-versions';
import { decisionLog, patchesRecorded, stepRuns } from '../support/history';
import { answer, callTool, orderConfig } from '../support/order-config';
import { replayHistoryOf } from '../support/workflow-bundle';
import { WorkflowHarness } from '../support/workflow-harness';

/**
 * §6.9: the MCP step still runs after a failed direct tool call, but its planner may not send that call again in the
 * same turn. Here the upstream asks to wait an hour (429, Retry-After 3600, far above max_backoff_ms): a second
 * request within the turn is exactly what it asked not to get.
 */
const MESSAGE = 'Check order ORD-7017 status.';
const ARGS = { orderId: 'ORD-7017' };
const TOOL_REQUEST = { tool_request: { tool_code: 'mock.order.status', args: ARGS } };
const STATUS_ROUTE = '/orders/status';

function completed(reply: Awaited<ReturnType<WorkflowHarness['send']>>) {
  if (reply.kind !== 'COMPLETED') throw new Error(`expected a completed turn, got ${JSON.stringify(reply)}`);
  return reply;
}

/** A row as both runners write it: stage and payload, without what differs between any two runs. */
function comparable(rows: StoredAudit[]): [string, Json][] {
  const volatile = new Set(['_meta', 'durationMs', 'totalMs', 'steps', 'latencyMs', 'turnId', 'conversationId']);
  const strip = (value: Json): Json => {
    if (Array.isArray(value)) return value.map(strip);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (volatile.has(k) ? [] : [[k, strip(v)]])));
  };
  return rows.map((row) => [row.stage, strip(row.payload as Json)]);
}

describe('the planner does not repeat a direct tool call its tool failed this turn (§6.9)', () => {
  let h: WorkflowHarness;
  beforeAll(async () => {
    h = await WorkflowHarness.start();
  });
  afterAll(async () => h?.stop());
  beforeEach(async () => {
    await h.mcp.configure(orderConfig());
    h.mcp.setHandlers({});
    h.mcp.toolServer.counters.reset();
    h.mcp.toolServer.faults.set(STATUS_ROUTE, { failTimes: 1_000, status: 429, retryAfter: '3600' });
  });
  afterEach(() => {
    h.mcp.toolServer.faults.clear(STATUS_ROUTE);
    expect(h.mcp.llm.unconsumed()).toEqual([]);
  });

  it('upstream asked to wait: one request in the turn, the repeat refused and audited, the failure answered', async () => {
    h.mcp.llm.setScript([callTool('mock.order.status', { ...ARGS })]);
    const reply = completed(await h.send({ message: MESSAGE, inputParams: TOOL_REQUEST }));
    expect(h.mcp.toolServer.counters.requests(STATUS_ROUTE)).toBe(1);
    expect(reply.result).toMatchObject({
      state: 'COMPLETED',
      outcome: 'TOOL_ERROR',
      payload: { value: 'Done: Tool execution failed' },
    });
    const mcp = reply.result.context['mcp'] as JsonObject;
    expect(mcp['toolExecution']).toMatchObject({ status: 'ERROR', errorSource: 'TOOL', errorType: 'TOOL_HTTP_ERROR' });
    expect(mcp['lifecycle']).toMatchObject({ status: 'TOOL_ERROR', error: true });

    const { conversationId } = reply.result;
    const audits = await h.mcp.audits(conversationId, 1);
    const payloadOf = (stage: string) => audits.find((a) => a.stage === stage)?.payload;
    expect(String(payloadOf('TOOL_ORCHESTRATION_ERROR')?.['error'])).toContain('asks to wait 3600 s (Retry-After)');
    expect(payloadOf('MCP_TOOL_REPEAT_REFUSED')).toMatchObject({
      tool_code: 'mock.order.status',
      args: ARGS,
      reason: 'DIRECT_TOOL_CALL_FAILED',
      error_type: 'TOOL_HTTP_ERROR',
    });
    expect(payloadOf('TURN_DECISION')).toMatchObject({ kind: 'REPEAT_REFUSED', reason: 'DIRECT_TOOL_CALL_FAILED' });

    const history = await h.history(reply.ref.workflowId);
    expect(stepRuns(history).filter((a) => a.type === 'McpToolCall')).toHaveLength(0);
    expect(decisionLog(history)).toEqual(['REPEAT_REFUSED: tool=mock.order.status reason=DIRECT_TOOL_CALL_FAILED']);
    expect(patchesRecorded(history)).toEqual([FAILED_DIRECT_REPEAT_PATCH]);
    await expect(replayHistoryOf(h.client.workflow.getHandle(reply.ref.workflowId))).resolves.toBeUndefined();

    // The in-process runner decides the same, row for row.
    h.mcp.llm.setScript([callTool('mock.order.status', { ...ARGS })]);
    const inProcess = await h.mcp.turn({ message: MESSAGE, inputParams: TOOL_REQUEST });
    expect(h.mcp.toolServer.counters.requests(STATUS_ROUTE)).toBe(2);
    expect([inProcess.outcome, inProcess.payload]).toEqual([reply.result.outcome, reply.result.payload]);
    expect(comparable(await h.mcp.audits(inProcess.conversationId, 1))).toEqual(comparable(audits));
  });

  it('other arguments are another call: the planner sends it', async () => {
    h.mcp.toolServer.faults.set(STATUS_ROUTE, { failTimes: 1, status: 429, retryAfter: '3600' });
    h.mcp.llm.setScript([callTool('mock.order.status', { orderId: 'ORD-7018' }), answer('ORD-7018 is SUBMITTED.')]);
    const reply = completed(await h.send({ message: MESSAGE, inputParams: TOOL_REQUEST }));
    expect(h.mcp.toolServer.counters.requests(STATUS_ROUTE)).toBe(2);
    expect(decisionLog(await h.history(reply.ref.workflowId))).toEqual([]);
  });
});
