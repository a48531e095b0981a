/**
 * docs/runbook.md §9 (cancel, terminate, batch terminate) and a reset of a running turn, with the real `temporal`
 * CLI and server, seen through the API as a user and an operator see it: a turn ended on purpose answers 409, not
 * retryable, in its POST, a replay of its Idempotency-Key and GET /conversation/{id}, and waits on no approval; the
 * admin route runs it again. A reset is no end: the POST waiting on the turn answers for the run that commits.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { committedTurnCount } from '../../db/repositories/conversation';
import { eventually } from '../devserver/harness';
import { ApiHarness } from '../support/api-harness';
import { answer, callTool, orderConfig } from '../support/order-config';
import { runRecipe } from '../support/runbook';
import { temporalCliBinary } from '../support/temporal';

const ORDER_MESSAGE = 'Check order ORD-7017 status.';

jest.setTimeout(180_000);

let h: ApiHarness;
/** How many times the order tool ran; its first call waits until released. */
let toolCalls = 0;
let releaseFirstCall: () => void = () => undefined;
beforeAll(async () => {
  h = await ApiHarness.start();
});
afterEach(() => releaseFirstCall());
afterAll(async () => h?.stop());

/** A message whose turn is in its order tool call (which waits until released) when this resolves. */
async function turnInSlowToolCall() {
  await h.wf.mcp.configure(orderConfig());
  toolCalls = 0;
  h.wf.mcp.setHandlers({
    'mock.order.status': async () => {
      toolCalls += 1;
      if (toolCalls === 1) await new Promise<void>((resolve) => (releaseFirstCall = resolve));
      return { status: 'SUBMITTED', orderId: 'ORD-7017' };
    },
  });
  h.wf.mcp.llm.setScript([
    callTool('mock.order.status', { orderId: 'ORD-7017' }),
    answer('Order ORD-7017 is SUBMITTED.'),
  ]);
  const id = crypto.randomUUID();
  const key = `k-${id}`;
  const waiting = h.sendMessage(ORDER_MESSAGE, id, key);
  await eventually(async () => expect(toolCalls).toBe(1), 30_000);
  return { id, key, turn: `turn-${id}-1`, waiting };
}

test.each([
  ['cancel', 'TURN_CANCELLED'],
  ['terminate', 'TURN_TERMINATED'],
])('end-turn (%s): 409 %s in the POST, its replay and GET; the admin retry runs it again', async (how, type) => {
  const { id, key, turn, waiting } = await turnInSlowToolCall();
  await runRecipe(h.wf.temporal, 'end-turn', { TURN: turn, HOW: how });

  const ended = { code: 'TURN_FAILED', details: { failureType: type, retryable: false } };
  for (const answered of [await waiting, await h.sendMessage(ORDER_MESSAGE, id, key)]) {
    expect({ status: answered.status, error: answered.json().error }).toMatchObject({ status: 409, error: ended });
  }
  expect((await h.conversation(id)).lastTurn).toEqual({
    turnNumber: 1,
    status: 'FAILED',
    failureType: type,
    retryable: false,
  });
  // A cancelled turn is found by its TurnOutcome, as a failed one by FAILED (runbook §1).
  if (how === 'cancel') {
    const query = `TurnOutcome = 'CANCELLED' AND WorkflowId = '${turn}'`;
    await eventually(async () => {
      const found: string[] = [];
      for await (const run of h.wf.client.workflow.list({ query })) found.push(run.status.name);
      expect(found).toEqual(['CANCELLED']);
    }, 20_000);
  }

  releaseFirstCall();
  const retried = await h.request('POST', `/api/v1/admin/turns/${turn}/retry`);
  expect(retried.status).toBe(200);
  expect(await committedTurnCount(h.wf.mcp.deps.db, id)).toBe(1);
});

test('end-turns-batch terminates the parked turns its query finds: no approval is pending, deciding one gets 409', async () => {
  const id = crypto.randomUUID();
  const turn = `turn-${id}-1`;
  expect((await h.parkOnApproval(id)).status).toBe(202);
  // Narrowed to this conversation: other test files share the server.
  const query = `TurnOutcome="AWAITING_APPROVAL" AND ExecutionStatus="Running" AND ConversationId="${id}"`;
  await eventually(async () => expect((await h.wf.client.workflow.count(query)).count).toBe(1), 20_000);

  await runRecipe(h.wf.temporal, 'end-turns-batch', { QUERY: query });
  await eventually(async () => {
    expect((await h.wf.client.workflow.getHandle(turn).describe()).status.name).toBe('TERMINATED');
  }, 30_000);
  const shown = await h.conversation(id);
  expect(shown.lastTurn).toEqual({ turnNumber: 1, status: 'FAILED', failureType: 'TURN_TERMINATED', retryable: false });
  expect(shown.pendingApproval).toBeNull();
  const decided = await h.request('POST', `/api/v1/conversation/${id}/turns/1/approval`, {
    json: { decision: 'approve', callIndex: 2 },
  });
  expect({ status: decided.status, code: decided.json().error.code }).toEqual({
    status: 409,
    code: 'APPROVAL_NOT_PENDING',
  });
});

test('a turn reset during a slow tool call: its POST and a replay of its key answer the reset run, which commits', async () => {
  const { id, key, turn, waiting } = await turnInSlowToolCall();
  const firstRun = (await h.wf.client.workflow.getHandle(turn).describe()).runId;
  const { address, namespace } = h.wf.temporal;
  await promisify(execFile)(temporalCliBinary(), [
    ...['workflow', 'reset', '--workflow-id', turn, '--type', 'LastWorkflowTask', '--reason', 'sweep'],
    ...['--address', address, '--namespace', namespace],
  ]);
  releaseFirstCall();

  const answered = await waiting;
  expect(answered.status).toBe(200);
  expect(answered.json().turn).toMatchObject({ workflowId: turn, outcome: 'ANSWERED' });
  expect(answered.json().turn.runId).not.toBe(firstRun);
  expect(await committedTurnCount(h.wf.mcp.deps.db, id)).toBe(1);
  const replayed = await h.sendMessage(ORDER_MESSAGE, id, key);
  expect({ status: replayed.status, runId: replayed.json().turn?.runId }).toEqual({
    status: 200,
    runId: answered.json().turn.runId,
  });
  expect(toolCalls).toBe(2);
});
