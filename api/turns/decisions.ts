import { status as grpcStatus } from '@grpc/grpc-js';
import {
  ServiceError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import { isTemporalUnreachable } from '../../config/temporal-client';
import { ApiError, refusedUpdate } from '../errors';
import { onOwnQueue } from './start';
import { turnNotFound } from './turn-id';
import { noWorkerRuns, patchesNoWorkerKnows } from '../../observability/turn-pollers';
import { turnPollersOrNull, WorkerLacksPatchError, WorkerUnavailableError } from './turn-worker';
import { troubleText, workflowTaskTrouble, type WorkflowTaskTrouble } from './workflow-task-trouble';
import { DecisionDeadlineError, type DecisionDeadline } from './decision-deadline';

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
 * describeOwnOrNull for a decision about to be sent, within its deadline: while Temporal does not answer, 503
 * TEMPORAL_UNREACHABLE naming the turn and saying the decision was not sent (decisionUnanswered).
 */
export async function describeForDecision(handle: WorkflowHandle, taskQueue: string, deadline: DecisionDeadline) {
  try {
    return await deadline.within(() => describeOwnOrNull(handle, taskQueue));
  } catch (err) {
    if (!isTemporalUnreachable(err)) throw err;
    throw decisionUnanswered(handle.workflowId);
  }
}

/**
 * The 503 TEMPORAL_UNREACHABLE of a decision not sent because Temporal did not answer its checks (in time), saying so
 * (as the decision's other 503s do), so deciding again is safe.
 */
const decisionUnanswered = (workflowId: string) =>
  new ApiError(
    503,
    'TEMPORAL_UNREACHABLE',
    `The Temporal server did not answer for turn ${workflowId}. Nothing was sent; decide again when it answers.`,
    { workflowId, decisionSent: false }
  );

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
  /** The decision's one deadline (OPERATOR_DECISION_TIMEOUT_MS from its request), which all its Temporal calls share. */
  deadline: DecisionDeadline;
  /** The 409 for a turn that exists but no longer waits for this decision: it ended (`status`) while it was sent. */
  notWaiting(status: string): ApiError | Promise<ApiError>;
  /** The code of a validator refusal that names none. */
  refusedCode: string;
  /** The attempt of the turn's pending workflow task as its description said (pendingWorkflowTaskAttempt). */
  workflowTaskAttempt: number;
}

/** The attempt of the workflow task `description` says is pending; 0 with none. */
export const pendingWorkflowTaskAttempt = (description: {
  raw: { pendingWorkflowTask?: { attempt?: number | null } | null };
}): number => description.raw.pendingWorkflowTask?.attempt ?? 0;

/**
 * Sends the decision (`update`), with its checks, under the target's one deadline: past it, a decision not yet sent is
 * not sent (503 TEMPORAL_UNREACHABLE). With no worker polling the turn's task queue that runs
 * the turn's type it is not sent at all: 503 WORKER_UNAVAILABLE; nor when none knows every patch the turn recorded
 * (an older build's, after a rollback), which would drop it unapplied: 503 WORKER_LACKS_PATCH. An update Temporal
 * admitted cannot be withdrawn, so one that outlives the deadline is answered 503 WORKER_UNAVAILABLE, saying it may
 * still be applied when a worker returns.
 */
export async function sendDecision<R>(target: DecisionTarget, update: () => Promise<R>): Promise<R> {
  const { client, workflowId, taskQueue, deadline } = target;
  if (target.workflowTaskAttempt >= 2) {
    const refused = await retriedTaskRefusal(target);
    if (refused) throw refused;
  }
  const pollers = await deadline.within(() => turnPollersOrNull(client, taskQueue)).catch(() => null);
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
  let sent = false;
  try {
    // The update's own deadline ends it at the server; the race, on a connection that does not end it there.
    return await deadline.within(() => {
      sent = true;
      return client.withDeadline(deadline.at, update);
    });
  } catch (err) {
    // The deadline passed before the update went: nothing was sent (not "sent, may still apply").
    throw sent ? await refusedDecision(target, err) : decisionUnanswered(workflowId);
  }
}

/**
 * The refusal of a decision on a turn described with its workflow task being retried (attempt 2 or more). When the
 * turn's history shows the retries over since (the task completed: the worker came back), the turn is described
 * again: one that has ended meanwhile (failed, say) refuses the decision as it would have then, not as a turn no
 * worker answers; one that runs on takes it (null: send it).
 */
async function retriedTaskRefusal(target: DecisionTarget): Promise<Error | null> {
  const { client, workflowId, deadline } = target;
  const trouble = await workflowTaskTrouble(client, workflowId, deadline);
  if (trouble === undefined) return decisionUnanswered(workflowId);
  if (trouble !== 'SETTLED') return unansweredTaskRefusal(target, trouble, target.workflowTaskAttempt);
  const turn = await describedAgain(target);
  if (turn === undefined) return decisionUnanswered(workflowId);
  if (!turn) return turnNotFound(workflowId);
  if (turn.status.name !== 'RUNNING') return target.notWaiting(turn.status.name);
  const attempt = pendingWorkflowTaskAttempt(turn);
  // Retried again since it completed: why is not read a second time.
  return attempt >= 2 ? unansweredTaskRefusal(target, null, attempt) : null;
}

/**
 * The refusal of a decision on a turn whose workflow task is being retried (attempt 2 or more), not sent: Temporal
 * refuses an update from the task's third attempt (FAILED_PRECONDITION), and drops with it a decision sent earlier
 * that it admitted and that waits for a worker; the attempt read may lag, so none is sent from the second. No worker
 * answering (the task timed out), or no cause known, is WORKER_UNAVAILABLE: the decision sent earlier is kept while
 * no worker answers and applies when one does, unless a worker fails the task meanwhile. A worker failing the task
 * is TURN_NOT_READY: Temporal drops a decision with each failed task, so none applies until the task stops failing.
 */
function unansweredTaskRefusal(
  target: DecisionTarget,
  trouble: WorkflowTaskTrouble,
  workflowTaskAttempt: number
): Error {
  const { workflowId, taskQueue } = target;
  const details = { workflowId, taskQueue, decisionSent: false, workflowTaskAttempt };
  // History records a retried task's first attempt only: how the later ones ended, Temporal does not say.
  const attempts =
    trouble === null
      ? `Temporal is on attempt ${workflowTaskAttempt}`
      : `as its history records the first attempt; Temporal is on attempt ${workflowTaskAttempt}, and keeps no ` +
        'record of how those since ended';
  const why = `${troubleText(trouble)} (${attempts})`;
  if (trouble === 'FAILED') {
    return new TurnNotReadyError(
      `Turn ${workflowId} cannot take a decision now: ${why}. Nothing was sent: Temporal drops a decision while its ` +
        'workflow task fails. Check the worker log and the turn (convengine sre list, the console), then decide ' +
        'again once it runs.',
      details
    );
  }
  return new WorkerUnavailableError(
    `Turn ${workflowId} cannot take a decision now: ${why}. Nothing was sent: from a retried task's third attempt ` +
      'Temporal refuses a decision and drops with it one sent earlier, and the attempt read here may lag. ' +
      `${earlierDecisionFate(trouble)} Check the turn (convengine sre list, the console, ` +
      'GET /api/v1/conversation/{id}) before deciding again.',
    details
  );
}

/**
 * What becomes of a decision sent before the task's retries, as far as `trouble` tells: kept while no worker answers
 * the task, dropped when one fails it. Only the first attempt is in history, so a later one may have failed.
 */
function earlierDecisionFate(trouble: WorkflowTaskTrouble): string {
  const kept = 'A decision already sent is kept while no worker answers the task and applies when one does';
  if (trouble === 'TIMED_OUT') return `${kept}, unless a later attempt failed (Temporal drops it then).`;
  return `${kept}; if a worker fails the task, Temporal drops it.`;
}

/** Why a sent decision did not land, as the caller's error. */
async function refusedDecision(sent: DecisionTarget, err: unknown): Promise<Error> {
  const { client, workflowId, taskQueue, deadline } = sent;
  // The reads below explain a refusal the update already answered: they get a deadline of their own.
  const target = { ...sent, deadline: deadline.forRefusalReads() };
  if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError || err instanceof DecisionDeadlineError) {
    return new WorkerUnavailableError(
      `Turn ${workflowId} did not take the decision within ${deadline.timeoutMs / 1000} s: no worker answered ` +
        `(task queue ${taskQueue}). It was sent, and Temporal cannot withdraw it: it may still be applied when a ` +
        'worker returns. Check the turn (convengine sre list, the console, GET /api/v1/conversation/{id}) before ' +
        'deciding again.',
      { workflowId, taskQueue, decisionSent: true }
    );
  }
  if (err instanceof WorkflowNotFoundError) {
    // Temporal answers an update to a turn that ended meanwhile ("update was aborted by closing workflow") as
    // one to no turn at all: only a turn that does not exist is 404.
    const turn = await describedAgain(target);
    if (turn === undefined) return endUnanswered(workflowId);
    return turn ? target.notWaiting(turn.status.name) : turnNotFound(workflowId);
  }
  if (err instanceof ServiceError && grpcCode(err.cause) === grpcStatus.FAILED_PRECONDITION) {
    // Temporal forgets an update whose workflow task failed while carrying it, and refuses one while the turn's
    // workflow task keeps failing or timing out: either way nothing was applied, and deciding again is safe.
    const why = await workflowTaskTrouble(client, workflowId, target.deadline);
    return new TurnNotReadyError(
      `Turn ${workflowId} did not take the decision: ${troubleText(why ?? null)}, and Temporal dropped the decision ` +
        'without applying it. Check the turn (convengine sre list, the console), then decide again.',
      { workflowId, taskQueue, decisionSent: false }
    );
  }
  if (err instanceof WorkflowUpdateFailedError) {
    // The workflow's validator answers "CODE: explanation": refusedUpdate makes it a 400 or a 409 with that code.
    return refusedUpdate(err.cause?.message ?? err.message, target.refusedCode);
  }
  return err instanceof Error ? err : new Error(String(err));
}

/** The turn described again, by the decision's deadline: undefined when Temporal did not answer, null with no turn. */
const describedAgain = ({ client, workflowId, deadline }: DecisionTarget) =>
  deadline
    .within(() => describeOrNull(client.workflow.getHandle(workflowId)))
    .catch((err: unknown) => {
      if (isTemporalUnreachable(err)) return undefined;
      throw err;
    });

/** A decision Temporal refused as for a turn no longer running, and then did not say whether that turn ended. */
const endUnanswered = (workflowId: string) =>
  new ApiError(
    503,
    'TEMPORAL_UNREACHABLE',
    `Turn ${workflowId} did not take the decision: Temporal answered that it no longer runs, and then did not answer ` +
      'how it ended. Nothing was applied; check the turn (GET /api/v1/conversation/{id}, the console).',
    { workflowId, decisionSent: false }
  );

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
