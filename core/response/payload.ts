import { EngineError, ErrorType } from '../errors';
import { isJsonObject, tryParseJson, type Json } from '../json';
import type { Payload } from '../session';

/** A text reply and how it is stored as last_assistant_json. */
export function textPayload(text: string): { payload: Payload; stored: Json } {
  return { payload: { type: 'TEXT', value: text }, stored: { type: 'TEXT', value: text } };
}

/** What an output_format JSON reply must be: what clients parse, and what last_assistant_json stores as it is. */
export const JSON_REPLY_SHAPE = 'a JSON object or array';

/** The JSON a reply's text holds when it is JSON_REPLY_SHAPE, else undefined. */
export function jsonReplyValue(text: string): Json | undefined {
  const parsed = tryParseJson(text.trim());
  return parsed !== undefined && (isJsonObject(parsed) || Array.isArray(parsed)) ? parsed : undefined;
}

/**
 * A JSON reply from the text a response row rendered: the JSON is the payload and is stored as it is. Validation
 * refuses a template that is not JSON_REPLY_SHAPE whatever its values are, and values render as JSON
 * (core/templates/json-render.ts), so this throws RESPONSE_NOT_JSON, failing the turn with nothing committed, only
 * for text no check saw (a fallback). The Java engine sent such text as a JSON payload holding a string, which a
 * client that asked for JSON cannot read.
 */
export function jsonPayloadFromText(text: string, responseId: number): { payload: Payload; stored: Json } {
  const value = jsonReplyValue(text);
  if (value !== undefined) return { payload: { type: 'JSON', value }, stored: value };
  throw new EngineError(
    ErrorType.ResponseNotJson,
    `ce_response[${responseId}] has output_format JSON, but its exact_text rendered text that is not ${JSON_REPLY_SHAPE}`,
    { details: { responseId } }
  );
}

export function payloadText(payload: Payload | null): string {
  if (!payload) return '';
  return typeof payload.value === 'string' ? payload.value : JSON.stringify(payload.value);
}
