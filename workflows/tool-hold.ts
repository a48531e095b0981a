import { ApplicationFailure, workflowInfo } from '@temporalio/workflow';
import type { Session } from '../core/session';
import {
  describeHold,
  heldAuditInput,
  operatorFailedMessage,
  operatorFailure,
  resolvedAuditInput,
  TOOL_HOLD_FAILED,
} from '../core/mcp/hold';
import type { StepInput } from '../core/turn/contracts';
import { heldToolDecisionProblem } from '../core/turn/operator-decision';
import { decisionRefusal, problemRefusal } from './decision-refusal';
import type { HeldToolRequest, HeldToolResolution } from '../core/turn/executor';
import { workflowNow } from './clock';
import type { HeldToolAck, HeldToolDecisionInput } from './messages';
import { parkTurn } from './park';
import type { RunningTurn } from './running-turn';
import type { TurnState } from './turn-state';
import { TurnStatus } from './turn-status';
import type { TurnVersions } from './turn-versions';

/**
 * #22: audits the hold (TOOL_HELD), waits for the operator or the hold timeout, audits their
 * decision (TOOL_HOLD_RESOLVED). `fail` ends the turn here with a non-retryable failure.
 */
export async function holdToolCall(
  turn: RunningTurn,
  request: HeldToolRequest,
  inputFor: (suffix: string) => StepInput
): Promise<HeldToolResolution | null> {
  if (!turn.versions.toolHold()) return null;
  const expiresAt = new Date(workflowNow() + request.timeoutMs).toISOString();
  const at = `McpToolHold: ${request.toolCode} (call ${request.callIndex})`;
  await turn.run('McpToolHold', heldAuditInput(inputFor, request, expiresAt), `${at} held`);
  const resolution = await awaitHeldTool(turn.state, turn.session(), request, expiresAt, turn.versions);
  const resolved = resolvedAuditInput(inputFor, request, resolution);
  await turn.run('McpToolHold', resolved, `${at} ${resolution.action}`);
  if (resolution.action === 'fail') throw heldCallFailed(request.toolCode, resolution.reason, turn.versions);
  return resolution;
}

/**
 * The turn's failure when an operator fails its held call. The workflow raises it itself, so no activity's sealing
 * (activities/runtime/sealed-failure.ts) reaches it: the operator's reason goes in its details, payloads the codecs
 * encrypt, and its message (stored as written, quoted again in the turn's TURN_FAILED) names what happened only.
 */
function heldCallFailed(
  toolCode: string,
  reason: string | null,
  versions: Pick<TurnVersions, 'holdFailReasonInDetails'>
): ApplicationFailure {
  if (!versions.holdFailReasonInDetails()) {
    const message = operatorFailedMessage(toolCode, reason);
    return ApplicationFailure.create({ type: TOOL_HOLD_FAILED, message, nonRetryable: true });
  }
  return ApplicationFailure.create({
    type: TOOL_HOLD_FAILED,
    ...operatorFailure(toolCode, reason),
    nonRetryable: true,
  });
}

/**
 * Parks the turn on an operator decision (#22) until the resolveHeldTool update or the hold
 * timeout, like an approval (D16): TurnOutcome=HELD finds it, the current details say why.
 */
export async function awaitHeldTool(
  state: TurnState,
  session: Session | null,
  request: HeldToolRequest,
  expiresAt: string,
  versions: Pick<TurnVersions, 'parkPosition' | 'parkedMemo'>
): Promise<HeldToolResolution> {
  state.held = {
    toolCode: request.toolCode,
    callIndex: request.callIndex,
    sideEffect: request.sideEffect,
    attempts: request.attempts,
    failureType: request.failureType,
    error: request.error,
    outcomeUnknown: request.outcomeUnknown,
    heldAt: new Date(workflowNow()).toISOString(),
    expiresAt,
    intent: session?.intent ?? 'UNKNOWN',
    state: session?.state ?? 'UNKNOWN',
  };
  state.holdResolution = null;
  const decided = await parkTurn(state, {
    status: TurnStatus.Held,
    decided: () => state.holdResolution !== null,
    timeoutMs: request.timeoutMs,
    // Current details are not a command: the text may change between releases without a patch.
    details: describeHold(request, expiresAt, workflowInfo().workflowId),
    // The hold has reset TurnOutcome since it was first shipped (TOOL_HOLD_PATCH).
    resumeOutcome: () => true,
    position: () => (versions.parkPosition() ? session : null),
    memo: () => (versions.parkedMemo() ? { pending: null, held: state.held } : null),
  });
  const resolution: HeldToolResolution =
    decided && state.holdResolution
      ? state.holdResolution
      : { action: 'expired', decidedBy: null, reason: 'HOLD_TIMEOUT' };
  state.held = null;
  state.holdResolution = null;
  return resolution;
}

const notHeld = () => decisionRefusal('NOT_HELD', 'this turn has no tool call held for an operator.');

/**
 * The update validator: refuses malformed or stale decisions before they reach history. The rules are
 * core/turn/operator-decision.ts's, so every way of sending one (API, console, CLI, Temporal) meets them.
 */
export function validateHoldDecision(state: TurnState, input: HeldToolDecisionInput, now = workflowNow()): void {
  const problem = heldToolDecisionProblem(input);
  if (problem) throw problemRefusal(problem);
  const held = state.held;
  if (!held) throw notHeld();
  if (input.callIndex !== undefined && input.callIndex !== held.callIndex) {
    throw decisionRefusal('STALE_DECISION', `the held call is #${held.callIndex}, not #${input.callIndex}.`);
  }
  // As an approval's (turn-state.ts): the fired timer and a late decision may come in one activation, update first.
  if (now >= Date.parse(held.expiresAt)) {
    const expired = `the hold of call #${held.callIndex} expired at ${held.expiresAt}; the turn answers without it.`;
    throw decisionRefusal('NOT_HELD', expired);
  }
}

export function applyHoldDecision(state: TurnState, input: HeldToolDecisionInput): HeldToolAck {
  const held = state.held;
  if (!held || state.holdResolution) throw notHeld();
  state.holdResolution = {
    action: input.action,
    decidedBy: input.decidedBy ?? null,
    reason: input.reason ?? null,
    ...(input.action === 'markDone' ? { result: input.result ?? null } : {}),
  };
  state.status = TurnStatus.Running;
  return { accepted: true, toolCode: held.toolCode, callIndex: held.callIndex, action: input.action };
}
