import { status as grpcStatus } from '@grpc/grpc-js';
import {
  ServiceError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import { ApiError, refusedUpdate } from '../errors';
import { onOwnQueue } from './start';
import { turnNotFound } from './turn-id';
import { noWorkerRuns, patchesNoWorkerKnows } from '../../observability/turn-pollers';
import { turnPollersOrNull, WorkerLacksPatchError, WorkerUnavailableError } from './turn-worker';

/** The turn's description, or null when there is no such workflow. */
export async function describeOrNull(handle: WorkflowHandle) {
  try {
    return await handle.describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  }
}

/** The turn's description when it is this deployment's (on `taskQueue`: onOwnQueue); null otherwise or without it. */
export async function describeOwnOrNull(handle: WorkflowHandle, taskQueue: string) {
  const description = await describeOrNull(handle);
  return description && onOwnQueue(description, taskQueue) ? description : null;
}

/**
 * An operator's decision on a parked turn (an approval, or a held tool call's resolution): both are updates the
 * turn's worker validates and applies, and both are refused the same ways.
 */
export interface DecisionTarget {
  client: Client;
  workflowId: string;
  /** The turn's task queue, whose worker takes the decision. */
  taskQueue: string;
  /** The turn's workflow type, which that worker must run. */
  workflowType: string;
  /** The patches the turn recorded (its TemporalChangeVersion, recordedPatches), which that worker must know. */
  recordedPatches: readonly string[];
  /** OPERATOR_DECISION_TIMEOUT_MS: how long the update may wait for that worker. */
  timeoutMs: number;
  /** The 409 for a turn that exists but no longer waits for this decision: it ended (`status`) while it was sent. */
  notWaiting(status: string): ApiError | Promise<ApiError>;
  /** The code of a validator refusal that names none. */
  refusedCode: string;
}

/**
 * Sends the decision (`update`), under the target's deadline. With no worker polling the turn's task queue that runs
 * the turn's type it is not sent at all: 503 WORKER_UNAVAILABLE; nor when none knows every patch the turn recorded
 * (an older build's, after a rollback), which would drop it unapplied: 503 WORKER_LACKS_PATCH. An update Temporal
 * admitted cannot be withdrawn, so one that outlives the deadline is answered 503 WORKER_UNAVAILABLE, saying it may
 * still be applied when a worker returns.
 */
export async function sendDecision<R>(target: DecisionTarget, update: () => Promise<R>): Promise<R> {
  const { client, workflowId, taskQueue } = target;
  const pollers = await turnPollersOrNull(client, taskQueue);
  const noWorker = pollers && noWorkerRuns(pollers, taskQueue, target.workflowType);
  if (noWorker) {
    throw new WorkerUnavailableError(
      `Turn ${workflowId} cannot take a decision now: ${noWorker}. Nothing was sent; ` +
        'start a worker (convengine worker), then decide again.',
      { workflowId, taskQueue, decisionSent: false }
    );
  }
  const lacking = pollers ? patchesNoWorkerKnows(pollers, target.workflowType, target.recordedPatches) : [];
  if (lacking.length > 0) {
    throw new WorkerLacksPatchError(
      `Turn ${workflowId} cannot take a decision now: it recorded turn workflow patches (${lacking.join(', ')}) ` +
        `that no worker polling task queue ${taskQueue} knows: they are of an older build (a rollback?), and fail ` +
        'each of its workflow tasks. Nothing was sent; deploy workers of the build that ran the turn, or a newer ' +
        'one, then decide again.',
      { workflowId, taskQueue, decisionSent: false, patches: lacking }
    );
  }
  try {
    return await client.withDeadline(Date.now() + target.timeoutMs, update);
  } catch (err) {
    throw await refusedDecision(target, err);
  }
}

/** Why a sent decision did not land, as the caller's error. */
async function refusedDecision(target: DecisionTarget, err: unknown): Promise<Error> {
  const { client, workflowId, taskQueue } = target;
  if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
    return new WorkerUnavailableError(
      `Turn ${workflowId} did not take the decision within ${target.timeoutMs / 1000} s: no worker answered ` +
        `(task queue ${taskQueue}). It was sent, and Temporal cannot withdraw it: it may still be applied when a ` +
        'worker returns. Check the turn (convengine sre list, the console, GET /api/v1/conversation/{id}) before ' +
        'deciding again.',
      { workflowId, taskQueue, decisionSent: true }
    );
  }
  if (err instanceof WorkflowNotFoundError) {
    // Temporal answers an update to a turn that ended meanwhile ("update was aborted by closing workflow") as
    // one to no turn at all: only a turn that does not exist is 404.
    const turn = await describeOrNull(client.workflow.getHandle(workflowId));
    return turn ? target.notWaiting(turn.status.name) : turnNotFound(workflowId);
  }
  if (err instanceof ServiceError && grpcCode(err.cause) === grpcStatus.FAILED_PRECONDITION) {
    // Temporal forgets an update whose workflow task failed while carrying it, and refuses one while the turn's
    // workflow task keeps failing: either way nothing was applied, and deciding again is safe.
    return new TurnNotReadyError(
      `Turn ${workflowId} did not take the decision: its workflow task failed or is failing, and Temporal dropped ` +
        'the decision without applying it. Check the turn (convengine sre list, the console), then decide again.',
      { workflowId, taskQueue, decisionSent: false }
    );
  }
  if (err instanceof WorkflowUpdateFailedError) {
    // The workflow's validator answers "CODE: explanation": refusedUpdate makes it a 400 or a 409 with that code.
    return refusedUpdate(err.cause?.message ?? err.message, target.refusedCode);
  }
  return err instanceof Error ? err : new Error(String(err));
}

/** A decision Temporal refused because the turn's workflow task failed or is failing: nothing was applied. */
export class TurnNotReadyError extends ApiError {
  constructor(message: string, details: Record<string, unknown>) {
    super(503, 'TURN_NOT_READY', message, details);
    this.name = 'TurnNotReadyError';
  }
}

const grpcCode = (cause: unknown): number | undefined =>
  typeof cause === 'object' && cause !== null && 'code' in cause && typeof cause.code === 'number'
    ? cause.code
    : undefined;
