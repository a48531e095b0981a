import { normalizeScopeValue } from '../core/config/scope';
import type { ConfigRows } from '../core/config/types';
import { isJsonObject, tryParseJson, type Json, type JsonObject } from '../core/json';
import { LLM_META_HEADERS } from '../core/llm';
import { sideEffectOf } from '../core/mcp/tools';
import { selectResponse } from '../core/response/select';
import type { RecordedRequest } from '../scripted-llm';

/**
 * The keyless demo's model for everything the recordings do not cover: deterministic, and built
 * only from the loaded config and the request. Intents by keyword overlap with each intent's
 * code, description, hint and classifier patterns; schema fields by simple patterns (ISO dates for
 * date fields, sums of money for amounts); the planner calls an in-scope tool with an id it finds in
 * the message (or, for a confirmed request, in its prompt) and answers from the tool results.
 * Where nothing fits, the reply is the UNKNOWN intent's guidance. Its answers are always valid for
 * the call kind, so no input fails a turn.
 */
export interface FallbackTurn {
  kind: string;
  intent: string;
  state: string;
  userInput: string;
  /** System prompt + user prompt, as sent. */
  prompt: string;
  /** The JSON schema the engine appended to the system prompt (JSON calls). */
  schema: JsonObject | null;
}

const STOPWORDS = new Set(
  'the and for with that this what which from have has had can you your are was were will would could should please about into when where there their them they then than our out not but all any how who why its his her him she per via'.split(
    ' '
  )
);

export function words(text: string): string[] {
  return (text.toLowerCase().match(/[a-z][a-z0-9]{2,}/g) ?? []).filter((w) => !STOPWORDS.has(w));
}

/** An id-like token: letters then digits (ORD-7017, CON1388, ZPR1003, CUST-1001), or one letter and a dash (P-1001). */
const ID = String.raw`(?:[A-Za-z]{2,}[A-Za-z0-9]*[-_]?|[A-Za-z][-_])\d+[A-Za-z0-9-]*`;
const ID_TOKEN = new RegExp(String.raw`\b${ID}\b`);
/** A calendar date as ISO 8601 writes it (2026-03-01). */
const ISO_DATE = /\b\d{4}-\d{2}-\d{2}\b/;
/** An amount of money: a number with a currency code, word or sign before or after it (1200 EUR, $35.50, 40 euros). */
const MONEY =
  /(?:[$€£]\s*(\d[\d,]*(?:\.\d+)?))|(?:(\d[\d,]*(?:\.\d+)?)\s*(?:EUR|USD|GBP|CHF|euros?|dollars?|pounds?|[$€£]))/i;

export function turnOf(request: RecordedRequest): FallbackTurn {
  const header = (name: string) => decodeURIComponent(request.headers[name] ?? '');
  const marker = request.system.lastIndexOf('JSON Schema:\n');
  const schemaText = marker >= 0 ? request.system.slice(marker + 'JSON Schema:\n'.length) : '';
  const schema = tryParseJson(schemaText.trim());
  return {
    kind: request.kind ?? '',
    intent: header(LLM_META_HEADERS.intent) || 'UNKNOWN',
    state: header(LLM_META_HEADERS.state) || 'UNKNOWN',
    userInput: header(LLM_META_HEADERS.userInput) || request.userText,
    prompt: `${request.system}\n${request.userText}`,
    schema: isJsonObject(schema) ? schema : null,
  };
}

/** The UNKNOWN intent's reply (it lists what the demo understands), or a plain default. */
export function guidance(rows: ConfigRows): string {
  const row = selectResponse({ version: 'fallback', rows }, 'UNKNOWN', 'ANY');
  return row?.exactText?.trim() || 'Sorry, I did not understand that. Can you rephrase?';
}

function intentVocabulary(rows: ConfigRows, intentCode: string): Set<string> {
  const intent = rows.intents.find((i) => i.intentCode === intentCode);
  const texts = [intentCode.replace(/_/g, ' '), intent?.description, intent?.displayName, intent?.llmHint];
  for (const c of rows.classifiers) if (c.enabled && c.intentCode === intentCode) texts.push(c.pattern, c.description);
  return new Set(words(texts.filter(Boolean).join(' ')));
}

/** The state an intent starts in: its classifier's state, else a state it has a reply for. */
function entryState(rows: ConfigRows, intentCode: string): string {
  const classifier = rows.classifiers.find((c) => c.enabled && c.intentCode === intentCode);
  if (classifier && normalizeScopeValue(classifier.stateCode) !== 'UNKNOWN') return classifier.stateCode;
  const reply = rows.responses.find((r) => r.enabled && r.intentCode === intentCode && r.stateCode !== 'ANY');
  return reply?.stateCode ?? 'IDLE';
}

export function answerIntent(rows: ConfigRows, turn: FallbackTurn): JsonObject {
  const said = new Set(words(turn.userInput));
  const scored = rows.intents
    .filter((i) => i.enabled && !['UNKNOWN', 'GREETING'].includes(i.intentCode))
    .map((i) => ({
      code: i.intentCode,
      score: [...intentVocabulary(rows, i.intentCode)].filter((w) => said.has(w)).length,
    }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score);
  const [top, second] = scored;
  if (!top || (second && second.score === top.score)) return { intent: null, confidence: 0, needsClarification: false };
  // As the default prompt says: keep the current state unless the intent changes.
  const state = normalizeScopeValue(turn.intent) === top.code ? turn.state : entryState(rows, top.code);
  const confidence = 0.9;
  return { intent: top.code, state, confidence, intentScores: [{ intent: top.code, confidence }] };
}

function fieldType(spec: Json | undefined): string {
  const type = isJsonObject(spec) ? spec['type'] : undefined;
  if (Array.isArray(type)) return String(type.find((t) => t !== 'null') ?? 'string');
  return typeof type === 'string' ? type : 'string';
}

/** `customerId`, `policy_number` → `customer Id`, `policy number`. */
const spaced = (name: string) => name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/_/g, ' ');

/** The field's name, title, description and format: what tells a date or an amount from other fields. */
function fieldText(name: string, spec: Json | undefined): string {
  const about = isJsonObject(spec) ? [spec['title'], spec['description'], spec['format']] : [];
  return [spaced(name), ...about].filter(Boolean).join(' ');
}

const isDateField = (about: string, numeric: boolean) => !numeric && /\bdate\b|YYYY-MM-DD/i.test(about);
const isMoneyField = (about: string, numeric: boolean) =>
  numeric && /\b(cost|amount|price|fee|total|sum|eur|usd|gbp|chf)\b/i.test(about);

function moneyIn(text: string): number | null {
  const money = MONEY.exec(text);
  return money ? Number((money[1] ?? money[2] ?? '').replace(/,/g, '')) : null;
}

/**
 * `customerId 1234`, `amount: 35000`, `24 months`: the value after (or before) the field's words. A date field
 * takes the message's ISO date whatever words come before it (`damage on 2026-03-01`), and an amount field not
 * named by its words takes a sum of money (`about 1200 EUR`).
 */
function extractField(text: string, name: string, spec: Json | undefined): Json {
  const about = fieldText(name, spec);
  const numeric = ['number', 'integer'].includes(fieldType(spec));
  if (isDateField(about, numeric)) return ISO_DATE.exec(text)?.[0] ?? keyedValue(text, name, numeric);
  return keyedValue(text, name, numeric) ?? (isMoneyField(about, numeric) ? moneyIn(text) : null);
}

function keyedValue(text: string, name: string, numeric: boolean): Json {
  const keyWords = words(spaced(name));
  const value = numeric ? '(-?\\d[\\d,]*(?:\\.\\d+)?)' : '([A-Za-z0-9][\\w.@/-]*)';
  for (const word of keyWords.slice().reverse()) {
    const after = new RegExp(`\\b${word}\\w*\\b(?:\\s+(?:is|of|id|number|to))?\\s*[:=]?\\s*${value}`, 'i').exec(text);
    const before = numeric ? new RegExp(`${value}\\s*${word}`, 'i').exec(text) : null;
    const raw = after?.[1] ?? before?.[1];
    if (raw !== undefined) return numeric ? Number(raw.replace(/,/g, '')) : raw;
  }
  if (!numeric && /\b(id|number|code|ref)\b/i.test(spaced(name))) return ID_TOKEN.exec(text)?.[0] ?? null;
  return null;
}

export function answerSchema(turn: FallbackTurn): JsonObject {
  const properties = turn.schema && isJsonObject(turn.schema['properties']) ? turn.schema['properties'] : {};
  const out: JsonObject = {};
  for (const [name, spec] of Object.entries(properties)) out[name] = extractField(turn.userInput, name, spec);
  return out;
}

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

/**
 * The id a tool's one parameter takes: the id in the message, else the id the planner's prompt names by the
 * parameter's words (`policy P-1001` for `policy_number`): a confirmed request's message says only "yes".
 */
function idFor(turn: FallbackTurn, param: string): string | null {
  const inMessage = ID_TOKEN.exec(turn.userInput)?.[0];
  if (inMessage) return inMessage;
  for (const word of words(spaced(param)).reverse()) {
    const after = String.raw`\b${word}\w*\b"?(?:\s+(?:is|of|id|number))?\s*[:=]?\s*"?(${ID})\b`;
    const named = new RegExp(after, 'i').exec(turn.prompt);
    if (named?.[1]) return named[1];
  }
  return null;
}

function toolArgs(rows: ConfigRows, toolId: number, turn: FallbackTurn): JsonObject | null {
  const db = rows.mcpDbTools.find((t) => t.toolId === toolId);
  const properties = db && isJsonObject(db.paramSchema) ? db.paramSchema['properties'] : undefined;
  const params = isJsonObject(properties) ? Object.keys(properties) : [];
  const named = params.filter((p) => !['limit', 'offset'].includes(p));
  const id = named.length === 1 ? idFor(turn, named[0] as string) : null;
  return id ? { [named[0] as string]: id } : null;
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
    const args = toolArgs(rows, tool.toolId, turn);
    if (args) return { action: 'CALL_TOOL', tool_code: tool.toolCode, args, answer: null, operation_tag: null };
  }
  return answer(guidance(rows));
}

/** Dialogue acts by cue words, first match wins; what the regex pass of the engine leaves undecided lands here. */
const ACT_CUES: readonly (readonly [string, RegExp])[] = [
  ['EDIT', /\b(change|make it|update|instead|actually|correct|switch)\b/i],
  ['AFFIRM', /\b(yes|yeah|yep|go ahead|proceed|confirm(ed)?|looks good|sounds good|do it|please do)\b/i],
  ['NEGATE', /^\s*(no|nope|cancel|stop|don'?t)\b/i],
  ['GREETING', /^\s*(hi|hello|hey|good (morning|afternoon|evening))\b/i],
  ['QUESTION', /\?\s*$/],
];

export function answerDialogueAct(turn: FallbackTurn): JsonObject {
  const cue = ACT_CUES.find(([, pattern]) => pattern.test(turn.userInput));
  return { dialogueAct: cue?.[0] ?? 'NEW_REQUEST', confidence: cue ? 0.8 : 0.5, standaloneQuery: turn.userInput };
}

/** A valid answer for every call kind. */
export function fallbackAnswer(rows: ConfigRows, turn: FallbackTurn): unknown {
  switch (turn.kind) {
    case 'DA':
      return answerDialogueAct(turn);
    case 'INTENT':
      return answerIntent(rows, turn);
    case 'SCHEMA':
      return answerSchema(turn);
    case 'PLAN':
      return answerPlan(rows, turn);
    case 'RESP_JSON':
      return { message: guidance(rows) };
    case 'COLLISION':
    case 'DISAMBIGUATION':
      return 'Which of these did you mean? Please say it in a few more words.';
    case 'SEMANTIC_INTERPRET':
    case 'SEMANTIC_QUERY':
    case 'SQL_REPAIR':
      return {};
    default:
      return guidance(rows);
  }
}
