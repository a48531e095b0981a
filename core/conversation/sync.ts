import { isJsonObject, type JsonObject } from '../json';
import type { PendingClarification, Session } from '../session';

/**
 * Writes the session's clarification and intent-lock state into the context, where it is persisted
 * and restored next turn (§2.5 reserved keys).
 */
export function syncSessionToContext(session: Session): void {
  const ctx = session.context;
  if (session.pendingClarification) {
    ctx['pending_clarification'] = { ...session.pendingClarification };
  } else {
    delete ctx['pending_clarification'];
  }
  ctx['intent_lock'] = { locked: session.intentLocked, reason: session.intentLocked ? session.intentLockReason : null };
}

export function pendingClarificationFrom(context: JsonObject): PendingClarification | null {
  const raw = context['pending_clarification'];
  if (!isJsonObject(raw)) return null;
  const question = raw['question'];
  if (typeof question !== 'string' || question.trim() === '') return null;
  return { question, reason: typeof raw['reason'] === 'string' ? raw['reason'] : 'AGENT' };
}

export function intentLockFrom(context: JsonObject): { locked: boolean; reason: string | null } {
  const raw = context['intent_lock'];
  if (!isJsonObject(raw) || raw['locked'] !== true) return { locked: false, reason: null };
  return { locked: true, reason: typeof raw['reason'] === 'string' ? raw['reason'] : null };
}
