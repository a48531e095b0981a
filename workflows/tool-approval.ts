import type { Session } from '../core/session';
import { approvalRequestedInput } from '../core/mcp/outcomes';
import type { ApprovalDecision, StepInput } from '../core/turn/contracts';
import type { ApprovalRequest, AwaitedApproval } from '../core/turn/executor';
import { workflowNow } from './clock';
import { parkTurn } from './park';
import type { RunningTurn } from './running-turn';
import type { TurnState } from './turn-state';
import { TurnStatus } from './turn-status';
import type { TurnVersions } from './turn-versions';

/**
 * D16: audits the request (MCP_TOOL_APPROVAL_REQUESTED) as the turn parks, as a hold audits TOOL_HELD, so the
 * stream and GET /conversation/{id} show the pending call; then waits. Turns from before the patch audit it with
 * the decision (the driver does, as requestAudited is unset).
 */
export async function awaitAuditedApproval(
  turn: RunningTurn,
  request: ApprovalRequest,
  inputFor?: (suffix: string) => StepInput
): Promise<AwaitedApproval> {
  if (!inputFor || !turn.versions.approvalRequestRow()) {
    return awaitApproval(turn.state, turn.session(), request, turn.versions);
  }
  const expiresAt = new Date(workflowNow() + request.timeoutMs).toISOString();
  const summary = `McpToolHold: ${request.toolCode} (call ${request.callIndex}) approval requested`;
  await turn.run('McpToolHold', approvalRequestedInput(inputFor, request, expiresAt), summary);
  const decision = await awaitApproval(turn.state, turn.session(), request, turn.versions, expiresAt);
  return { ...decision, requestAudited: true };
}

/**
 * Parks the turn on a human decision (D16) until the decideApproval update or the timeout.
 * `versions` say whether this turn records its position and its call (memo) while parked and puts TurnOutcome back to
 * RUNNING afterwards.
 * `expiresAt`: the time its request row names, when the executor wrote one before parking.
 */
export async function awaitApproval(
  state: TurnState,
  session: Session | null,
  request: ApprovalRequest,
  versions: Pick<TurnVersions, 'approvalResume' | 'parkPosition' | 'parkedMemo'>,
  expiresAt = new Date(workflowNow() + request.timeoutMs).toISOString()
): Promise<ApprovalDecision> {
  state.pending = {
    toolCode: request.toolCode,
    args: request.args,
    callIndex: request.callIndex,
    // The time the request row names too (its expiry less the timeout): no clock read of its own, so no command.
    requestedAt: new Date(Date.parse(expiresAt) - request.timeoutMs).toISOString(),
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
    memo: () => (versions.parkedMemo() ? { pending: state.pending, held: null } : null),
  });
  const decision: ApprovalDecision =
    decided && state.decision ? state.decision : { decision: 'EXPIRED', reason: 'APPROVAL_EXPIRED', decidedBy: null };
  state.settled.set(request.callIndex, decision.decision);
  state.pending = null;
  state.decision = null;
  return decision;
}
