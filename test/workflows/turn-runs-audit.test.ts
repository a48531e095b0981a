import { recordOperatorAction } from '../../api/console/queries';
import { turnAudits } from '../../api/console/queries';
import { conversationQueries } from '../../api/db-queries';
import type { TurnReply } from '../../api/ports';
import { listAudits, type StoredAudit } from '../../db/repositories/audit';
import { answer, callTool, orderConfig } from '../support/order-config';
import { WorkflowHarness } from '../support/workflow-harness';

const MESSAGE = 'Check order ORD-7017 status.';
/** A request the model's API refuses for good: the SDK does not retry it, nor does Temporal (non-retryable). */
const REFUSED = { kind: 'PLAN', error: { status: 400, message: 'bad request' } };

function expectKind<K extends TurnReply['kind']>(reply: TurnReply, kind: K): Extract<TurnReply, { kind: K }> {
  if (reply.kind !== kind) throw new Error(`expected a ${kind} turn, got ${JSON.stringify(reply)}`);
  return reply as Extract<TurnReply, { kind: K }>;
}

const runsOf = (rows: readonly StoredAudit[]) => [...new Set(rows.flatMap((r) => (r.runId ? [r.runId] : [])))];

/**
 * Each Temporal run of a turn has audit rows of its own. The audit stream (SSE, Last-Event-ID) reads rows
 * after the last id it sent, so a run that rewrote an earlier run's rows in place (keeping their ids) was never
 * streamed, and the failed run's trail was gone.
 */
describe('audit rows per run of a turn (activities/runtime/audit-writer.ts, real worker)', () => {
  let h: WorkflowHarness;
  beforeAll(async () => {
    h = await WorkflowHarness.start();
    await h.mcp.configure(orderConfig());
  });
  afterAll(async () => h?.stop());
  beforeEach(() => h.mcp.llm.setScript([]));

  it("an operator's action on a failed turn, written after its failure row, leaves it FAILED in lastTurn", async () => {
    const conversationId = crypto.randomUUID();
    h.mcp.llm.setScript([REFUSED]);
    const failed = expectKind(await h.send({ conversationId, message: MESSAGE }), 'FAILED');
    const action = { workflowId: failed.ref.workflowId, conversationId, turnNumber: 1, actionId: 'a-1', payload: {} };
    await recordOperatorAction(h.mcp.deps.db, action);
    expect((await listAudits(h.mcp.deps.db, conversationId)).at(-1)?.stage).toBe('OPERATOR_ACTION');
    const { lastTurn } = (await conversationQueries(h.mcp.deps.db).conversation(conversationId)) ?? {};
    expect(lastTurn).toMatchObject({ turnNumber: 1, status: 'FAILED' });
  });

  it("a failed turn retried by an operator keeps the failed run's rows and appends the retry's after them", async () => {
    const conversationId = crypto.randomUUID();
    h.mcp.llm.setScript([REFUSED]);
    const failed = expectKind(await h.send({ conversationId, message: MESSAGE }), 'FAILED');
    const failedRows = await listAudits(h.mcp.deps.db, conversationId);
    const streamedUpTo = failedRows.at(-1)?.auditId ?? 0;
    const queries = conversationQueries(h.mcp.deps.db);
    expect((await queries.conversation(conversationId))?.lastTurn).toMatchObject({ turnNumber: 1, status: 'FAILED' });

    h.mcp.llm.setScript([callTool('mock.order.status', { orderId: 'ORD-7017' }), answer('Order submitted.')]);
    // What POST /api/v1/admin/turns/{workflowId}/retry runs.
    expectKind(await h.gateway().retryTurn(failed.ref.workflowId), 'COMPLETED');

    const all = await listAudits(h.mcp.deps.db, conversationId);
    // The failed run's rows are as the stream sent them: same ids, stages, payloads and times.
    expect(all.filter((r) => r.auditId <= streamedUpTo)).toEqual(failedRows);
    const [firstRun, secondRun] = runsOf(all);
    expect(runsOf(all)).toHaveLength(2);
    expect(failedRows.every((r) => r.runId === firstRun)).toBe(true);
    // Everything the retry wrote comes after the last row the stream had sent: a resumed stream gets all of it.
    const retryRows = all.filter((r) => r.runId === secondRun);
    const afterCursor = await listAudits(h.mcp.deps.db, conversationId, { afterAuditId: streamedUpTo });
    expect(afterCursor).toEqual(retryRows);
    expect(retryRows.map((r) => r.stage)).toEqual(expect.arrayContaining(['USER_INPUT', 'ENGINE_RETURN']));
    expect(failedRows.map((r) => r.stage)).toEqual(expect.arrayContaining(['USER_INPUT', 'ENGINE_KNOWN_FAILURE']));
    expect((await queries.conversation(conversationId))?.lastTurn).toEqual({ turnNumber: 1, status: 'COMPLETED' });
    // The console's turn view: each row with its run, and its step call read past the run in the key.
    const story = await turnAudits(h.mcp.deps.db, conversationId, 1);
    expect(story.map((r) => r.runId)).toEqual(all.map((r) => r.runId));
    expect(story.filter((r) => r.stage === 'USER_INPUT').map((r) => r.callKey)).toEqual([
      expect.stringMatching(/^\d+-[A-Za-z]+$/),
      expect.stringMatching(/^\d+-[A-Za-z]+$/),
    ]);
  });

  it("an activity retried within its run leaves exactly its last attempt's rows, plus a STEP_ERROR per failed attempt", async () => {
    const conversationId = crypto.randomUUID();
    // Three 529s: more than the SDK's two retries, so the planner activity's first attempt fails and Temporal retries it.
    const overloaded = { kind: 'PLAN', error: { status: 529 }, times: 3 };
    h.mcp.llm.setScript([overloaded, answer('Order submitted.')]);
    expectKind(await h.send({ conversationId, message: MESSAGE }), 'COMPLETED');

    const rows = await listAudits(h.mcp.deps.db, conversationId);
    expect(runsOf(rows)).toHaveLength(1);
    expect(new Set(rows.map((r) => r.idempotencyKey)).size).toBe(rows.length);
    const errors = rows.filter((r) => r.stage === 'STEP_ERROR');
    expect(errors.map((r) => r.idempotencyKey)).toEqual([expect.stringMatching(/McpTool-plan-1\/error-1$/)]);
    const planCall = errors[0]?.idempotencyKey.replace(/error-1$/, '') ?? '';
    const planRows = rows.filter((r) => r.idempotencyKey.startsWith(planCall) && r.stage !== 'STEP_ERROR');
    expect(planRows.filter((r) => r.stage === 'STEP_ENTER')).toHaveLength(1);
    expect(planRows.filter((r) => r.stage === 'STEP_EXIT')).toHaveLength(1);
  });
});
