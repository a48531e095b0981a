import { setOwnField, type Json, type JsonObject } from '../json';

/**
 * Input params that are bulky or echo other session parts. They are kept out of the facts
 * document, audit `_meta`, and the persisted input_params_json, like the Java engine's
 * "safe" input params.
 */
export const UNSAFE_PARAM_KEYS = [
  'session',
  'context',
  'schema_json',
  'schema_field_details',
  'missing_field_options',
  'mcp_observations',
] as const;

// Looked up for every key of every audit row's and prompt's params.
const UNSAFE_KEYS: ReadonlySet<string> = new Set(UNSAFE_PARAM_KEYS);

/** Keys are the request's: each is written as an own field (setOwnField), `__proto__` and `constructor` included. */
export function safeInputParams(inputParams: JsonObject): JsonObject {
  const out: JsonObject = {};
  const dropped: Json[] = [];
  for (const key of Object.keys(inputParams)) {
    if (UNSAFE_KEYS.has(key)) dropped.push(key);
    else setOwnField(out, key, inputParams[key]);
  }
  if (dropped.length > 0) setOwnField(out, 'droppedSystemPromptVars', dropped);
  return out;
}

/** Truthiness of a request flag as clients send it: true, "true", "1", "yes", 1. */
export function isTruthyFlag(value: Json | undefined): boolean {
  if (value === true) return true;
  if (typeof value === 'number') return value === 1;
  if (typeof value === 'string') return ['true', '1', 'yes', 'y'].includes(value.trim().toLowerCase());
  return false;
}

export function stringParam(params: JsonObject, key: string): string | null {
  const value = params[key];
  return typeof value === 'string' ? value : null;
}
