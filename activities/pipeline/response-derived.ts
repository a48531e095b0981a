import type { ResponseRow } from '../../core/config/types';
import { EngineError, ErrorType } from '../../core/errors';
import { isJsonObject, type Json } from '../../core/json';
import type { LlmRequest } from '../../core/llm';
import { buildFacts } from '../../core/rules/facts';
import { textPayload } from '../../core/response/payload';
import { templateFor } from '../../core/schema/resolve';
import { sessionSchemaSubset } from '../../core/schema/subset';
import type { Payload } from '../../core/session';
import { renderPrompt } from '../../core/templates';
import type { StepContext } from '../step-runtime';
import { llmMeta, promptVars } from './support';

function promptsFor(ctx: StepContext, response: ResponseRow) {
  const session = ctx.scope.session;
  const template = templateFor(ctx.snapshot, response.outputFormat, session.intent, session.state);
  if (!template) {
    throw new EngineError(
      ErrorType.PromptTemplateMissing,
      `no ${response.outputFormat} prompt template for DERIVED response ${response.responseId} (${session.intent}/${session.state})`,
      { details: { responseId: response.responseId, intent: session.intent, state: session.state } }
    );
  }
  ctx.scope.audit('RESOLVE_RESPONSE_SELECTED', {
    templateId: template.templateId,
    templateDesc: template.description,
    intent: session.intent,
    outputFormat: response.outputFormat,
    resolver: 'DERIVED',
  });
  const vars = promptVars(ctx, {
    derivation_hint: response.derivationHint ?? '',
    derivationHint: response.derivationHint ?? '',
  });
  return {
    template,
    systemPrompt: renderPrompt(template.systemPrompt ?? '', vars),
    userPrompt: renderPrompt(template.userPrompt ?? '', vars),
  };
}

/** What a DERIVED call sends besides its kind and schema. */
type DerivedRequest = Omit<LlmRequest, 'kind' | 'schema'>;

/** The non-blank intent and state codes a JSON reply names (§8 ⚠, scenario 54); anything else names none. */
function namedIntentState(json: Json): { intent?: string; state?: string } {
  if (!isJsonObject(json)) return {};
  const code = (value: Json | undefined) => (typeof value === 'string' && value.trim() !== '' ? value : undefined);
  const intent = code(json['intent']);
  const state = code(json['state']);
  return { ...(intent === undefined ? {} : { intent }), ...(state === undefined ? {} : { state }) };
}

/**
 * RESOLVE_RESPONSE_LLM_OUTPUT of a JSON reply: `valid`/`error` judge it against `json_schema`. A reply that
 * breaks the schema is still the payload (§8: the call is made with the schema, nothing validates the
 * output), but it does not move the conversation: `intentStateIgnored` says it named an intent or state.
 */
type DerivedJsonOutputPayload = { output: string; valid: boolean; error?: string; intentStateIgnored: boolean };

/** A JSON reply: the payload whenever it parses; only one that matches its schema may move the conversation. */
async function derivedJson(ctx: StepContext, response: ResponseRow, request: DerivedRequest): Promise<Json> {
  const session = ctx.scope.session;
  const schema = isJsonObject(response.jsonSchema) ? response.jsonSchema : undefined;
  const answer = await ctx.deps.llm.generateJson({ kind: 'RESP_JSON', ...request, ...(schema ? { schema } : {}) });
  const json = answer.ok ? answer.json : answer.unchecked;
  const error = answer.ok ? undefined : answer.error;
  const named = json === undefined ? {} : namedIntentState(json);
  ctx.scope.audit('RESOLVE_RESPONSE_LLM_OUTPUT', {
    output: answer.raw,
    valid: answer.ok,
    ...(error === undefined ? {} : { error }),
    intentStateIgnored: !answer.ok && (named.intent !== undefined || named.state !== undefined),
  } satisfies DerivedJsonOutputPayload);
  if (json === undefined) {
    throw new EngineError(
      ErrorType.LlmOutputInvalid,
      `DERIVED JSON response ${response.responseId} is not valid: ${error ?? 'no JSON'}`,
      { details: { responseId: response.responseId, error: error ?? null } }
    );
  }
  if (answer.ok) {
    if (named.intent !== undefined) session.intent = named.intent;
    if (named.state !== undefined) session.state = named.state;
  }
  return json;
}

/** DERIVED response (§8 step 5): the LLM writes the reply from the template, the hint and the context. */
export async function resolveDerived(ctx: StepContext, response: ResponseRow): Promise<Payload> {
  const session = ctx.scope.session;
  const { template, systemPrompt, userPrompt } = promptsFor(ctx, response);
  const hint = renderPrompt(response.derivationHint ?? '', promptVars(ctx));
  ctx.scope.audit('RESOLVE_RESPONSE_LLM_INPUT', {
    system_prompt: systemPrompt,
    user_prompt: userPrompt,
    derivation_hint: hint,
    session: buildFacts(session, sessionSchemaSubset(ctx.snapshot, session)),
  });
  const request = {
    systemPrompt,
    userPrompt: hint.trim() === '' ? userPrompt : `${userPrompt}\n\n${hint}`,
    ...(template.temperature === null ? {} : { temperature: template.temperature }),
    meta: llmMeta(session),
  };
  if (response.outputFormat.trim().toUpperCase() !== 'JSON') {
    const text = await ctx.deps.llm.generateText({ kind: 'RESP_TEXT', ...request });
    ctx.scope.audit('RESOLVE_RESPONSE_LLM_OUTPUT', { output: text });
    const reply = textPayload(text);
    session.payload = reply.payload;
    session.lastAssistantJson = reply.stored;
    return reply.payload;
  }
  const json = await derivedJson(ctx, response, request);
  session.payload = { type: 'JSON', value: json };
  session.lastAssistantJson = json;
  return session.payload;
}
