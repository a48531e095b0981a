import { ActivityFailure, ApplicationFailure, condition, upsertSearchAttributes } from '@temporalio/workflow';
import type { Session } from '../core/session';
import type { ApprovalDecision } from '../core/turn/contracts';
import { ToolCallFailure, type ApprovalRequest } from '../core/turn/executor';
import { workflowNow } from './clock';
import { TurnOutcomeKey } from './search-attributes';
import type { TurnState } from './turn-state';

/** Parks the turn on a human decision (D16) until the decideApproval update or the timeout. */
export async function awaitApproval(
  state: TurnState,
  session: Session | null,
  request: ApprovalRequest
): Promise<ApprovalDecision> {
  const expiresAt = new Date(workflowNow() + request.timeoutMs).toISOString();
  state.pending = {
    toolCode: request.toolCode,
    args: request.args,
    callIndex: request.callIndex,
    expiresAt,
    intent: session?.intent ?? 'UNKNOWN',
    state: session?.state ?? 'UNKNOWN',
  };
  state.decision = null;
  state.status = 'AWAITING_APPROVAL';
  upsertSearchAttributes([{ key: TurnOutcomeKey, value: 'AWAITING_APPROVAL' }]);
  const decided = await condition(() => state.decision !== null, request.timeoutMs);
  const decision: ApprovalDecision =
    decided && state.decision ? state.decision : { decision: 'EXPIRED', reason: 'APPROVAL_EXPIRED', decidedBy: null };
  state.pending = null;
  state.decision = null;
  state.status = 'RUNNING';
  return decision;
}

/** A tool activity that failed for good, as the driver's ToolCallFailure; anything else unchanged. */
export function toToolFailure(err: unknown, maximumAttempts: number): unknown {
  if (!(err instanceof ActivityFailure)) return err;
  const cause = err.cause;
  const type =
    cause instanceof ApplicationFailure
      ? (cause.type ?? 'TOOL_EXECUTION_FAILED')
      : (cause?.name ?? 'TOOL_EXECUTION_FAILED');
  const message = cause?.message ?? err.message;
  const attempts = err.retryState === 'MAXIMUM_ATTEMPTS_REACHED' ? maximumAttempts : 1;
  return new ToolCallFailure(type, message, attempts, cause ? { className: type, message } : null);
}
