import type { JsonObject } from '../json';
import { isTruthyFlag } from '../params/safe';
import type { Session } from '../session';
import { javaTrim } from '../text/java-trim';

export const RESET_PARAM_KEYS = ['reset', 'restart', 'conversation_reset'] as const;
const RESET_COMMANDS = ['reset', 'restart', '/reset', '/restart'];

/** Why the request asks for a reset (§5.5), or null. */
export function resetReason(requestParams: JsonObject, requestReset: boolean, text: string): string | null {
  if (requestReset) return 'INPUT_PARAM:reset';
  for (const key of RESET_PARAM_KEYS) if (isTruthyFlag(requestParams[key])) return `INPUT_PARAM:${key}`;
  return RESET_COMMANDS.includes(javaTrim(text).toLowerCase()) ? 'USER_TEXT_COMMAND' : null;
}

/**
 * Clears the conversation state in the session: intent/state UNKNOWN, empty context, schema and
 * clarification state gone, input params re-seeded from the request (minus the reset flags). The
 * database row is only rewritten when the turn commits.
 */
export function applyReset(session: Session, requestParams: JsonObject): void {
  const params: JsonObject = { ...requestParams };
  for (const key of RESET_PARAM_KEYS) delete params[key];
  session.intent = 'UNKNOWN';
  session.state = 'UNKNOWN';
  session.context = {};
  session.inputParams = params;
  session.pendingClarification = null;
  session.intentLocked = false;
  session.intentLockReason = null;
  session.resolvedSchema = null;
  session.schemaComplete = false;
  session.hasAnySchemaValue = false;
  session.missingRequiredFields = [];
  session.missingFieldOptions = {};
  session.lastAssistantJson = null;
  session.payload = null;
  session.standaloneQuery = null;
  session.resolvedUserInput = session.userText;
}
