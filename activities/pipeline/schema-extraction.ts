import { EngineError, ErrorType } from '../../core/errors';
import { isJsonObject } from '../../core/json';
import type { OutputSchemaRow } from '../../core/config/types';
import { applySchemaStatus, clearSchemaStatus } from '../../core/schema/apply';
import { schemaPropertyNames } from '../../core/schema/subset';
import { extractionAnswerSchema, mergeExtraction, seedFromInputParams } from '../../core/schema/merge';
import { schemaForExtraction, templateFor } from '../../core/schema/resolve';
import { P } from '../../core/params/keys';
import { renderTemplate } from '../../core/templates';
import type { StepOutput } from '../../core/turn/contracts';
import type { StepContext } from '../step-runtime';
import { applyRules, llmMeta, promptVars } from './support';

function statusPayload(ctx: StepContext, schema: OutputSchemaRow) {
  const s = ctx.scope.session;
  return {
    schemaComplete: s.schemaComplete,
    hasAnySchemaValue: s.hasAnySchemaValue,
    missingRequiredFields: s.missingRequiredFields,
    missingFieldOptions: s.missingFieldOptions,
    schemaId: schema.schemaId,
    intent: s.intent,
    state: s.state,
    intentLocked: s.intentLocked,
    intentLockReason: s.intentLockReason,
  };
}

/** Runs the extraction LLM and merges its answer; an invalid answer extracts nothing (audited). */
async function extract(ctx: StepContext, schema: OutputSchemaRow): Promise<void> {
  const session = ctx.scope.session;
  const template = templateFor(ctx.snapshot, 'SCHEMA_JSON', session.intent, session.state);
  if (!template) {
    throw new EngineError(
      ErrorType.PromptTemplateMissing,
      `no SCHEMA_JSON prompt template for ${session.intent}/${session.state} (schema ${schema.schemaId})`,
      { details: { intent: session.intent, state: session.state, schemaId: schema.schemaId } }
    );
  }
  seedFromInputParams(session.context, schemaPropertyNames(schema.jsonSchema), session.inputParams);
  const vars = promptVars(ctx, {
    schema: schema.jsonSchema,
    json_schema: schema.jsonSchema,
    schema_json: schema.jsonSchema,
  });
  const systemPrompt = renderTemplate(template.systemPrompt ?? '', vars);
  const userPrompt = renderTemplate(template.userPrompt ?? '', vars);
  ctx.scope.audit('SCHEMA_EXTRACTION_LLM_INPUT', {
    system_prompt: systemPrompt,
    user_prompt: userPrompt,
    schema: schema.jsonSchema,
    userInput: session.userText,
  });
  const answer = await ctx.deps.llm.generateJson({
    kind: 'SCHEMA',
    systemPrompt,
    userPrompt,
    schema: extractionAnswerSchema(schema.jsonSchema),
    ...(template.temperature === null ? {} : { temperature: template.temperature }),
    meta: llmMeta(session),
  });
  session.lastLlmOutput = answer.raw;
  session.lastLlmStage = 'SCHEMA_EXTRACTION';
  ctx.scope.audit('SCHEMA_EXTRACTION_LLM_OUTPUT', {
    json: answer.raw,
    valid: answer.ok,
    ...(answer.ok ? {} : { error: answer.error }),
  });
  if (!answer.ok || !isJsonObject(answer.json)) return;
  // New facts invalidate an earlier MCP answer (stale-answer guard, seed "stale move ID bug").
  if (mergeExtraction(session.context, answer.json)) delete session.context['mcp'];
}

/** Schema extraction (§5.1): hydrate-only when Correction already decided, else extract, merge, assess. */
export async function schemaExtraction(ctx: StepContext): Promise<StepOutput> {
  const session = ctx.scope.session;
  const schema = schemaForExtraction(ctx.snapshot, session);
  if (!schema) {
    clearSchemaStatus(session);
    return ctx.scope.output();
  }
  if (session.inputParams[P.skipSchemaExtraction] === true) {
    applySchemaStatus(session, schema);
    return ctx.scope.output();
  }
  ctx.scope.audit('SCHEMA_EXTRACTION_START', {
    schemaId: schema.schemaId,
    intent: session.intent,
    state: session.state,
  });
  await extract(ctx, schema);
  applySchemaStatus(session, schema);
  ctx.scope.audit('SCHEMA_STATUS', statusPayload(ctx, schema));
  await applyRules(ctx, 'POST_SCHEMA_EXTRACTION', 'SchemaExtractionStep');
  return ctx.scope.output();
}
