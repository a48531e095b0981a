import {
  ApplicationFailure,
  TemporalFailure,
  TimeoutFailure,
  WorkflowFailedError,
  type WorkflowHandle,
} from '@temporalio/client';
import type { TurnProgress } from '../../workflows/messages';
import { awaitMilestoneUpdate } from '../../workflows/messages';
import type { TurnRef, TurnReply } from '../ports';

/** The innermost typed failure: the activity's ApplicationFailure under the turn's TURN_FAILED. */
function rootFailure(err: unknown): { type: string; message: string; retryable: boolean } {
  let current: unknown = err instanceof WorkflowFailedError ? err.cause : err;
  let found: ApplicationFailure | null = null;
  let timeout = false;
  while (current instanceof TemporalFailure) {
    if (current instanceof ApplicationFailure && current.type !== 'TURN_FAILED') found = current;
    if (current instanceof TimeoutFailure) timeout = true;
    current = current.cause;
  }
  if (found) return { type: found.type ?? 'TURN_FAILED', message: found.message, retryable: !found.nonRetryable };
  if (timeout) return { type: 'TIMEOUT', message: 'A step timed out.', retryable: true };
  return { type: 'TURN_FAILED', message: err instanceof Error ? err.message : String(err), retryable: true };
}

export function progressToReply(ref: TurnRef, progress: TurnProgress): TurnReply | null {
  if (progress.status === 'COMPLETED' && progress.result) return { kind: 'COMPLETED', ref, result: progress.result };
  if (progress.status === 'AWAITING_APPROVAL' && progress.pending) {
    return { kind: 'AWAITING_APPROVAL', ref, pending: progress.pending };
  }
  if (progress.status === 'HELD' && progress.held) {
    const { intent, state, toolCode, callIndex, expiresAt } = progress.held;
    return { kind: 'HELD', ref, held: { intent, state, toolCode, callIndex, expiresAt } };
  }
  return null;
}

/** The final answer of a closed turn, from its result or failure. */
export async function closedTurnReply(handle: WorkflowHandle, ref: TurnRef): Promise<TurnReply> {
  try {
    const result = (await handle.result()) as Extract<TurnReply, { kind: 'COMPLETED' }>['result'];
    return { kind: 'COMPLETED', ref, result };
  } catch (err) {
    const root = rootFailure(err);
    return { kind: 'FAILED', ref, failureType: root.type, message: root.message, retryable: root.retryable };
  }
}

/**
 * Waits until the turn has something to tell the caller: an answer, a failure, or a tool call
 * waiting for approval. The update returns at that milestone; if the turn already closed, its
 * result (or failure) is read instead.
 */
export async function awaitTurnReply(handle: WorkflowHandle, ref: TurnRef): Promise<TurnReply> {
  let progress: TurnProgress;
  try {
    progress = await handle.executeUpdate(awaitMilestoneUpdate);
  } catch {
    return closedTurnReply(handle, ref);
  }
  return progressToReply(ref, progress) ?? closedTurnReply(handle, ref);
}
