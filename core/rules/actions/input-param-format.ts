import { isJsonObject, setOwnField, tryParseJson, type Json, type JsonObject } from '../../json';

/** Scalar coercion of `key:value` (§3.5): null, booleans, integers, decimals, else the text. */
export function coerceScalar(text: string): Json {
  const t = text.trim();
  const lower = t.toLowerCase();
  if (lower === 'null') return null;
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  if (/^[-+]?\d+$/.test(t)) return Number(t);
  if (/^[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?$/.test(t)) return Number(t);
  return t;
}

function fromEntryList(list: Json[]): JsonObject | null {
  const out: JsonObject = {};
  for (const item of list) {
    if (!isJsonObject(item) || typeof item['key'] !== 'string') return null;
    setOwnField(out, item['key'], item['value'] ?? null);
  }
  return out;
}

function fromObject(obj: JsonObject): JsonObject {
  const keys = Object.keys(obj);
  const isKeyValue = typeof obj['key'] === 'string' && keys.every((k) => k === 'key' || k === 'value');
  return isKeyValue ? { [obj['key'] as string]: obj['value'] ?? null } : { ...obj };
}

/**
 * Parses a SET_INPUT_PARAM action value into the params it sets. Accepted forms: a JSON object
 * (bulk, or `{"key":..,"value":..}`), a JSON array of `{key,value}`, `key:value` with scalar
 * coercion, or a bare `key` (set to true). Null when the value is blank or malformed.
 */
export function parseInputParamAction(value: string | null): JsonObject | null {
  const text = (value ?? '').trim();
  if (text === '') return null;
  if (text.startsWith('{') || text.startsWith('[')) {
    const parsed = tryParseJson(text);
    if (isJsonObject(parsed)) return fromObject(parsed);
    if (Array.isArray(parsed)) return fromEntryList(parsed);
    return null;
  }
  const colon = text.indexOf(':');
  if (colon < 0) return { [text]: true };
  const key = text.slice(0, colon).trim();
  if (key === '') return null;
  return { [key]: coerceScalar(text.slice(colon + 1)) };
}

/** `key:jsonpath` of SET_JSON: blank key means `llm_json`; no colon means key = path = value. */
export function parseSetJsonAction(value: string | null): { key: string; path: string } | null {
  const text = (value ?? '').trim();
  if (text === '') return null;
  const colon = text.indexOf(':');
  if (colon < 0) return { key: text, path: text };
  const key = text.slice(0, colon).trim() || 'llm_json';
  const path = text.slice(colon + 1).trim();
  return path === '' ? null : { key, path };
}
