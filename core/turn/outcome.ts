import { pendingClarificationFrom } from '../conversation/sync';
import type { JsonObject } from '../json';
import { readMcpState } from '../mcp/state';
import type { Session } from '../session';
import { TurnOutcome, type StopResult } from './contracts';

/** Classifies a finished turn for the TurnOutcome search attribute and the API. */
export function turnOutcomeOf(session: Session, stop: StopResult | null): TurnOutcome {
  if (stop?.reason === 'POLICY_BLOCK') return TurnOutcome.PolicyBlocked;
  return answeredOutcomeOf(session, session.pendingClarification !== null);
}

/**
 * The same for a turn read back from what it committed (api/turns/committed-reply.ts): a policy block stores the
 * conversation BLOCKED, and the commit stores the clarification it asks in the context (core/conversation/sync.ts).
 */
export function committedOutcomeOf(status: string, context: JsonObject): TurnOutcome {
  if (status === 'BLOCKED') return TurnOutcome.PolicyBlocked;
  return answeredOutcomeOf({ context }, pendingClarificationFrom(context) !== null);
}

function answeredOutcomeOf(session: Pick<Session, 'context'>, clarifying: boolean): TurnOutcome {
  const mcp = readMcpState(session);
  if (mcp.lifecycle?.status === 'GUARDRAIL_BLOCKED_NEXT_TOOL') return TurnOutcome.GuardrailBlocked;
  if (mcp.lifecycle?.status === 'TOOL_ERROR') return TurnOutcome.ToolError;
  if (mcp.toolExecutionAbrupted === true) return TurnOutcome.LoopLimit;
  if (clarifying) return TurnOutcome.Clarify;
  return TurnOutcome.Answered;
}
