import type { ConfigRows } from './types';
import { scopeMatches } from './scope';
import { shownText } from '../text/one-line-text';

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
 * and none under the new one (a state renamed, or its responses removed), so their next turn may fail with
 * RESPONSE_MAPPING_NOT_FOUND (strandedWarning says when it does not). Pairs the config in force does not answer
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

/**
 * The warning `config diff` and `apply` print for one stranded group. It promises no failure: the next turn runs
 * intent resolution again (activities/pipeline/intent-resolution.ts) unless the intent is locked (a schema being
 * collected) or the interaction policy gave the message to pending work, and a classifier or the intent agent may
 * then move the conversation to an answered intent and state, as a rule may; which one happens depends on the
 * message. The intent and state are config rows' (any text): their controls are shown, never obeyed (shownText).
 */
export function strandedWarning(group: ConversationsAt): string {
  return (
    `warning: ${group.conversations} conversation(s) in intent ${shownText(group.intent)}, state ${shownText(group.state)} ` +
    'have a response ' +
    'now and none after this change: their next turn may fail with RESPONSE_MAPPING_NOT_FOUND, unless intent ' +
    'resolution (a classifier or the intent agent; skipped while the intent is locked) or a rule moves them on'
  );
}
