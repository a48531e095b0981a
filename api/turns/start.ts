import { createHash } from 'node:crypto';
import {
  WorkflowExecutionAlreadyStartedError,
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
} from '@temporalio/client';
import type { TurnInput } from '../../core/turn/contracts';
import type { conversationTurnV3 } from '../../workflows';
import { TURN_WORKFLOW_TYPE } from '../../workflows/turn-type';
import { ConversationIdKey, TurnNumberKey } from '../../workflows/search-attributes';

/** The workflow type new turns start as (conversationTurn, v1, stays registered for older turns). */
export { TURN_WORKFLOW_TYPE };

/** Keys are not secret, but hashing keeps client-chosen text out of the visibility store. */
export function keyDigest(key: string | null): string | null {
  return key === null ? null : createHash('sha256').update(key).digest('hex').slice(0, 24);
}

/**
 * Whether the run is this deployment's: on its task queue. Workflow ids are shared by every deployment on the
 * namespace, so a turn id can name another deployment's workflow; this one never attaches to, reports or runs it.
 */
export function onOwnQueue(description: Pick<WorkflowExecutionDescription, 'taskQueue'>, taskQueue: string): boolean {
  return description.taskQueue === taskQueue;
}

/**
 * Whether the run is this deployment's and was started for this idempotency key (its memo holds the key's digest):
 * another deployment's request with the same key is another request.
 */
export function startedForKey(
  description: WorkflowExecutionDescription,
  key: string | null,
  taskQueue: string
): boolean {
  return key !== null && onOwnQueue(description, taskQueue) && description.memo?.['idempotencyKey'] === keyDigest(key);
}

export type StartOutcome =
  /** `eager`: the server handed the first workflow task back with the start (eager workflow start). */
  | { kind: 'STARTED'; handle: WorkflowHandle; runId: string; eager: boolean }
  | { kind: 'RUNNING_SAME_KEY'; handle: WorkflowHandle; runId: string }
  | { kind: 'RUNNING_OTHER'; workflowId: string }
  | { kind: 'CLOSED'; status: string }
  /** The turn id is a workflow of another deployment on the namespace (another task queue), running or not. */
  | { kind: 'OTHER_QUEUE' };

/**
 * Starts the turn workflow under its deterministic id. The id is the concurrency guard (D13): a
 * second start for the same turn finds the running one, and we attach to it only when it was
 * started on this task queue with the same idempotency key.
 *
 * A failed turn may be run again under the same id (the retry path, or the conversation's next message); a completed
 * one never. Temporal's reuse policy cannot tell whose failed run it is: on a namespace shared with another deployment
 * the id may be that deployment's failed turn (a client sent one conversation id to both), which must stay its own.
 * So the first start reuses no id at all, and only a closed run of this task queue is re-run.
 */
export async function startTurnWorkflow(
  client: Client,
  taskQueue: string,
  input: TurnInput,
  options: { eager: boolean } = { eager: false }
): Promise<StartOutcome> {
  const first = await startOrDescribe(client, taskQueue, input, options, 'REJECT_DUPLICATE');
  if (first.kind !== 'CLOSED' || first.status === 'COMPLETED') return first;
  // This deployment's own turn, failed (terminated, timed out…): run it again. Another start may win the id meanwhile.
  return startOrDescribe(client, taskQueue, input, options, 'ALLOW_DUPLICATE_FAILED_ONLY');
}

/** One start under `reusePolicy`; refused (the id has a run), what that run is to this deployment. */
async function startOrDescribe(
  client: Client,
  taskQueue: string,
  input: TurnInput,
  options: { eager: boolean },
  reusePolicy: 'REJECT_DUPLICATE' | 'ALLOW_DUPLICATE_FAILED_ONLY'
): Promise<StartOutcome> {
  try {
    const handle = await client.workflow.start<typeof conversationTurnV3>(TURN_WORKFLOW_TYPE, {
      taskQueue,
      workflowId: input.turnId,
      args: [input],
      workflowIdConflictPolicy: 'FAIL',
      workflowIdReusePolicy: reusePolicy,
      typedSearchAttributes: [
        { key: ConversationIdKey, value: input.conversationId },
        { key: TurnNumberKey, value: input.turnNumber },
      ],
      memo: { idempotencyKey: keyDigest(input.idempotencyKey), turnNumber: input.turnNumber },
      requestEagerStart: options.eager,
    });
    return { kind: 'STARTED', handle, runId: handle.firstExecutionRunId, eager: handle.eagerlyStarted };
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    const handle = client.workflow.getHandle(input.turnId);
    const description = await handle.describe();
    if (!onOwnQueue(description, taskQueue)) return { kind: 'OTHER_QUEUE' };
    if (description.status.name !== 'RUNNING') return { kind: 'CLOSED', status: description.status.name };
    return startedForKey(description, input.idempotencyKey, taskQueue)
      ? { kind: 'RUNNING_SAME_KEY', handle, runId: description.runId }
      : { kind: 'RUNNING_OTHER', workflowId: input.turnId };
  }
}
