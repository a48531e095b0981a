import { normalizeScopeValue } from '../core/config/scope';
import type { ConfigRows } from '../core/config/types';
import { tryParseJson, type JsonObject } from '../core/json';
import { answerPlan } from './fallback-plan';
import { answerSchema } from './fallback-schema';
import { guidance, words, type FallbackTurn } from './fallback-turn';

/**
 * The keyless demo's model for everything the recordings do not cover: deterministic, and built
 * only from the loaded config and the request. Intents by keyword overlap with each intent's
 * code, description, hint and classifier patterns; schema fields by simple patterns
 * (demo/fallback-schema.ts); the planner calls an in-scope read-only tool with an id it finds in the
 * message (or, for a confirmed request, in its prompt) and answers from the tool results
 * (demo/fallback-plan.ts). A DERIVED reply asks for the missing fields while a schema is being
 * collected and repeats the planner's answer once there is one. Where nothing fits, the reply is the
 * UNKNOWN intent's guidance. Its answers are always valid for the call kind, so no input fails a turn.
 */

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

/** The planner's answer in the context the prompt shows (`"finalAnswer":"…"`), which a final reply repeats. */
function plannerAnswerIn(prompt: string): string | null {
  const at = prompt.lastIndexOf('"finalAnswer":');
  const quoted = at >= 0 ? /^"finalAnswer":\s*("(?:[^"\\]|\\.)*")/.exec(prompt.slice(at))?.[1] : undefined;
  const text = quoted === undefined ? null : tryParseJson(quoted);
  return typeof text === 'string' && text.trim() !== '' ? text : null;
}

/** `a`, `a and b`, `a, b and c`. */
function listed(names: readonly string[]): string {
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}` : (names[0] ?? '');
}

/**
 * A DERIVED reply: while a schema is incomplete it asks for the missing fields by name (what a collecting
 * prompt asks for: "Ask only for the missing fields"); after the planner answered, that answer; else guidance.
 */
export function answerReply(rows: ConfigRows, turn: FallbackTurn): string {
  if (turn.missingFields.length > 0) return `Please tell me the ${listed(turn.missingFields)}.`;
  return plannerAnswerIn(turn.prompt) ?? guidance(rows);
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
    case 'RESP_TEXT':
      return answerReply(rows, turn);
    case 'RESP_JSON':
      return { message: answerReply(rows, turn) };
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
