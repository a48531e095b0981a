import {
  CancelledFailure,
  TemporalFailure,
  TerminatedFailure,
  TimeoutFailure,
  WorkflowFailedError,
  type WorkflowHandle,
} from '@temporalio/client';
import { publicFailureOf } from '../history/public-failure';
import { awaitMilestoneUpdate, TurnStatus, type TurnProgress } from '../../workflows/messages';
import type { TurnRef, TurnReply } from '../ports';
import { endedRunFailure, type TurnFailure } from './ended-run';

/**
 * The client builds these from the run's close event, without a failure of history (`failure`): the run did not
 * fail, it was ended. A workflow's own failure (TURN_FAILED and its causes) always comes from history.
 */
function endedWithoutFailure(cause: unknown): string | null {
  if (!(cause instanceof TemporalFailure) || cause.failure) return null;
  if (cause instanceof TerminatedFailure) return 'TERMINATED';
  if (cause instanceof CancelledFailure) return 'CANCELLED';
  if (cause instanceof TimeoutFailure) return 'TIMED_OUT';
  return null;
}

/** The Temporal status of a run that was ended (terminated, cancelled, timed out) rather than failed, else null. */
function endedRunStatus(err: unknown): string | null {
  return err instanceof WorkflowFailedError ? endedWithoutFailure(err.cause) : null;
}

/**
 * How a closed run that did not complete reads, as the API shows it everywhere (public-failure.ts): the step's
 * failure under the turn's TURN_FAILED, or a run ended in Temporal as endedRunFailure names it. The POST's reply
 * and GET /conversation/{id}'s lastTurn of a turn that wrote no failure row (turn-ended.ts) both use it.
 */
export function rootFailure(err: unknown): TurnFailure {
  const ended = endedRunStatus(err);
  if (ended) return endedRunFailure(ended);
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

/**
 * The run an operator's `temporal workflow reset` started from this one, if any: a reset closes the running run
 * (TERMINATED, as a terminate would) and the turn goes on in the new run, under the same workflow id.
 */
export async function resetRunOf(run: WorkflowHandle): Promise<string | null> {
  const { raw } = await run.describe();
  const next = raw.workflowExtendedInfo?.resetRunId;
  return next && next !== raw.workflowExecutionInfo?.execution?.runId ? next : null;
}

type ClosedRun = { kind: 'REPLY'; reply: TurnReply } | { kind: 'RESET'; runId: string };

/** The reply a turn committed, read from the database (committed-reply.ts), or null when it did not commit. */
export type CommittedReplyReader = (ref: TurnRef) => Promise<TurnReply | null>;

/**
 * The run `ref.runId` as it closed: its result, its failure, or the run a reset of it goes on in. A run ended in
 * Temporal after its turn committed (terminated, cancelled or timed out past PersistConversation) answers the
 * committed turn, not that it ended: the conversation holds that turn, as GET /conversation/{id} shows it.
 */
async function closedRun(handle: WorkflowHandle, ref: TurnRef, committed: CommittedReplyReader): Promise<ClosedRun> {
  const run = handle.client.getHandle(ref.workflowId, ref.runId);
  try {
    const result = (await run.result()) as Extract<TurnReply, { kind: 'COMPLETED' }>['result'];
    return { kind: 'REPLY', reply: { kind: 'COMPLETED', ref, result } };
  } catch (err) {
    const reset = await resetRunOf(run);
    if (reset) return { kind: 'RESET', runId: reset };
    const answered = endedRunStatus(err) ? await committed(ref) : null;
    if (answered) return { kind: 'REPLY', reply: answered };
    const root = rootFailure(err);
    const reply: TurnReply = {
      kind: 'FAILED',
      ref,
      failureType: root.type,
      message: root.message,
      retryable: root.retryable,
    };
    return { kind: 'REPLY', reply };
  }
}

/**
 * The final answer of a closed turn, from its result or failure. A run that a reset closed is not the turn's end:
 * the run the reset started is followed (its answer carries its runId), so a caller is told of a failure only when
 * the turn's latest run failed — not "nothing was committed" of a turn whose reset run then commits.
 */
export async function closedTurnReply(
  handle: WorkflowHandle,
  ref: TurnRef,
  committed: CommittedReplyReader
): Promise<TurnReply> {
  const closed = await closedRun(handle, ref, committed);
  if (closed.kind === 'REPLY') return closed.reply;
  return awaitTurnReply(handle, { ...ref, runId: closed.runId }, committed);
}

/**
 * Waits until the turn has something to tell the caller: an answer, a failure, or a tool call
 * waiting for approval. The update (sent to the workflow id's latest run) returns at that milestone;
 * if the turn already closed, its result (or failure) is read instead.
 */
export async function awaitTurnReply(
  handle: WorkflowHandle,
  ref: TurnRef,
  committed: CommittedReplyReader
): Promise<TurnReply> {
  let progress: TurnProgress;
  try {
    progress = await handle.executeUpdate(awaitMilestoneUpdate);
  } catch {
    return closedTurnReply(handle, ref, committed);
  }
  return progressToReply(ref, progress) ?? closedTurnReply(handle, ref, committed);
}
