import { isJsonObject } from '../json';
import type { Session } from '../session';
import type { StopResult, TurnOutcome } from './contracts';

/** Classifies a finished turn for the TurnOutcome search attribute and the API. */
export function turnOutcomeOf(session: Session, stop: StopResult | null): TurnOutcome {
  if (stop?.reason === 'POLICY_BLOCK') return 'POLICY_BLOCKED';
  const mcp = session.context['mcp'];
  if (isJsonObject(mcp)) {
    const lifecycle = mcp['lifecycle'];
    if (isJsonObject(lifecycle)) {
      if (lifecycle['status'] === 'GUARDRAIL_BLOCKED_NEXT_TOOL') return 'GUARDRAIL_BLOCKED';
      if (lifecycle['status'] === 'TOOL_ERROR') return 'TOOL_ERROR';
    }
    if (mcp['toolExecutionAbrupted'] === true) return 'LOOP_LIMIT';
  }
  if (session.pendingClarification) return 'CLARIFY';
  return 'ANSWERED';
}
