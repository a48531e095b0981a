import { readSetting } from '../../core/config/setting';
import { modelSettableStates } from '../../core/config/states';
import { IntentSettings } from '../../core/config/settings/pipeline';
import { normalizeScopeValue } from '../../core/config/scope';
import { decideAgentOutcome, type AgentDecision, type IgnoredChoice } from '../../core/intent/agent-decision';
import { AGENT_OUTPUT_SCHEMA } from '../../core/intent/agent-output';
import { allowedIntents, allowedIntentsJson } from '../../core/intent/allowed';
import { isJsonObject, type JsonObject } from '../../core/json';
import type { LlmJsonResult } from '../../core/llm';
import { renderPrompt } from '../../core/templates';
import type { StepContext } from '../step-runtime';
import { applyRules, llmMeta, promptVars } from './support';

const SCORE_PARAMS = ['intent_collision_candidates', 'intent_scores', 'intent_top3', 'followups'] as const;

async function askAgent(ctx: StepContext, allowed: JsonObject[]): Promise<LlmJsonResult> {
  const session = ctx.scope.session;
  const p = session.inputParams;
  const vars = promptVars(ctx, {
    allowed_intents: allowed,
    intent_collision_candidates: p['intent_collision_candidates'] ?? [],
    intent_scores: p['intent_scores'] ?? [],
  });
  const systemPrompt = renderPrompt(readSetting(ctx.snapshot, IntentSettings.systemPrompt), vars);
  const userPrompt = renderPrompt(readSetting(ctx.snapshot, IntentSettings.userPrompt), vars);
  ctx.scope.audit('INTENT_AGENT_LLM_INPUT', { systemPrompt, userPrompt });
  const answer = await ctx.deps.llm.generateJson({
    kind: 'INTENT',
    systemPrompt,
    userPrompt,
    schema: AGENT_OUTPUT_SCHEMA,
    meta: llmMeta(session),
  });
  session.lastLlmOutput = answer.raw;
  session.lastLlmStage = 'INTENT_AGENT';
  if (answer.ok) {
    // Until the response step answers, the agent's output is the turn's payload (facts `payload`).
    session.payload = { type: 'JSON', value: answer.json };
    session.lastAssistantJson = answer.json;
  }
  ctx.scope.audit('INTENT_AGENT_LLM_OUTPUT', { json: answer.raw });
  return answer;
}

function isSchemaDriven(ctx: StepContext, intent: string): boolean {
  const wanted = normalizeScopeValue(intent);
  return ctx.snapshot.rows.outputSchemas.some((s) => s.enabled && normalizeScopeValue(s.intentCode) === wanted);
}

function decide(ctx: StepContext, output: JsonObject, codes: Set<string>): AgentDecision {
  const session = ctx.scope.session;
  return decideAgentOutcome(output, {
    allowedCodes: codes,
    knownStates: modelSettableStates(ctx.snapshot.rows.rules),
    minConfidence: readSetting(ctx.snapshot, IntentSettings.minConfidence),
    collisionGap: readSetting(ctx.snapshot, IntentSettings.collisionGapThreshold),
    hasPendingClarification: session.pendingClarification !== null,
    isSchemaDriven: (intent) => isSchemaDriven(ctx, intent),
  });
}

function publishScores(ctx: StepContext, decision: AgentDecision): void {
  const p = ctx.scope.session.inputParams;
  p['intent_scores'] = decision.scores;
  p['intent_top3'] = decision.scores.slice(0, 3);
  p['followups'] = decision.followups;
  p['intent_collision_candidates'] = decision.collisionCandidates;
  ctx.scope.audit('INTENT_AGENT_SCORES', { scores: decision.scores, followups: decision.followups });
  for (const e of decision.events) ctx.scope.audit(e.stage, e.payload);
}

/**
 * The LLM intent agent (§4.3). Returns the intent it settled on (accepted or needing
 * clarification), or null when it was rejected or skipped. A bad answer is rejected, never fatal.
 */
export async function resolveIntentByAgent(ctx: StepContext): Promise<string | null> {
  const session = ctx.scope.session;
  const allowed = allowedIntents(ctx.snapshot);
  if (allowed.length === 0) {
    ctx.scope.audit('INTENT_AGENT_SKIPPED', { reason: 'no allowed intents' });
    return null;
  }
  for (const key of SCORE_PARAMS) session.inputParams[key] = [];
  session.inputParams['agentResolver'] = true;
  const answer = await askAgent(ctx, allowedIntentsJson(allowed));
  session.inputParams['agentResolver'] = false;
  if (!answer.ok || !isJsonObject(answer.json)) {
    const reason = !answer.ok && answer.error !== 'invalid json' ? `invalid output: ${answer.error}` : 'invalid json';
    ctx.scope.audit('INTENT_AGENT_REJECTED', { reason });
    return null;
  }
  const decision = decide(ctx, answer.json, new Set(allowed.map((a) => a.code.toUpperCase())));
  publishScores(ctx, decision);
  return applyOutcome(ctx, decision);
}

function sameIntent(current: string, next: string): boolean {
  return normalizeScopeValue(current) === normalizeScopeValue(next);
}

function isUnsetState(state: string): boolean {
  return state.trim() === '' || normalizeScopeValue(state) === 'UNKNOWN';
}

async function applyOutcome(ctx: StepContext, decision: AgentDecision): Promise<string | null> {
  const session = ctx.scope.session;
  const outcome = decision.outcome;
  if (outcome.kind === 'REJECTED') {
    ctx.scope.audit('INTENT_AGENT_REJECTED', outcome.payload);
    return null;
  }
  if (outcome.kind === 'CLARIFY') {
    session.pendingClarification = { question: outcome.question, reason: 'AGENT' };
    if (outcome.intent) session.intent = outcome.intent;
    if (outcome.state) session.state = outcome.state;
    ctx.scope.audit('INTENT_AGENT_NEEDS_CLARIFICATION', {
      intent: session.intent,
      state: session.state,
      question: outcome.question,
      followups: decision.followups,
      ...ignoredFields(outcome.ignored),
    });
    return session.intent;
  }
  // The current state is kept unless the intent changes: a model that answers IDLE for the intent it
  // is already in would otherwise restart a flow in the middle (e.g. during schema collection).
  const keepState = sameIntent(session.intent, outcome.intent) && !isUnsetState(session.state);
  session.intent = outcome.intent;
  if (outcome.state && !keepState) session.state = outcome.state;
  // An accepted intent answers any earlier clarification question; a question the model still asks
  // becomes the pending one (§4.3 step 8), which makes the MCP step skip until it is answered.
  session.pendingClarification = outcome.question ? { question: outcome.question, reason: 'AGENT' } : null;
  await applyRules(ctx, 'POST_AGENT_INTENT', 'AgentIntentResolver', 'AGENT_INTENT_RESOLVER');
  ctx.scope.audit('INTENT_AGENT_ACCEPTED', {
    intent: session.intent,
    state: session.state,
    confidence: outcome.confidence,
    scores: decision.scores.slice(0, 3),
    ...(keepState && outcome.state && outcome.state !== session.state
      ? { stateKept: true, agentState: outcome.state }
      : {}),
    ...ignoredFields(outcome.ignored),
  });
  return session.intent;
}

/** What the model named that the config does not know: audited, never stored as the conversation's. */
function ignoredFields(ignored: IgnoredChoice): JsonObject {
  return {
    ...(ignored.intent === undefined ? {} : { agentIntentIgnored: ignored.intent }),
    ...(ignored.state === undefined ? {} : { agentStateIgnored: ignored.state }),
  };
}
