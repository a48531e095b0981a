/**
 * docs/runbook.md §4 on a turn that already committed: a `workflow reset` starts a new run of it, and the commit,
 * optimistic on the turn counter, decides what that run may do. The real server only: our dev server has no reset.
 */
import type { WorkflowHandle } from '@temporalio/client';
import Long from 'long';
import { findConversation } from '../../db/repositories/conversation';
import { recentHistory } from '../../db/repositories/history';
import { pendingApproval } from '../../api/pending-approval';
import { decideApprovalUpdate, turnProgressQuery } from '../../workflows/messages';
import { eventually } from '../devserver/harness';
import { extracted, loanConfig, plan } from '../support/loan-config';
import { answer } from '../support/order-config';
import { WorkflowHarness } from '../support/workflow-harness';

const MESSAGE = 'Apply loan for customer CUST-1001, amount 350000 for 36 months.';
const SUBMITTED = 'Loan application submitted: LA-90311.';

let h: WorkflowHarness;

jest.setTimeout(180_000);

beforeAll(async () => {
  h = await WorkflowHarness.start();
  await h.mcp.configure(loanConfig({ submitNeedsApproval: true }));
});
afterAll(async () => h?.stop());

type Events = Awaited<ReturnType<WorkflowHarness['history']>>;

const summaryOf = (event: Events[number]): string =>
  JSON.parse(Buffer.from(event.userMetadata?.summary?.data ?? Buffer.from('""')).toString('utf8')) as string;

/** The workflow task that recorded the first event `matches` finds: where §4's recipe resets to. */
function taskOf(events: Events, matches: (event: Events[number]) => boolean): string {
  const event = events.find(matches);
  const attributes = event?.markerRecordedEventAttributes ?? event?.activityTaskScheduledEventAttributes;
  if (!attributes?.workflowTaskCompletedEventId) throw new Error('no such event in the turn');
  return String(attributes.workflowTaskCompletedEventId);
}

/** `temporal workflow reset --workflow-id … --run-id … --event-id …`, as the SRE ran it: the new run's id. */
async function reset(handle: WorkflowHandle, runId: string, eventId: string): Promise<string> {
  const { namespace } = h.temporal;
  const response: { runId?: string | null } = await h.client.workflowService.resetWorkflowExecution({
    namespace,
    workflowExecution: { workflowId: handle.workflowId, runId },
    workflowTaskFinishEventId: Long.fromString(eventId),
    reason: 're-run from the approval',
    requestId: crypto.randomUUID(),
  });
  return response.runId ?? '';
}

/** A committed loan turn: parked on the submit's approval, approved, submitted. */
async function committedTurn() {
  h.mcp.llm.setScript([
    extracted('CUST-1001'),
    plan('loan.credit.rating.check', 'CUST-1001'),
    plan('loan.application.submit', 'CUST-1001'),
    answer(SUBMITTED),
  ]);
  const parked = await h.send({ message: MESSAGE });
  expect(parked.kind).toBe('AWAITING_APPROVAL');
  const { conversationId, turnNumber, workflowId } = parked.ref;
  const done = await h.gateway().decideApproval(conversationId, turnNumber, { decision: 'approve', callIndex: 2 });
  expect(done).toMatchObject({ kind: 'COMPLETED', result: { payload: { value: SUBMITTED } } });
  const handle = h.client.workflow.getHandle(workflowId);
  const runId = (await handle.describe()).runId;
  return { conversationId, turnNumber, handle, runId, events: await h.history(workflowId) };
}

async function lastPayload(conversationId: string, stage: string) {
  return (await h.mcp.audits(conversationId, 1)).filter((a) => a.stage === stage).at(-1)?.payload;
}

async function committedState(conversationId: string) {
  const conversation = await findConversation(h.mcp.deps.db, conversationId);
  return { conversation, history: await recentHistory(h.mcp.deps.db, conversationId, 10) };
}

test('a reset run that rejects the approved call fails STALE_TURN: the submitted turn stands', async () => {
  const turn = await committedTurn();
  const before = await committedState(turn.conversationId);
  expect(before.history).toHaveLength(1);
  expect(before.conversation?.lastAssistantJson).toMatchObject({ value: SUBMITTED });
  const hold = taskOf(turn.events, (e) => summaryOf(e).startsWith('McpToolHold'));

  h.mcp.llm.setScript([answer('Your loan application was rejected by the reviewer.')]);
  await reset(turn.handle, turn.runId, hold);
  await eventually(async () => {
    expect((await turn.handle.describe()).runId).not.toBe(turn.runId);
    expect(await turn.handle.query(turnProgressQuery)).toMatchObject({ status: 'AWAITING_APPROVAL' });
  }, 20_000);
  // The conversation waits on nothing: its turn 1 committed, and no rerun of it can commit anything else.
  expect(await pendingApproval(h.mcp.deps.db, turn.conversationId, 1, new Date())).toBeNull();

  const reply = await h.gateway().decideApproval(turn.conversationId, turn.turnNumber, {
    decision: 'reject',
    callIndex: 2,
  });
  expect(reply).toMatchObject({ kind: 'FAILED', failureType: 'STALE_TURN', retryable: false });
  expect(await committedState(turn.conversationId)).toEqual(before);
  const stages = await h.mcp.stages(turn.conversationId, 1);
  expect(stages.filter((s) => s === 'ENGINE_RETURN')).toHaveLength(1);
  expect(await lastPayload(turn.conversationId, 'ENGINE_KNOWN_FAILURE')).toMatchObject({
    errorCode: 'STALE_TURN',
    recoverable: false,
  });
  // A second decision goes nowhere: the rerun has ended.
  await expect(
    turn.handle.executeUpdate(decideApprovalUpdate, { args: [{ decision: 'approve', callIndex: 2 }] })
  ).rejects.toThrow();
});

test('a reset run before the commit that answers the same is a no-op: no row written twice', async () => {
  const turn = await committedTurn();
  const before = await committedState(turn.conversationId);
  const returns = (await h.mcp.stages(turn.conversationId, 1)).filter((s) => s === 'ENGINE_RETURN');
  const commit = taskOf(turn.events, (e) => summaryOf(e).startsWith('PersistConversation'));
  const newRun = await reset(turn.handle, turn.runId, commit);
  const rerun = h.client.workflow.getHandle(turn.handle.workflowId, newRun);
  expect(await rerun.result()).toMatchObject({ payload: { value: SUBMITTED } });
  expect(await committedState(turn.conversationId)).toEqual(before);
  expect((await h.mcp.stages(turn.conversationId, 1)).filter((s) => s === 'ENGINE_RETURN')).toHaveLength(
    returns.length + 1
  );
  expect(await lastPayload(turn.conversationId, 'ENGINE_RETURN')).toMatchObject({ commit: 'ALREADY_COMMITTED' });
});
