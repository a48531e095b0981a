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

/** Whether the run was started for this idempotency key (its memo holds the key's digest). */
export function startedForKey(description: WorkflowExecutionDescription, key: string | null): boolean {
  return key !== null && description.memo?.['idempotencyKey'] === keyDigest(key);
}

export type StartOutcome =
  /** `eager`: the server handed the first workflow task back with the start (eager workflow start). */
  | { kind: 'STARTED'; handle: WorkflowHandle; runId: string; eager: boolean }
  | { kind: 'RUNNING_SAME_KEY'; handle: WorkflowHandle; runId: string }
  | { kind: 'RUNNING_OTHER'; workflowId: string }
  | { kind: 'CLOSED'; status: string };

/**
 * Starts the turn workflow under its deterministic id. The id is the concurrency guard (D13): a
 * second start for the same turn finds the running one, and we attach to it only when it was
 * started with the same idempotency key.
 */
export async function startTurnWorkflow(
  client: Client,
  taskQueue: string,
  input: TurnInput,
  options: { eager: boolean } = { eager: false }
): Promise<StartOutcome> {
  try {
    const handle = await client.workflow.start<typeof conversationTurnV3>(TURN_WORKFLOW_TYPE, {
      taskQueue,
      workflowId: input.turnId,
      args: [input],
      workflowIdConflictPolicy: 'FAIL',
      // A failed turn may be run again under the same id (the retry path); a completed one never.
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
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
    if (description.status.name !== 'RUNNING') return { kind: 'CLOSED', status: description.status.name };
    return startedForKey(description, input.idempotencyKey)
      ? { kind: 'RUNNING_SAME_KEY', handle, runId: description.runId }
      : { kind: 'RUNNING_OTHER', workflowId: input.turnId };
  }
}
