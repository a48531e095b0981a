import { isJsonObject, type Json, type JsonObject } from '../json';
import { compareCodePoints } from '../text/compare-code-points';

/**
 * The intent agent's JSON answer (§4.3). Validated before use: each field must have the documented
 * type when present, so a wrong-typed answer is rejected instead of misread.
 */
export const AGENT_OUTPUT_SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    intent: { type: ['string', 'null'] },
    state: { type: ['string', 'null'] },
    confidence: { type: ['number', 'null'] },
    needsClarification: { type: ['boolean', 'null'] },
    clarificationResolved: { type: ['boolean', 'null'] },
    clarificationQuestion: { type: ['string', 'null'] },
    intentScores: { type: ['array', 'object', 'null'] },
    followups: { type: ['array', 'string', 'null'] },
    follow_ups: { type: ['array', 'string', 'null'] },
  },
};

export type IntentScore = { intent: string; confidence: number };

const clamp01 = (n: number) => Math.max(0, Math.min(1, n));
const num = (v: Json | undefined): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const text = (v: Json | undefined): string | null => (typeof v === 'string' ? v : null);

function scoreEntries(raw: Json | undefined): [string, number][] {
  if (isJsonObject(raw)) return Object.entries(raw).map(([code, v]) => [code, num(v)]);
  if (!Array.isArray(raw)) return [];
  return raw.filter(isJsonObject).map((item) => {
    const code = text(item['intent']) || text(item['code']) || '';
    // Some models say "score" instead of "confidence".
    const confidence = num(item['confidence']) > 0 ? num(item['confidence']) : num(item['score']);
    return [code, confidence];
  });
}

/** Scores limited to allowed intents, clamped to [0,1], best first (ties by code). */
export function readIntentScores(output: JsonObject, allowed: ReadonlySet<string>): IntentScore[] {
  const raw = output['intentScores'] ?? output['intent_scores'];
  return scoreEntries(raw)
    .filter(([code]) => code.trim() !== '' && allowed.has(code.trim().toUpperCase()))
    .map(([code, confidence]) => ({ intent: code.trim(), confidence: clamp01(confidence) }))
    .sort((a, b) => b.confidence - a.confidence || compareCodePoints(a.intent, b.intent));
}

export function readFollowups(output: JsonObject): string[] {
  const raw = output['followups'] ?? output['follow_ups'];
  if (typeof raw === 'string') return raw.trim() === '' ? [] : [raw.trim()];
  if (!Array.isArray(raw)) return [];
  return raw.map((v) => (typeof v === 'string' ? v.trim() : JSON.stringify(v))).filter((v) => v !== '');
}

export interface AgentFields {
  intent: string | null;
  state: string | null;
  confidence: number;
  needsClarification: boolean;
  question: string | null;
}

export function readAgentFields(output: JsonObject): AgentFields {
  return {
    intent: text(output['intent']),
    state: text(output['state']),
    confidence: num(output['confidence']),
    needsClarification: output['needsClarification'] === true,
    question: text(output['clarificationQuestion']),
  };
}
