/**
 * The client side of workflow updates: admitting a request (within the in-flight limit), then
 * waiting for the stage the caller asked for. The worker side is update-protocol.ts.
 */
import {
  DevServerError,
  notFound,
  requireString,
  resourceExhausted,
  workflowAlreadyCompleted,
  workflowClosing,
  workflowNotReady,
} from '../errors';
import { enums, type Message, type UpdateRequest } from '../proto/types';
import type { Engine } from './engine';
import type { PollCall } from './matching';
import { isOpen, type RunState, type UpdateStage, type UpdateState } from './state';
import { updateTopic } from './update-protocol';
import { isClosing, scheduleWorkflowTask } from './workflow-task';

const LIFECYCLE = enums.UpdateWorkflowExecutionLifecycleStage;
const STAGE_RANK: Record<UpdateStage, number> = {
  ADMITTED: LIFECYCLE.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ADMITTED,
  ACCEPTED: LIFECYCLE.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ACCEPTED,
  COMPLETED: LIFECYCLE.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_COMPLETED,
};
export interface UpdateWorkflowExecutionRequest {
  workflowExecution?: { workflowId?: string; runId?: string };
  waitPolicy?: { lifecycleStage?: number };
  request?: UpdateRequest;
}

export function updateWorkflowExecution(
  engine: Engine,
  request: UpdateWorkflowExecutionRequest,
  call: PollCall
): Promise<Message> {
  const updateId = requireString(request.request?.meta?.updateId, 'UpdateId');
  requireString(request.request?.input?.name, 'Update name');
  if (request.waitPolicy?.lifecycleStage === LIFECYCLE.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ADMITTED) {
    // As the real server answers: a caller must wait for at least ACCEPTED.
    throw new DevServerError(
      'PERMISSION_DENIED',
      'UpdateWorkflowExecution issued asynchronously and waiting on update admitted is not supported.'
    );
  }
  const run = engine.requireRun(request.workflowExecution);
  const stage = request.waitPolicy?.lifecycleStage;
  const existing = run.updates[updateId];
  // The same ID again finds the same update, closed run included: its recorded outcome, or its abort.
  if (!isOpen(run) && !existing) throw workflowAlreadyCompleted();
  if (isOpen(run)) refuseWhileUnsettled(run);
  if (existing) return waitForStage(engine, run, existing, stage, call);
  const admitted: UpdateState = {
    updateId,
    request: request.request as UpdateRequest,
    stage: 'ADMITTED',
    delivered: false,
  };
  engine.transact(() => {
    admitOneMore(engine, run);
    run.updates[updateId] = admitted;
    engine.touch(run);
    scheduleWorkflowTask(engine, run, 0, true);
  });
  return waitForStage(engine, run, admitted, stage, call);
}

/** Attempt of the run's workflow task from which the real server refuses updates (`failUpdateWorkflowTaskAttemptCount`). */
const FAILING_TASK_ATTEMPT = 3;

/**
 * What the real server checks before it looks an update up on an open run (`updateworkflow/api.go`): a workflow
 * task that keeps failing would fail the update too, and a run whose close was refused for new events is about
 * to close again once the task now running completes.
 */
function refuseWhileUnsettled(run: RunState): void {
  if ((run.wft?.attempt ?? run.nextWftAttempt) >= FAILING_TASK_ATTEMPT) {
    throw workflowNotReady('Unable to perform workflow execution update due to Workflow Task in failed state.');
  }
  if (isClosing(run)) {
    // The real server releases the run's lock with this error, which drops its cached mutable state and the
    // in-memory flag with it: the client's next try is admitted. A refused signal keeps it (`releaseFn(nil)`).
    run.closeAttempted = false;
    throw workflowClosing();
  }
}

/**
 * The real server's `history.maxInFlightUpdates` (`engine.maxInFlightUpdates`, default 10): an
 * update admitted but not yet completed counts, and one more is refused with its error
 * (RESOURCE_EXHAUSTED, cause CONCURRENT_LIMIT), which the SDK client retries.
 */
function admitOneMore(engine: Engine, run: RunState): void {
  const limit = engine.maxInFlightUpdates;
  const inFlight = Object.values(run.updates).filter((u) => u.stage !== 'COMPLETED').length;
  if (inFlight < limit) return;
  throw resourceExhausted(
    `limit on number of concurrent in-flight updates has been reached (${limit})`,
    enums.ResourceExhaustedCause.RESOURCE_EXHAUSTED_CAUSE_CONCURRENT_LIMIT
  );
}

/**
 * The error the real server gives the callers of an update aborted before it was accepted
 * (`update/abort_reason.go`): NOT_FOUND when its run closed, the retryable ErrWorkflowClosing when a new run
 * follows, FAILED_PRECONDITION (WorkflowNotReady) when the completion of the task that carried it was refused.
 */
function abortedUpdateError(update: UpdateState): DevServerError {
  switch (update.aborted) {
    case 'RUN_CONTINUING':
      return workflowClosing();
    case 'WORKFLOW_TASK_FAILED':
      return workflowNotReady('Unable to perform workflow execution update due to unexpected workflow task failure.');
    case 'RUN_CLOSED':
      return notFound('workflow update was aborted by closing workflow');
    default:
      return workflowAlreadyCompleted();
  }
}

export interface PollWorkflowExecutionUpdateRequest {
  updateRef?: { workflowExecution?: { workflowId?: string; runId?: string }; updateId?: string };
  waitPolicy?: { lifecycleStage?: number };
}

export function pollWorkflowExecutionUpdate(
  engine: Engine,
  request: PollWorkflowExecutionUpdateRequest,
  call: PollCall
): Promise<Message> {
  const updateId = requireString(request.updateRef?.updateId, 'UpdateId');
  const run = engine.requireRun(request.updateRef?.workflowExecution);
  const update = run.updates[updateId];
  if (!update) throw notFound(`update ${JSON.stringify(updateId)} not found`);
  return waitForStage(engine, run, update, request.waitPolicy?.lifecycleStage, call);
}

/** Waits on `update` itself: a rejected or aborted update leaves `run.updates`, and its ID may be admitted anew. */
async function waitForStage(
  engine: Engine,
  run: RunState,
  update: UpdateState,
  wanted: number | undefined,
  call: PollCall
): Promise<Message> {
  const target = Math.max(wanted ?? 0, LIFECYCLE.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ACCEPTED);
  for (;;) {
    if (STAGE_RANK[update.stage] >= target) return updateResponse(run, update);
    if (update.aborted || !isOpen(run)) throw abortedUpdateError(update);
    if (call.isCancelled()) throw new DevServerError('CANCELLED', 'update call cancelled');
    const notified = await engine.waitFor(updateTopic(run.runId, update.updateId), call);
    if (!notified) return updateResponse(run, update);
  }
}

function updateResponse(run: RunState, update: UpdateState): Message {
  return {
    updateRef: { workflowExecution: { workflowId: run.workflowId, runId: run.runId }, updateId: update.updateId },
    outcome: update.stage === 'COMPLETED' ? update.outcome : undefined,
    stage: STAGE_RANK[update.stage],
  };
}
