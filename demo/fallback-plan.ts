import { normalizeScopeValue } from '../core/config/scope';
import type { McpToolRow } from '../core/config/tool-rows';
import type { ConfigRows } from '../core/config/types';
import { isJsonObject, tryParseJson, type Json, type JsonObject } from '../core/json';
import { toolInputSchema } from '../core/mcp/tool-input-schema';
import { sideEffectOf } from '../core/mcp/tools';
import { guidance, ID, idTokens, spaced, words, type FallbackTurn } from './fallback-turn';

/**
 * The keyless demo model's PLAN answers: call an in-scope read-only tool, DB or HTTP, whose one argument is an
 * id found in the message (or, for a confirmed request, in its prompt) and fits the argument's declared schema;
 * then answer from the tool's result.
 */

/** The JSON array that starts at `start` (strings respected), or null. */
function jsonArrayAt(text: string, start: number): Json | null {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '[' || ch === '{') depth++;
    else if (ch === ']' || ch === '}') {
      depth--;
      if (depth === 0) return tryParseJson(text.slice(start, i + 1)) ?? null;
    }
  }
  return null;
}

function observationsIn(prompt: string): JsonObject[] {
  const at = prompt.lastIndexOf('[{"toolCode"');
  const list = at >= 0 ? jsonArrayAt(prompt, at) : null;
  return Array.isArray(list) ? list.filter(isJsonObject) : [];
}

/** The rows of a tool result: a DB tool's `rows` (or `rowsPreview` when it keeps only a preview), or a list. */
function rowsOf(value: Json): Json[] | null {
  if (Array.isArray(value)) return value;
  if (!isJsonObject(value)) return null;
  const rows = value['rows'] ?? value['rowsPreview'];
  return Array.isArray(rows) ? rows : null;
}

function describeResult(result: Json): string {
  const value = isJsonObject(result) && result['mapped'] !== undefined ? result['mapped'] : result;
  const rows = rowsOf(value);
  if (rows && rows.length === 0) return 'I found no matching records.';
  const first = rows ? rows[0] : value;
  const fields = isJsonObject(first)
    ? Object.entries(first)
        .slice(0, 6)
        .map(([k, v]) => `${k} ${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join(', ')
    : JSON.stringify(first).slice(0, 300);
  return rows && rows.length > 1 ? `I found ${rows.length} records; the first: ${fields}.` : `I found: ${fields}.`;
}

const answer = (text: string) => ({ action: 'ANSWER', tool_code: null, args: {}, answer: text, operation_tag: null });

/** Whether an id may be the argument: a string its declared `pattern` and `maxLength` admit. */
function fitsArgument(id: string, spec: Json | undefined): boolean {
  if (!isJsonObject(spec)) return true;
  const types = Array.isArray(spec['type']) ? spec['type'] : [spec['type'] ?? 'string'];
  if (!types.includes('string')) return false;
  if (typeof spec['maxLength'] === 'number' && id.length > spec['maxLength']) return false;
  if (typeof spec['pattern'] !== 'string') return true;
  try {
    return new RegExp(spec['pattern'], 'u').test(id);
  } catch {
    return false;
  }
}

/**
 * The id a tool's one argument takes: the first in the message that fits it, else the one the planner's prompt
 * names by the argument's words (`policy P-1001` for `policy_number`): a confirmed request's message says only "yes".
 */
function idFor(turn: FallbackTurn, param: string, spec: Json | undefined): string | null {
  const fits = (id: string) => fitsArgument(id, spec);
  const inMessage = idTokens(turn.userInput).find(fits);
  if (inMessage) return inMessage;
  for (const word of words(spaced(param)).reverse()) {
    const after = String.raw`\b${word}\w*\b"?(?:\s+(?:is|of|id|number))?\s*[:=]?\s*"?(${ID})\b`;
    const named = new RegExp(after, 'i').exec(turn.prompt);
    if (named?.[1] && fits(named[1])) return named[1];
  }
  return null;
}

/** The tool's arguments when its declared input schema (a DB tool's param_schema, an HTTP tool's input_schema) has one id. */
function toolArgs(rows: ConfigRows, tool: McpToolRow, turn: FallbackTurn): JsonObject | null {
  const schema = toolInputSchema({ version: 'fallback', rows }, tool);
  const properties = isJsonObject(schema) && isJsonObject(schema['properties']) ? schema['properties'] : {};
  const named = Object.keys(properties).filter((p) => !['limit', 'offset'].includes(p));
  const [param] = named;
  if (named.length !== 1 || param === undefined) return null;
  const id = idFor(turn, param, properties[param]);
  return id ? { [param]: id } : null;
}

export function answerPlan(rows: ConfigRows, turn: FallbackTurn): JsonObject {
  const observations = observationsIn(turn.prompt);
  const last = observations[observations.length - 1];
  if (last) return answer(describeResult(last['result'] ?? null));
  const intent = normalizeScopeValue(turn.intent);
  const state = normalizeScopeValue(turn.state);
  const inScope = rows.mcpTools.filter(
    (t) =>
      t.enabled &&
      [intent, 'ANY'].includes(normalizeScopeValue(t.intentCode)) &&
      [state, 'ANY'].includes(normalizeScopeValue(t.stateCode)) &&
      sideEffectOf(t) === 'READ_ONLY'
  );
  for (const tool of inScope) {
    const args = toolArgs(rows, tool, turn);
    if (args) return { action: 'CALL_TOOL', tool_code: tool.toolCode, args, answer: null, operation_tag: null };
  }
  return answer(guidance(rows));
}
