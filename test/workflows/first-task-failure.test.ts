import { WorkflowNotFoundError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { TurnReply } from '../../api/ports';
import { turnIdFor } from '../../core/turn/contracts';
import { listAudits } from '../../db/repositories/audit';
import { awaitMilestoneUpdate } from '../../workflows/messages';
import { failingForGood } from '../support/failing-steps';
import { orderConfig } from '../support/order-config';
import { replayHistoryOf } from '../support/workflow-bundle';
import { WorkflowHarness } from '../support/workflow-harness';

const EventType = temporal.api.enums.v1.EventType;
const MESSAGE = 'Check order ORD-7017 status.';

/**
 * A turn that fails in its first workflow task (a local step fails for good) while an `awaitMilestone` update
 * reaches it: its first task completes with the local steps' markers and the fail command. Our dev server refused
 * that completion (UNHANDLED_COMMAND) for the update and its retry ran every local step again; the real server
 * takes it and aborts the update, whose caller hears NOT_FOUND. Same on both now.
 */
describe('a turn that fails in its first workflow task while an update waits (real worker)', () => {
  /** PolicyEnforcement, a local step of the turn's first step run, fails for good while on. */
  const policy = { on: false, calls: 0 };
  let h: WorkflowHarness;
  beforeAll(async () => {
    h = await WorkflowHarness.start({ activities: failingForGood('PolicyEnforcement', policy, 1000) });
    await h.mcp.configure(orderConfig());
  });
  afterAll(async () => h?.stop());

  it('fails once, in its first task; the pending awaitMilestone is aborted with NOT_FOUND on both servers', async () => {
    policy.on = true;
    const conversationId = crypto.randomUUID();
    const reply: Promise<TurnReply> = h.send({ conversationId, message: MESSAGE });
    while (policy.calls === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    // The gateway's call, sent while the task runs: it reaches the run before the task completes.
    const handle = h.client.workflow.getHandle(turnIdFor(conversationId, 1));
    const pending = await handle.executeUpdate(awaitMilestoneUpdate).catch((e: unknown) => e);
    expect(await reply).toMatchObject({ kind: 'FAILED', failureType: 'STEP_REFUSED' });
    const events = await h.history(handle.workflowId);
    const stages = (await listAudits(h.mcp.deps.db, conversationId)).map((r) => r.stage);
    expect({
      updateAnswer: pending instanceof WorkflowNotFoundError ? `${pending.name}: ${pending.message}` : pending,
      failedTasks: events.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED).length,
      completedTasks: events.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED).length,
      last: events.at(-1)?.eventType,
      policyCalls: policy.calls,
      userInputRows: stages.filter((s) => s === 'USER_INPUT').length,
      failureRows: stages.filter((s) => s === 'ENGINE_KNOWN_FAILURE').length,
    }).toEqual({
      updateAnswer: 'WorkflowNotFoundError: workflow update was aborted by closing workflow',
      failedTasks: 0,
      completedTasks: 1,
      last: EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
      policyCalls: 1,
      userInputRows: 1,
      // The step reported its attempt (its own failure row, as the step runtime's failure says): the workflow wrote none.
      failureRows: 0,
    });
    await replayHistoryOf(handle);
  });
});
