import { normalizeScopeValue, rankByScope } from '../config/scope';
import type { ConfigSnapshot, ResponseRow } from '../config/types';
import { renderTemplateLenient, type TemplateVariables } from '../templates';

/**
 * Texts the engine says outside a completed turn (a tool call waiting for approval, a turn that
 * failed) are ce_response rows too, under reserved state codes: an EXACT TEXT row for
 * (intent or ANY, AWAITING_APPROVAL), (intent or ANY, TURN_FAILED), (intent or ANY, TOOL_HELD) or (intent or ANY,
 * TURN_RUNNING). Without a row the defaults
 * below apply. The intent is the conversation's at that moment.
 */
export const ReservedResponseState = {
  AwaitingApproval: 'AWAITING_APPROVAL',
  TurnFailed: 'TURN_FAILED',
  /** #22: a tool call of the turn failed and waits for an operator; the final reply comes later. */
  ToolHeld: 'TOOL_HELD',
  /** The turn goes on past the API's wait (TURN_REPLY_TIMEOUT_MS, or the API stopping); the reply comes later. */
  TurnRunning: 'TURN_RUNNING',
} as const;
export type ReservedResponseStateName = (typeof ReservedResponseState)[keyof typeof ReservedResponseState];

export const RESERVED_RESPONSE_STATES: readonly string[] = Object.values(ReservedResponseState);

/** The variables each reserved text may use, besides `intent` and `state`. */
export const RESERVED_RESPONSE_VARIABLES: Readonly<Record<ReservedResponseStateName, readonly string[]>> = {
  AWAITING_APPROVAL: ['toolCode', 'args', 'expiresAt'],
  TURN_FAILED: ['failureType', 'retryable'],
  TOOL_HELD: ['toolCode', 'expiresAt'],
  TURN_RUNNING: [],
};

export const DEFAULT_RESERVED_TEXTS: Readonly<Record<ReservedResponseStateName, string>> = {
  AWAITING_APPROVAL: 'Waiting for approval to run {{toolCode}}.',
  // No "try again": a config or input error fails the same way again (`retryable` says which it was).
  TURN_FAILED: 'Sorry, I could not answer that just now.',
  TOOL_HELD:
    'This is taking longer than usual: a system we depend on did not answer, and a colleague is looking into it. You will get the answer in this conversation as soon as it is done.',
  TURN_RUNNING:
    'This is taking a little longer than usual. You will get the answer in this conversation as soon as it is ready.',
};

export function isReservedResponseState(state: string | null): boolean {
  return state !== null && RESERVED_RESPONSE_STATES.includes(normalizeScopeValue(state));
}

/** The configured row for a reserved state: exact intent beats ANY, then the lower priority number. */
export function selectReservedResponse(
  snapshot: ConfigSnapshot,
  reserved: ReservedResponseStateName,
  intent: string
): ResponseRow | undefined {
  const rows = snapshot.rows.responses.filter(
    (r) => r.enabled && normalizeScopeValue(r.stateCode) === reserved && r.responseType.trim().toUpperCase() === 'EXACT'
  );
  return rankByScope(rows, intent, reserved, (a, b) => a.priority - b.priority || a.responseId - b.responseId)[0];
}

/** The text for a reserved state, rendered leniently (an absent variable renders empty). */
export function reservedResponseText(
  snapshot: ConfigSnapshot | null,
  reserved: ReservedResponseStateName,
  vars: TemplateVariables & { intent: string; state: string }
): string {
  const row = snapshot ? selectReservedResponse(snapshot, reserved, vars.intent) : undefined;
  const template = row?.exactText ?? DEFAULT_RESERVED_TEXTS[reserved];
  try {
    const text = renderTemplateLenient(template, vars).text;
    return text.trim() === '' ? renderTemplateLenient(DEFAULT_RESERVED_TEXTS[reserved], vars).text : text;
  } catch {
    // Validation refuses malformed templates; a snapshot that still has one gets the default.
    return renderTemplateLenient(DEFAULT_RESERVED_TEXTS[reserved], vars).text;
  }
}
