import { ActivityFailure } from '@temporalio/workflow';
import type { Session } from '../core/session';
import type { ApprovalDecision, DirectToolCallInput, StepInput, TurnDecisionRecord } from '../core/turn/contracts';
import { reportedAttempt, toolCallFailure, type ApprovalRequest } from '../core/turn/executor';
import { workflowNow } from './clock';
import { parkTurn } from './park';
import type { TurnState } from './turn-state';
import { TurnStatus } from './turn-status';
import type { TurnVersions } from './turn-versions';

/**
 * Parks the turn on a human decision (D16) until the decideApproval update or the timeout.
 * `versions` say whether this turn records its position while parked and puts TurnOutcome back to RUNNING afterwards.
 * `expiresAt`: the time its request row names, when the executor wrote one before parking.
 */
export async function awaitApproval(
  state: TurnState,
  session: Session | null,
  request: ApprovalRequest,
  versions: Pick<TurnVersions, 'approvalResume' | 'parkPosition'>,
  expiresAt = new Date(workflowNow() + request.timeoutMs).toISOString()
): Promise<ApprovalDecision> {
  state.pending = {
    toolCode: request.toolCode,
    args: request.args,
    callIndex: request.callIndex,
    expiresAt,
    intent: session?.intent ?? 'UNKNOWN',
    state: session?.state ?? 'UNKNOWN',
  };
  state.decision = null;
  const decided = await parkTurn(state, {
    status: TurnStatus.AwaitingApproval,
    decided: () => state.decision !== null,
    timeoutMs: request.timeoutMs,
    resumeOutcome: () => versions.approvalResume(),
    position: () => (versions.parkPosition() ? session : null),
  });
  const decision: ApprovalDecision =
    decided && state.decision ? state.decision : { decision: 'EXPIRED', reason: 'APPROVAL_EXPIRED', decidedBy: null };
  state.settled.set(request.callIndex, decision.decision);
  state.pending = null;
  state.decision = null;
  return decision;
}

/**
 * A tool activity that failed for good, as the driver's ToolCallFailure (core's rule, as in process);
 * anything else unchanged. The attempts are the ones the failure reports; a failure that reports
 * none (a timeout) ran them all when Temporal says so, else one.
 */
export function toToolFailure(err: unknown, maximumAttempts: number): unknown {
  if (!(err instanceof ActivityFailure)) return err;
  const fallback = err.retryState === 'MAXIMUM_ATTEMPTS_REACHED' ? maximumAttempts : 1;
  return toolCallFailure(err.cause ?? err.message, reportedAttempt(err.cause) ?? fallback);
}

/** A driver decision as one line of the memo's `decisionLog` (`LOOP_LIMIT: reason=MCP_TOOL_MAX_LOOPS limit=5`). */
export function describeDecision(d: TurnDecisionRecord): string {
  const tool = d.toolCode ? ` tool=${d.toolCode}` : '';
  const limit = d.limit !== undefined ? ` limit=${d.limit}` : '';
  return `${d.kind}:${tool} reason=${d.reason}${limit}`;
}

/** A plain step input (no tool call, no carried rows) for the activity that audits a direct call's hold. */
export function heldStepInput(call: DirectToolCallInput, session: Session, callKey: string): StepInput {
  return { turn: call.turn, session, callKey };
}
