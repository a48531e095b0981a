import { normalizeScopeValue, rankByScope } from '../config/scope';
import type { ConfigSnapshot, PendingActionRow } from '../config/types';
import { isJsonObject, type Json, type JsonObject } from '../json';

const isResolved = (v: string) => v.trim() !== '' && normalizeScopeValue(v) !== 'UNKNOWN';

/** Enabled ce_pending_action rows for intent/state (and action key when given), best first. */
export function pendingActionCandidates(
  snapshot: ConfigSnapshot,
  intent: string,
  state: string,
  actionKey: string | null
): PendingActionRow[] {
  if (!isResolved(intent) || !isResolved(state)) return [];
  const rows = snapshot.rows.pendingActions.filter(
    (r) => r.enabled && (actionKey === null || normalizeScopeValue(r.actionKey) === normalizeScopeValue(actionKey))
  );
  return rankByScope(rows, intent, state, (a, b) => a.priority - b.priority || a.pendingActionId - b.pendingActionId);
}

/** `bean:methods` of the single best candidate; null when none, or when the top two tie without an explicit key. */
export function actionRefFromCatalog(candidates: readonly PendingActionRow[], explicitKey: boolean): string | null {
  const [first, second] = candidates;
  if (!first) return null;
  if (!explicitKey && second && second.priority === first.priority) return null;
  if (first.beanName.trim() === '' || first.methodNames.trim() === '') return null;
  return `${first.beanName.trim()}:${first.methodNames.trim()}`;
}

function firstText(map: JsonObject, keys: readonly string[]): string | null {
  for (const key of keys) {
    const v = map[key];
    if (typeof v === 'string' && v.trim() !== '') return v.trim();
  }
  return null;
}

/** The explicit action key: request param, then context, then the context pending action's own key. */
export function explicitActionKey(inputParams: JsonObject, context: JsonObject): string | null {
  const fromParams = firstText(inputParams, ['pending_action_key']);
  if (fromParams) return fromParams;
  const fromContext = firstText(context, ['pending_action_key', 'pendingActionKey']);
  if (fromContext) return fromContext;
  const pending = context['pending_action'] ?? context['pendingAction'];
  return isJsonObject(pending) ? firstText(pending, ['action_key', 'actionKey', 'key', 'type']) : null;
}

/** A pending action written into context by the consumer: `bean:method` text or a map. */
export function actionRefFromContext(pending: Json | undefined): string | null {
  if (typeof pending === 'string') return pending.trim() === '' ? null : pending.trim();
  if (!isJsonObject(pending)) return null;
  const direct = firstText(pending, ['task', 'action', 'action_value', 'actionValue', 'set_task', 'setTask']);
  if (direct) return direct;
  const bean = firstText(pending, ['bean', 'bean_name', 'beanName']);
  const method = firstText(pending, ['method', 'method_name', 'methodName', 'methods', 'method_names']);
  return bean && method ? `${bean}:${method}` : null;
}

export function hasValue(value: Json | undefined): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.length > 0;
  if (isJsonObject(value)) return Object.keys(value).length > 0;
  return true;
}
