import { TemporalFailure, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { publicFailureOf } from '../history/public-failure';
import { awaitMilestoneUpdate, TurnStatus, type TurnProgress } from '../../workflows/messages';
import type { TurnRef, TurnReply } from '../ports';

/**
 * The step's failure under the turn's TURN_FAILED, as the API shows it everywhere (public-failure.ts): the POST's
 * reply, and GET /conversation/{id}'s lastTurn of a failed turn that wrote no failure row (turn-ended.ts).
 */
export function rootFailure(err: unknown): { type: string; message: string; retryable: boolean } {
  const cause = err instanceof WorkflowFailedError ? err.cause : err;
  // The client decodes a failure from history and keeps it whole (`failure`), causes included.
  if (cause instanceof TemporalFailure && cause.failure) {
    const shown = publicFailureOf(cause.failure);
    return { type: shown.type ?? 'TURN_FAILED', message: shown.message, retryable: !shown.nonRetryable };
  }
  return { type: 'TURN_FAILED', message: err instanceof Error ? err.message : String(err), retryable: true };
}

export function progressToReply(ref: TurnRef, progress: TurnProgress): TurnReply | null {
  if (progress.status === TurnStatus.Completed && progress.result)
    return { kind: 'COMPLETED', ref, result: progress.result };
  if (progress.status === TurnStatus.AwaitingApproval && progress.pending) {
    return { kind: 'AWAITING_APPROVAL', ref, pending: progress.pending };
  }
  if (progress.status === TurnStatus.Held && progress.held) {
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
