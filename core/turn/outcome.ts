import { readMcpState } from '../mcp/state';
import type { Session } from '../session';
import type { StopResult, TurnOutcome } from './contracts';

/** Classifies a finished turn for the TurnOutcome search attribute and the API. */
export function turnOutcomeOf(session: Session, stop: StopResult | null): TurnOutcome {
  if (stop?.reason === 'POLICY_BLOCK') return 'POLICY_BLOCKED';
  const mcp = readMcpState(session);
  if (mcp.lifecycle?.status === 'GUARDRAIL_BLOCKED_NEXT_TOOL') return 'GUARDRAIL_BLOCKED';
  if (mcp.lifecycle?.status === 'TOOL_ERROR') return 'TOOL_ERROR';
  if (mcp.toolExecutionAbrupted === true) return 'LOOP_LIMIT';
  if (session.pendingClarification) return 'CLARIFY';
  return 'ANSWERED';
}
