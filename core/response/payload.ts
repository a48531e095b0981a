import { isJsonObject, tryParseJson, type Json } from '../json';
import type { Payload } from '../session';

/** A text reply and how it is stored as last_assistant_json. */
export function textPayload(text: string): { payload: Payload; stored: Json } {
  return { payload: { type: 'TEXT', value: text }, stored: { type: 'TEXT', value: text } };
}

/**
 * A JSON reply from text: JSON objects/arrays are the payload and stored as-is; anything else is a
 * JSON payload holding the text, stored as `{"type":"JSON_TEXT","value":…}`.
 */
export function jsonPayloadFromText(text: string): { payload: Payload; stored: Json } {
  const parsed = tryParseJson(text.trim());
  if (parsed !== undefined && (isJsonObject(parsed) || Array.isArray(parsed)))
    return { payload: { type: 'JSON', value: parsed }, stored: parsed };
  return { payload: { type: 'JSON', value: text }, stored: { type: 'JSON_TEXT', value: text } };
}

export function payloadText(payload: Payload | null): string {
  if (!payload) return '';
  return typeof payload.value === 'string' ? payload.value : JSON.stringify(payload.value);
}
