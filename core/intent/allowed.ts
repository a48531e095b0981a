import type { ConfigSnapshot } from '../config/types';
import type { JsonObject } from '../json';
import { compareCodePoints } from '../text/compare-code-points';

export interface AllowedIntent {
  code: string;
  description: string;
  llmHint: string | null;
  priority: number;
}

/** Intents the agent may answer with: enabled, not UNKNOWN, by priority. */
export function allowedIntents(snapshot: ConfigSnapshot): AllowedIntent[] {
  return snapshot.rows.intents
    .filter((i) => i.enabled && i.intentCode.trim() !== '' && i.intentCode.trim().toUpperCase() !== 'UNKNOWN')
    .sort((a, b) => a.priority - b.priority || compareCodePoints(a.intentCode, b.intentCode))
    .map((i) => ({ code: i.intentCode.trim(), description: i.description, llmHint: i.llmHint, priority: i.priority }));
}

export function allowedIntentsJson(list: readonly AllowedIntent[]): JsonObject[] {
  return list.map((i) => ({ code: i.code, description: i.description, llmHint: i.llmHint, priority: i.priority }));
}
