import { rankByScope } from '../config/scope';
import type { ConfigSnapshot, ResponseRow } from '../config/types';

/**
 * The ce_response row for intent/state (§8, D11): `ANY` is a wildcard for both; the most specific
 * row wins (an exact state always beats ANY for the same intent), then the lower priority number.
 */
export function selectResponse(snapshot: ConfigSnapshot, intent: string, state: string): ResponseRow | undefined {
  const rows = snapshot.rows.responses.filter((r) => r.enabled);
  return rankByScope(rows, intent, state, (a, b) => a.priority - b.priority || a.responseId - b.responseId)[0];
}
