import type { ConfigRows } from './types';
import { scopeMatches } from './scope';

/** Conversations at rest in one (intent, state), as ce_conversation holds them. */
export interface ConversationsAt {
  intent: string;
  state: string;
  conversations: number;
}

/** Whether an enabled ce_response admits the pair, `ANY` admitting any (as ResponseResolution selects). */
function answered(rows: ConfigRows, intent: string, state: string): boolean {
  return rows.responses.some((r) => r.enabled && scopeMatches(r, intent, state));
}

/**
 * Conversations a config change strands: their (intent, state) has a response under the config in force
 * and none under the new one, so their next turn fails with RESPONSE_MAPPING_NOT_FOUND unless a rule moves
 * them on first: a state renamed, or its responses removed. Pairs the config in force does not answer
 * either (an intent the model chose, a conversation already stranded) are not the change's doing.
 */
export function strandedConversations(
  inForce: ConfigRows,
  next: ConfigRows,
  at: readonly ConversationsAt[]
): ConversationsAt[] {
  return at.filter(
    (group) => answered(inForce, group.intent, group.state) && !answered(next, group.intent, group.state)
  );
}
