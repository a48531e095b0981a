import type { HistoryTurn, Session } from '../session';
import { setOwnField, type Json, type JsonObject } from '../json';
import { safeInputParams } from '../params/safe';
import { payloadFact, sessionDict } from '../session-view';
import { KNOWN_TEMPLATE_ROOTS, STEP_VARIABLE_ALIASES } from '../templates/catalog';

export interface PromptVarOptions {
  /** The context restricted to the resolved schema (prompt var `schema`). */
  schemaJson?: JsonObject;
  /** Wall-clock time of the step (core code reads no clock). ISO string. */
  now?: string;
  timezone?: string;
  /** Step-specific variables; they override everything else. */
  extra?: JsonObject;
}

/** History oldest first, as the model reads a conversation. */
export function historyForPrompt(history: readonly HistoryTurn[]): Json[] {
  return [...history]
    .sort((a, b) => a.turnNumber - b.turnNumber)
    .map((turn) => ({ user: turn.userInput, assistant: assistantText(turn.assistantOutput) }));
}

/** The readable text of a stored assistant output (`{"type":"TEXT","value":…}` or JSON). */
export function assistantText(output: Json | null): string {
  if (output === null) return '';
  if (typeof output === 'string') return output;
  if (typeof output === 'object' && !Array.isArray(output) && 'value' in output) {
    const value = output['value'];
    return typeof value === 'string' ? value : JSON.stringify(value);
  }
  return JSON.stringify(output);
}

function timeVars(now: string | undefined, timezone: string): JsonObject {
  if (!now) return {};
  return {
    current_date: now.slice(0, 10),
    current_datetime: now,
    current_year: now.slice(0, 4),
    current_timezone: timezone,
    current_system_datetime: now,
    current_system_timezone: timezone,
  };
}

function aliasVars(session: Session, history: Json[]): JsonObject {
  const userInput = session.userText;
  const resolved = session.resolvedUserInput || userInput;
  const standalone = session.standaloneQuery ?? '';
  return {
    context: session.context,
    contextJson: session.context,
    context_json: session.context,
    user_input: userInput,
    userInput,
    user_text: userInput,
    input: userInput,
    user_message: userInput,
    resolved_user_input: resolved,
    effective_input: resolved,
    standalone_query: standalone,
    rewritten_query: standalone,
    conversation_history: history,
    history,
    pending_clarification: session.pendingClarification?.question ?? '',
  };
}

/**
 * Variables for rendering prompts and EXACT texts (§8.1): structured roots (`session`,
 * `inputParams`, `context`, `schema`, …), then every key of session, safe input params, context and
 * schema flattened to the top level (first writer wins), then the step aliases, then `extra`.
 */
export function buildPromptVars(session: Session, options: PromptVarOptions = {}): JsonObject {
  const schemaJson = options.schemaJson ?? {};
  const safe = safeInputParams(session.inputParams);
  const dict = sessionDict(session, schemaJson);
  const vars: JsonObject = {
    session: dict,
    inputParams: safe,
    rawInputParams: session.inputParams,
    safeInputParams: safe,
    context: session.context,
    schema: schemaJson,
    schemaJson,
    intent: session.intent,
    state: session.state,
    conversationId: session.conversationId,
    metadata: {},
  };
  for (const layer of [dict, safe, session.context, schemaJson]) {
    // Keys are data (a param named `constructor` or `__proto__`): own fields, tested with hasOwn, not `in`.
    for (const [key, value] of Object.entries(layer)) if (!Object.hasOwn(vars, key)) setOwnField(vars, key, value);
  }
  const history = historyForPrompt(session.history);
  Object.assign(vars, aliasVars(session, history), timeVars(options.now, options.timezone ?? 'UTC'));
  vars['turnNumber'] = session.turnNumber;
  vars['payload'] = payloadFact(session) ?? null;
  return fillCatalogNames(withExtra(vars, options.extra ?? {}));
}

/**
 * `{ ...vars, ...extra }` (the same keys, in the same order, with the same values) without
 * copying the ~180 variables: `vars` is still private to buildPromptVars. Only when an assignment
 * could differ from the copy (a `__proto__` key in `extra`, which Object.assign would make the
 * prototype) is the copy made.
 */
function withExtra(vars: JsonObject, extra: JsonObject): JsonObject {
  if (Object.hasOwn(extra, '__proto__')) return { ...vars, ...extra };
  return Object.assign(vars, extra);
}

// The catalog is constant: listed once, not per call.
const ALIAS_FAMILIES = Object.values(STEP_VARIABLE_ALIASES);
const TEMPLATE_ROOTS = [...KNOWN_TEMPLATE_ROOTS];

/**
 * Config validation accepts every name of the template catalog, so every one of them must exist at
 * render time: an alias takes its family's value, anything not set this turn is null (renders as
 * ''). Only typos (refused at load) or missing sub-paths can then fail a render.
 */
function fillCatalogNames(vars: JsonObject): JsonObject {
  for (const family of ALIAS_FAMILIES) {
    const present = family.find((name) => vars[name] !== undefined);
    const value = present === undefined ? null : (vars[present] as Json);
    for (const name of family) if (vars[name] === undefined) vars[name] = value;
  }
  for (const name of TEMPLATE_ROOTS) if (vars[name] === undefined) vars[name] = null;
  return vars;
}
