import type { ResponseRow } from '../../core/config/types';
import { EngineError, ErrorType } from '../../core/errors';
import { isJsonObject, type JsonObject } from '../../core/json';
import { buildFacts } from '../../core/rules/facts';
import { textPayload } from '../../core/response/payload';
import { templateFor } from '../../core/schema/resolve';
import { sessionSchemaSubset } from '../../core/schema/subset';
import type { Payload } from '../../core/session';
import { renderTemplate } from '../../core/templates';
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
    systemPrompt: renderTemplate(template.systemPrompt ?? '', vars),
    userPrompt: renderTemplate(template.userPrompt ?? '', vars),
  };
}

/** A JSON answer may move the conversation (§8 ⚠, scenario 54): non-null intent/state are taken over. */
function adoptIntentState(ctx: StepContext, json: JsonObject): void {
  const session = ctx.scope.session;
  if (typeof json['intent'] === 'string' && json['intent'].trim() !== '') session.intent = json['intent'];
  if (typeof json['state'] === 'string' && json['state'].trim() !== '') session.state = json['state'];
}

/** DERIVED response (§8 step 5): the LLM writes the reply from the template, the hint and the context. */
export async function resolveDerived(ctx: StepContext, response: ResponseRow): Promise<Payload> {
  const session = ctx.scope.session;
  const { template, systemPrompt, userPrompt } = promptsFor(ctx, response);
  const hint = renderTemplate(response.derivationHint ?? '', promptVars(ctx));
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
  const schema = isJsonObject(response.jsonSchema) ? response.jsonSchema : undefined;
  const answer = await ctx.deps.llm.generateJson({ kind: 'RESP_JSON', ...request, ...(schema ? { schema } : {}) });
  ctx.scope.audit('RESOLVE_RESPONSE_LLM_OUTPUT', {
    output: answer.raw,
    valid: answer.ok,
    ...(answer.ok ? {} : { error: answer.error }),
  });
  if (!answer.ok) {
    throw new EngineError(
      ErrorType.LlmOutputInvalid,
      `DERIVED JSON response ${response.responseId} is not valid: ${answer.error}`,
      {
        details: { responseId: response.responseId, error: answer.error },
      }
    );
  }
  if (isJsonObject(answer.json)) adoptIntentState(ctx, answer.json);
  session.payload = { type: 'JSON', value: answer.json };
  session.lastAssistantJson = answer.json;
  return session.payload;
}
