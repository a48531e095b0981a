import { readMcpState } from '../mcp/state';
import type { Session } from '../session';
import { TurnOutcome, type StopResult } from './contracts';

/** Classifies a finished turn for the TurnOutcome search attribute and the API. */
export function turnOutcomeOf(session: Session, stop: StopResult | null): TurnOutcome {
  if (stop?.reason === 'POLICY_BLOCK') return TurnOutcome.PolicyBlocked;
  const mcp = readMcpState(session);
  if (mcp.lifecycle?.status === 'GUARDRAIL_BLOCKED_NEXT_TOOL') return TurnOutcome.GuardrailBlocked;
  if (mcp.lifecycle?.status === 'TOOL_ERROR') return TurnOutcome.ToolError;
  if (mcp.toolExecutionAbrupted === true) return TurnOutcome.LoopLimit;
  if (session.pendingClarification) return TurnOutcome.Clarify;
  return TurnOutcome.Answered;
}
