import type { Json, JsonObject } from './json';

/**
 * Every LLM call names its kind. The kind selects prompts and the expected JSON contract, is
 * logged in ce_llm_call_log, and is how the scripted Messages server chooses a completion.
 */
export const LLM_CALL_KINDS = [
  'DA',
  'INTENT',
  'SCHEMA',
  'RESP_TEXT',
  'RESP_JSON',
  'COLLISION',
  'DISAMBIGUATION',
  'PLAN',
  'SEMANTIC_INTERPRET',
  'SEMANTIC_QUERY',
  'SQL_REPAIR',
] as const;
export type LlmCallKind = (typeof LLM_CALL_KINDS)[number];

export interface LlmCallMeta {
  conversationId: string;
  turnNumber: number;
  intent: string;
  state: string;
  /** The user's message this turn (sent only to a keyless demo model, see LLM_DEMO_META_FIELD). */
  userText?: string;
  /** The required schema fields still missing, when a schema applies (sent only to a keyless demo model). */
  missingFields?: string[];
}

export interface LlmRequest {
  kind: LlmCallKind;
  systemPrompt: string;
  userPrompt: string;
  /** JSON Schema the answer must satisfy (JSON calls only). */
  schema?: JsonObject;
  temperature?: number;
  meta: LlmCallMeta;
}

/**
 * A JSON call never throws for a bad answer (a cut-off one included): callers decide (reject, fall back) from `error`. An answer
 * that is JSON but breaks the schema also carries it as `unchecked`, for callers that take what is
 * usable of it (schema extraction keeps the fields that pass; a DERIVED JSON reply is sent as it is).
 */
export type LlmJsonResult =
  { ok: true; json: Json; raw: string } | { ok: false; raw: string; error: string; unchecked?: Json };

export interface LlmClient {
  /**
   * Throws retryably (LLM_CALL_FAILED) for transport failures: 429/5xx/timeouts after the SDK's own retries; and
   * LLM_OUTPUT_INVALID, not retried, for a reply with no text or one cut off at the token budget.
   */
  generateText(req: LlmRequest): Promise<string>;
  generateJson(req: LlmRequest): Promise<LlmJsonResult>;
}

/** HTTP header naming the call kind on every Messages request (the scripted server keys its script on it). */
export const LLM_CALL_KIND_HEADER = 'x-convengine-call-kind';

/**
 * The body field a keyless demo model reads (never sent to a real provider, which refuses fields it does not know):
 * the turn's intent, state and message, and the schema fields still missing, which it asks for in a collecting
 * state. In the body, not in headers: a header holds a few KiB (Node's server takes 16 KiB of them in all), so a
 * message of CJK or Thai text, 9 bytes a character percent-encoded, did not fit, and its turn failed with a 431.
 * The body already carries the message in the prompt, so this adds no limit of its own.
 */
export const LLM_DEMO_META_FIELD = 'convengine_meta';

export interface LlmDemoMeta {
  intent: string;
  state: string;
  /** The user's message, whole. */
  userInput: string;
  missingFields?: string[];
}
