import { isJsonObject, tryParseJson, type Json, type JsonObject } from './json';
import { stringParam } from './params/safe';
import type { Session } from './session';

/** The last LLM output as an object (facts `lastLlmOutput`); `{}` when absent or not an object. */
function lastLlmObject(session: Session): JsonObject {
  if (!session.lastLlmOutput) return {};
  const parsed = tryParseJson(session.lastLlmOutput);
  return isJsonObject(parsed) ? parsed : {};
}

/**
 * The session as rules and prompts see it (facts layer 2, the `session` prompt variable and the
 * GET_SESSION action). `schemaJson` is the context restricted to the resolved schema's fields.
 */
export function sessionDict(session: Session, schemaJson: JsonObject): JsonObject {
  const params = session.inputParams;
  return {
    conversationId: session.conversationId,
    intent: session.intent,
    state: session.state,
    schemaComplete: session.schemaComplete,
    hasContainerData: false,
    containerData: {},
    hasAnySchemaValue: session.hasAnySchemaValue,
    intentLocked: session.intentLocked,
    intentLockReason: session.intentLockReason,
    missingRequiredFields: session.missingRequiredFields,
    missingFieldOptions: session.missingFieldOptions,
    userText: session.userText,
    standaloneQuery: session.standaloneQuery,
    resolvedUserInput: session.resolvedUserInput,
    pendingClarificationQuestion: session.pendingClarification?.question ?? null,
    lastLlmStage: session.lastLlmStage,
    postIntentRule: params['post_intent_rule'] === true,
    ruleExecutionSource: stringParam(params, 'rule_execution_source'),
    ruleExecutionOrigin: stringParam(params, 'rule_execution_origin'),
    context: session.context,
    schemaJson,
    lastLlmOutput: lastLlmObject(session),
    stepInfos: session.stepInfos as JsonObject,
  };
}

/** The current payload as JSON (facts `payload`): JSON payloads as-is, text as `{text}`. */
export function payloadFact(session: Session): Json | undefined {
  const payload = session.payload;
  if (!payload) return undefined;
  return payload.type === 'JSON' ? payload.value : { text: payload.value };
}
