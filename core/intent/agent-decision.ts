import type { JsonObject } from '../json';
import { readAgentFields, readFollowups, readIntentScores, type AgentFields, type IntentScore } from './agent-output';
import { cutText } from '../text/cut-text';

export const INTENT_COLLISION_STATE = 'INTENT_COLLISION';

export interface AgentPolicy {
  /** Enabled ce_intent codes, upper-cased. */
  allowedCodes: ReadonlySet<string>;
  /** States the model may move the conversation to (core/config/states.ts), upper-cased. */
  knownStates: ReadonlySet<string>;
  minConfidence: number;
  collisionGap: number;
  hasPendingClarification: boolean;
  /** Whether an intent collects a schema (clarification is then left to the schema flow). */
  isSchemaDriven: (intent: string) => boolean;
}

/**
 * What the model named that the config does not know, so it did not move the conversation (shortened for the
 * audit). The model's output is hostile: an intent or state it makes up would otherwise be stored, searched and
 * matched as if an author had written it.
 */
export interface IgnoredChoice {
  intent?: string;
  state?: string;
}

export type AgentOutcome =
  | { kind: 'REJECTED'; payload: JsonObject }
  | { kind: 'CLARIFY'; intent: string | null; state: string | null; question: string; ignored: IgnoredChoice }
  | {
      kind: 'ACCEPT';
      /** The configured code, upper-cased, whatever case the model wrote it in. */
      intent: string;
      state: string | null;
      confidence: number;
      /** The model's clarificationQuestion, if any: it becomes the pending clarification (§4.3 step 8). */
      question: string | null;
      ignored: IgnoredChoice;
    };

export interface AgentDecision {
  scores: IntentScore[];
  followups: string[];
  collisionCandidates: JsonObject[];
  /** Audits the decision produces before its outcome, in order. */
  events: { stage: string; payload: JsonObject }[];
  outcome: AgentOutcome;
}

const blank = (s: string | null): boolean => s === null || s.trim() === '';

function titleCase(code: string): string {
  return code
    .toLowerCase()
    .replace(/_/g, ' ')
    .trim()
    .split(/\s+/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}

function collisionQuestion(scores: IntentScore[]): string {
  const [a, b] = scores;
  if (!a || !b) return 'Can you clarify which intent you meant?';
  return `Did you mean ${titleCase(a.intent)} or ${titleCase(b.intent)}?`;
}

function isCollision(scores: IntentScore[], gap: number): boolean {
  const [a, b] = scores;
  return a !== undefined && b !== undefined && a.confidence - b.confidence <= gap;
}

/**
 * The agent decision algorithm (§4.3, steps 2–8) on a validated answer: top score fills a blank
 * intent; near-equal top scores become a collision question; a clarification request needs a
 * question; otherwise the intent must be allowed and confident enough.
 */
export function decideAgentOutcome(output: JsonObject, policy: AgentPolicy): AgentDecision {
  const scores = readIntentScores(output, policy.allowedCodes);
  const followups = readFollowups(output);
  const f: AgentFields = readAgentFields(output);
  const events: AgentDecision['events'] = [];
  const top = scores[0];
  if (blank(f.intent) && top) {
    f.intent = top.intent;
    f.confidence = Math.max(f.confidence, top.confidence);
  }
  const collisionCandidates = scores.slice(0, 3).map((s) => ({ code: s.intent, confidence: s.confidence }));
  if (!policy.hasPendingClarification && isCollision(scores, policy.collisionGap)) {
    f.needsClarification = true;
    f.state = INTENT_COLLISION_STATE;
    if (blank(f.question)) f.question = followups[0] ?? collisionQuestion(scores);
    events.push({ stage: 'INTENT_AGENT_COLLISION', payload: collisionPayload(f, collisionCandidates, scores) });
  }
  if (f.needsClarification && !blank(f.intent) && policy.isSchemaDriven(f.intent as string)) {
    events.push({
      stage: 'INTENT_AGENT_CLARIFICATION_SUPPRESSED_SCHEMA_FLOW',
      payload: { intent: f.intent, state: f.state, question: f.question },
    });
    f.needsClarification = false;
    f.question = null;
  }
  const asksClarification = f.needsClarification || (f.state ?? '').toUpperCase() === INTENT_COLLISION_STATE;
  if (asksClarification && blank(f.question) && followups[0]) {
    f.question = followups[0];
    f.needsClarification = true;
  }
  return { scores, followups, collisionCandidates, events, outcome: outcomeOf(f, scores, policy) };
}

function collisionPayload(f: AgentFields, candidates: JsonObject[], scores: IntentScore[]): JsonObject {
  return { intent: f.intent, state: f.state, question: f.question, candidates, scores: scores.slice(0, 3) };
}

function outcomeOf(f: AgentFields, scores: IntentScore[], policy: AgentPolicy): AgentOutcome {
  if (f.needsClarification) {
    if (blank(f.question)) return { kind: 'REJECTED', payload: { reason: 'needsClarification without question' } };
    const intent = knownCode(f.intent, policy.allowedCodes);
    const state = knownCode(f.state, policy.knownStates);
    return {
      kind: 'CLARIFY',
      intent: intent.code,
      state: state.code,
      question: f.question as string,
      ignored: { ...intent.ignored('intent'), ...state.ignored('state') },
    };
  }
  if (blank(f.intent)) {
    return {
      kind: 'REJECTED',
      payload: { reason: 'Intent could not be determined with sufficient confidence', scores },
    };
  }
  const intent = (f.intent as string).trim();
  if (!policy.allowedCodes.has(intent.toUpperCase())) {
    const payload = { intent: preview(intent), state: preview(f.state), reason: 'Intent not in allowed intents' };
    return { kind: 'REJECTED', payload };
  }
  if (f.confidence < policy.minConfidence) {
    return {
      kind: 'REJECTED',
      payload: { intent, state: preview(f.state), confidence: f.confidence, reason: 'confidence below minimum' },
    };
  }
  const state = knownCode(f.state, policy.knownStates);
  return {
    kind: 'ACCEPT',
    intent: intent.toUpperCase(),
    state: state.code,
    confidence: f.confidence,
    question: blank(f.question) ? null : (f.question as string),
    ignored: state.ignored('state'),
  };
}

/** Longest model-written code an audit row repeats when it is ignored. */
const IGNORED_PREVIEW_CHARS = 120;

const preview = (value: string | null): string | null =>
  value === null ? null : cutText(value, IGNORED_PREVIEW_CHARS);

/** A model-written code as the config spells it (trimmed, upper-cased), or null with what was ignored. */
function knownCode(value: string | null, known: ReadonlySet<string>) {
  const code = blank(value) ? null : (value as string).trim().toUpperCase();
  const isKnown = code !== null && known.has(code);
  return {
    code: isKnown ? code : null,
    ignored: (field: keyof IgnoredChoice): IgnoredChoice =>
      code === null || isKnown ? {} : { [field]: preview(value) as string },
  };
}
