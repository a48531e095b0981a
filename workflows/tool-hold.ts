import { condition, setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import type { Session } from '../core/session';
import { describeHold } from '../core/mcp/hold';
import { firstTextProblem } from '../core/text/unsafe-text';
import type { HeldToolRequest, HeldToolResolution } from '../core/turn/executor';
import { workflowNow } from './clock';
import type { HeldToolAck, HeldToolDecisionInput } from './messages';
import { TurnOutcomeKey } from './search-attributes';
import type { TurnState } from './turn-state';

const ACTIONS: readonly string[] = ['retry', 'skip', 'fail', 'markDone'];

/**
 * Parks the turn on an operator decision (#22) until the resolveHeldTool update or the hold
 * timeout, like an approval (D16): TurnOutcome=HELD finds it, the current details say why.
 */
export async function awaitHeldTool(
  state: TurnState,
  session: Session | null,
  request: HeldToolRequest,
  expiresAt: string
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
  state.status = 'HELD';
  upsertSearchAttributes([{ key: TurnOutcomeKey, value: 'HELD' }]);
  setCurrentDetails(describeHold(request, expiresAt));
  const decided = await condition(() => state.holdResolution !== null, request.timeoutMs);
  const resolution: HeldToolResolution =
    decided && state.holdResolution
      ? state.holdResolution
      : { action: 'expired', decidedBy: null, reason: 'HOLD_TIMEOUT' };
  state.held = null;
  state.holdResolution = null;
  state.status = 'RUNNING';
  upsertSearchAttributes([{ key: TurnOutcomeKey, value: 'RUNNING' }]);
  setCurrentDetails('');
  return resolution;
}

/** The update validator: refuses malformed or stale decisions before they reach history. */
export function validateHoldDecision(state: TurnState, input: HeldToolDecisionInput): void {
  if (input === null || typeof input !== 'object') throw new Error('INVALID_DECISION: the decision must be an object.');
  if (!ACTIONS.includes(input.action)) {
    throw new Error(`INVALID_DECISION: action must be one of ${ACTIONS.join(', ')}.`);
  }
  if (input.reason != null && typeof input.reason !== 'string')
    throw new Error('INVALID_DECISION: reason must be text.');
  if (input.decidedBy != null && typeof input.decidedBy !== 'string') {
    throw new Error('INVALID_DECISION: decidedBy must be text.');
  }
  const unsafe = firstTextProblem({ reason: input.reason, decidedBy: input.decidedBy, result: input.result });
  if (unsafe) throw new Error(`${unsafe.code}: ${unsafe.message}`);
  if (input.action === 'markDone' && input.result === undefined) {
    throw new Error('INVALID_DECISION: markDone needs the verified result (result).');
  }
  if (!state.held) throw new Error('NOT_HELD: this turn has no tool call held for an operator.');
  if (input.callIndex !== undefined && input.callIndex !== state.held.callIndex) {
    throw new Error(`STALE_DECISION: the held call is #${state.held.callIndex}, not #${input.callIndex}.`);
  }
}

export function applyHoldDecision(state: TurnState, input: HeldToolDecisionInput): HeldToolAck {
  const held = state.held;
  if (!held || state.holdResolution) throw new Error('NOT_HELD: this turn has no tool call held for an operator.');
  state.holdResolution = {
    action: input.action,
    decidedBy: input.decidedBy ?? null,
    reason: input.reason ?? null,
    ...(input.action === 'markDone' ? { result: input.result ?? null } : {}),
  };
  state.status = 'RUNNING';
  return { accepted: true, toolCode: held.toolCode, callIndex: held.callIndex, action: input.action };
}
