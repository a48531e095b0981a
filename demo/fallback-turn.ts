import type { ConfigRows } from '../core/config/types';
import { isJsonObject, tryParseJson, type JsonObject } from '../core/json';
import { LLM_DEMO_META_FIELD } from '../core/llm';
import { selectResponse } from '../core/response/select';
import type { RecordedRequest } from '../scripted-llm';

/** One call to the keyless demo's fallback model (demo/fallback-model.ts), as its request shows it. */
export interface FallbackTurn {
  kind: string;
  intent: string;
  state: string;
  userInput: string;
  /** System prompt + user prompt, as sent. */
  prompt: string;
  /** The JSON schema the engine appended to the system prompt (JSON calls). */
  schema: JsonObject | null;
  /** The required schema fields still missing (none when no schema applies or it is complete). */
  missingFields: string[];
}

const STOPWORDS = new Set(
  'the and for with that this what which from have has had can you your are was were will would could should please about into when where there their them they then than our out not but all any how who why its his her him she per via'.split(
    ' '
  )
);

export function words(text: string): string[] {
  return (text.toLowerCase().match(/[a-z][a-z0-9]{2,}/g) ?? []).filter((w) => !STOPWORDS.has(w));
}

/** `customerId`, `policy_number` → `customer Id`, `policy number`. */
export const spaced = (name: string) => name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/_/g, ' ');

/** An id-like token: letters then digits (ORD-7017, CON1388, ZPR1003, CUST-1001), or one letter and a dash (P-1001). */
export const ID = String.raw`(?:[A-Za-z]{2,}[A-Za-z0-9]*[-_]?|[A-Za-z][-_])\d+[A-Za-z0-9-]*`;
const ID_TOKENS = new RegExp(String.raw`\b${ID}\b`, 'g');

/** Every id-like token of the text, in order. */
export const idTokens = (text: string): string[] => text.match(ID_TOKENS) ?? [];

const textOf = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The engine's meta in the request's body (LLM_DEMO_META_FIELD); every field read as the type it should have. */
function demoMetaOf(request: RecordedRequest) {
  const meta = request.body[LLM_DEMO_META_FIELD];
  const fields = isJsonObject(meta) ? meta : {};
  const missing = fields['missingFields'];
  return {
    intent: textOf(fields['intent']),
    state: textOf(fields['state']),
    userInput: textOf(fields['userInput']),
    missingFields: Array.isArray(missing) ? missing.filter((f): f is string => typeof f === 'string') : [],
  };
}

export function turnOf(request: RecordedRequest): FallbackTurn {
  const meta = demoMetaOf(request);
  const marker = request.system.lastIndexOf('JSON Schema:\n');
  const schemaText = marker >= 0 ? request.system.slice(marker + 'JSON Schema:\n'.length) : '';
  const schema = tryParseJson(schemaText.trim());
  return {
    kind: request.kind ?? '',
    intent: meta.intent || 'UNKNOWN',
    state: meta.state || 'UNKNOWN',
    userInput: meta.userInput || request.userText,
    prompt: `${request.system}\n${request.userText}`,
    schema: isJsonObject(schema) ? schema : null,
    missingFields: meta.missingFields,
  };
}

/** The UNKNOWN intent's reply (it lists what the demo understands), or a plain default. */
export function guidance(rows: ConfigRows): string {
  const row = selectResponse({ version: 'fallback', rows }, 'UNKNOWN', 'ANY');
  return row?.exactText?.trim() || 'Sorry, I did not understand that. Can you rephrase?';
}
