import { isJsonObject, tryParseJson, type Json } from '../../json';
import { checkJsonPath } from '../../rules/jsonpath';
import type { RuleRow } from '../types';
import { DIALOGUE_ACTS, oneOf } from '../vocabulary';

/** Parsed or rejected: a reason string means the action value is malformed. */
export type Parsed<T> = T | { error: string };

export function isParseError<T>(value: Parsed<T>): value is { error: string } {
  return isJsonObject(value as Json) && typeof (value as { error?: unknown }).error === 'string';
}

/**
 * The input-param keys a SET_INPUT_PARAM value writes. Formats (§3.5): a JSON object (bulk
 * key → value, or `{"key": …, "value": …}`), a JSON array of `{key, value}`, `key:value`, or a
 * bare `key` (→ true).
 */
export function setInputParamKeys(actionValue: string | null): Parsed<string[]> {
  const text = (actionValue ?? '').trim();
  if (text === '') return { error: 'SET_INPUT_PARAM needs an action_value (JSON, key:value or key)' };
  if (text.startsWith('{') || text.startsWith('[')) {
    const json = tryParseJson(text);
    if (json === undefined)
      return { error: `SET_INPUT_PARAM action_value looks like JSON but does not parse: ${text}` };
    return keysOfJsonParams(json);
  }
  const colon = text.indexOf(':');
  const key = (colon < 0 ? text : text.slice(0, colon)).trim();
  return key === '' ? { error: `SET_INPUT_PARAM "${text}" has a blank key` } : [key];
}

function keysOfJsonParams(json: Json): Parsed<string[]> {
  if (isJsonObject(json)) {
    const names = Object.keys(json);
    if (names.length === 2 && typeof json.key === 'string' && 'value' in json) return [json.key];
    return names.length > 0 ? names : { error: 'SET_INPUT_PARAM JSON object is empty' };
  }
  if (!Array.isArray(json)) return { error: 'SET_INPUT_PARAM JSON must be an object or an array of {key, value}' };
  const keys: string[] = [];
  for (const item of json) {
    if (!isJsonObject(item) || typeof item.key !== 'string' || item.key.trim() === '' || !('value' in item)) {
      return { error: 'SET_INPUT_PARAM JSON array items must be {"key": "<name>", "value": …}' };
    }
    keys.push(item.key);
  }
  return keys;
}

/** SET_JSON `key:jsonpath`: blank key → `llm_json`; no colon → key = path = the whole value. */
export function parseSetJsonValue(actionValue: string | null): Parsed<{ key: string; path: string }> {
  const text = (actionValue ?? '').trim();
  if (text === '') return { error: 'SET_JSON needs an action_value "key:jsonpath"' };
  const colon = text.indexOf(':');
  const key = colon < 0 ? text : text.slice(0, colon).trim() || 'llm_json';
  const path = colon < 0 ? text : text.slice(colon + 1).trim();
  const reason = checkJsonPath(path);
  return reason === null ? { key, path } : { error: `SET_JSON path: ${reason}` };
}

/** SET_DIALOGUE_ACT: an act name, or `{dialogueAct, confidence?, source?, standaloneQuery?}`. */
export function parseSetDialogueActValue(actionValue: string | null): Parsed<{ dialogueAct: string }> {
  const text = (actionValue ?? '').trim();
  const acts = DIALOGUE_ACTS.join(', ');
  if (!text.startsWith('{')) {
    const act = oneOf(DIALOGUE_ACTS, text);
    return act ? { dialogueAct: act } : { error: `SET_DIALOGUE_ACT "${text}" is not a dialogue act (${acts})` };
  }
  const json = tryParseJson(text);
  if (!isJsonObject(json))
    return { error: `SET_DIALOGUE_ACT action_value looks like JSON but does not parse: ${text}` };
  const act = typeof json.dialogueAct === 'string' ? oneOf(DIALOGUE_ACTS, json.dialogueAct) : null;
  if (!act) return { error: `SET_DIALOGUE_ACT dialogueAct must be one of ${acts}` };
  const confidence = json.confidence;
  if (confidence !== undefined && (typeof confidence !== 'number' || confidence < 0 || confidence > 1)) {
    return { error: 'SET_DIALOGUE_ACT confidence must be a number between 0 and 1' };
  }
  for (const field of ['source', 'standaloneQuery'] as const) {
    if (json[field] !== undefined && typeof json[field] !== 'string')
      return { error: `SET_DIALOGUE_ACT ${field} must be a string` };
  }
  return { dialogueAct: act };
}

/** SET_TASK `beanName:method1,method2`. */
export function parseSetTaskValue(actionValue: string | null): Parsed<{ bean: string; methods: string[] }> {
  const m = /^\s*([A-Za-z_][\w.-]*)\s*:\s*(.+)$/.exec(actionValue ?? '');
  const methods = (m?.[2] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (!m || methods.length === 0 || methods.some((s) => !/^[A-Za-z_]\w*$/.test(s))) {
    return { error: `SET_TASK action_value must be "beanName:method1,method2" (got "${actionValue ?? ''}")` };
  }
  return { bean: m[1] as string, methods };
}

const GET_DEFAULT_KEYS: Readonly<Record<string, string>> = {
  GET_CONTEXT: 'context',
  GET_SCHEMA_JSON: 'schema_json',
  GET_SESSION: 'session',
};

/** Input-param keys a rule writes (for prompt-variable validation); [] for malformed values. */
export function inputParamKeysWrittenBy(rule: RuleRow): string[] {
  const action = rule.action.trim().toUpperCase();
  if (action === 'SET_INPUT_PARAM') {
    const keys = setInputParamKeys(rule.actionValue);
    return isParseError(keys) ? [] : keys;
  }
  if (action === 'SET_JSON') {
    const parsed = parseSetJsonValue(rule.actionValue);
    return isParseError(parsed) ? [] : [parsed.key];
  }
  const defaultKey = GET_DEFAULT_KEYS[action];
  if (defaultKey === undefined) return [];
  return [(rule.actionValue ?? '').trim() || defaultKey];
}
