import { ActivityFailure, isCancellation } from '@temporalio/workflow';
import type { TurnDecisionRecord } from '../core/turn/contracts';
import { reportedAttempt, toolCallFailure } from '../core/turn/executor';
import type { TurnVersions } from './turn-versions';

/**
 * A tool activity that failed for good, as the driver's ToolCallFailure (core's rule, as in process);
 * anything else unchanged. The attempts are the ones the failure reports; a failure that reports
 * none (a timeout) ran them all when Temporal says so, else one. The call's cancellation (the turn cancelled while it
 * ran) is no failure of the tool: unchanged, it ends the turn as cancelled; `versions` absent (conversationTurn) or
 * from before CANCELLED_TOOL_CALL_PATCH, it is taken for one, as it was.
 */
export function toToolFailure(
  err: unknown,
  maximumAttempts: number,
  versions?: Pick<TurnVersions, 'cancelledToolCallStands'>
): unknown {
  if (!(err instanceof ActivityFailure)) return err;
  if (versions && isCancellation(err) && versions.cancelledToolCallStands()) return err;
  const fallback = err.retryState === 'MAXIMUM_ATTEMPTS_REACHED' ? maximumAttempts : 1;
  return toolCallFailure(err.cause ?? err.message, reportedAttempt(err.cause) ?? fallback);
}

/** A driver decision as one line of the memo's `decisionLog` (`LOOP_LIMIT: reason=MCP_TOOL_MAX_LOOPS limit=5`). */
export function describeDecision(d: TurnDecisionRecord): string {
  const tool = d.toolCode ? ` tool=${d.toolCode}` : '';
  const limit = d.limit !== undefined ? ` limit=${d.limit}` : '';
  return `${d.kind}:${tool} reason=${d.reason}${limit}`;
}
