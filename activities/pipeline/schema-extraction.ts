import { EngineError, ErrorType } from '../../core/errors';
import { isJsonObject } from '../../core/json';
import type { OutputSchemaRow } from '../../core/config/types';
import { applySchemaStatus, clearSchemaStatus } from '../../core/schema/apply';
import { schemaStatus } from '../../core/schema/completeness';
import { schemaPropertyNames } from '../../core/schema/subset';
import { acceptExtraction, type ConvertedField, type DroppedField } from '../../core/schema/extraction-answer';
import { extractionAnswerSchema, mergeExtraction, seedFromInputParams } from '../../core/schema/merge';
import { EXTRACTION_PROMPT_FORMAT, extractionTemplate, schemaForExtraction } from '../../core/schema/resolve';
import { P } from '../../core/params/keys';
import { renderPrompt } from '../../core/templates';
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

/**
 * SCHEMA_EXTRACTION_LLM_OUTPUT: `valid` and `error` judge the answer as written; `dropped` names each field
 * not stored and why, `converted` each stored in its declared type, `contextKeysIgnored` the engine-owned
 * context keys (ENGINE_CONTEXT_KEYS) the answer wrote, none of them stored (core/schema/extraction-answer.ts).
 */
type SchemaExtractionOutputPayload = {
  json: string;
  valid: boolean;
  error?: string;
  dropped: DroppedField[];
  converted: ConvertedField[];
  contextKeysIgnored: string[];
};

/** The SCHEMA_JSON prompts for the session's intent/state, rendered and audited. */
function extractionPrompts(ctx: StepContext, schema: OutputSchemaRow) {
  const session = ctx.scope.session;
  const template = extractionTemplate(ctx.snapshot, session.intent, session.state);
  if (!template) {
    throw new EngineError(
      ErrorType.PromptTemplateMissing,
      `no ${EXTRACTION_PROMPT_FORMAT} prompt template for ${session.intent}/${session.state} (schema ${schema.schemaId})`,
      { details: { intent: session.intent, state: session.state, schemaId: schema.schemaId } }
    );
  }
  const vars = promptVars(ctx, {
    schema: schema.jsonSchema,
    json_schema: schema.jsonSchema,
    schema_json: schema.jsonSchema,
  });
  const systemPrompt = renderPrompt(template.systemPrompt ?? '', vars);
  const userPrompt = renderPrompt(template.userPrompt ?? '', vars);
  ctx.scope.audit('SCHEMA_EXTRACTION_LLM_INPUT', {
    system_prompt: systemPrompt,
    user_prompt: userPrompt,
    schema: schema.jsonSchema,
    userInput: session.userText,
  });
  return { systemPrompt, userPrompt, temperature: template.temperature };
}

/**
 * Runs the extraction LLM and merges what of its answer the schema accepts, field by field (audited); an
 * answer that is not a JSON object extracts nothing.
 */
async function extract(ctx: StepContext, schema: OutputSchemaRow): Promise<void> {
  const session = ctx.scope.session;
  seedFromInputParams(session.context, schemaPropertyNames(schema.jsonSchema), session.inputParams);
  const { systemPrompt, userPrompt, temperature } = extractionPrompts(ctx, schema);
  const answerSchema = extractionAnswerSchema(schema.jsonSchema);
  const answer = await ctx.deps.llm.generateJson({
    kind: 'SCHEMA',
    systemPrompt,
    userPrompt,
    schema: answerSchema,
    ...(temperature === null ? {} : { temperature }),
    // What is missing before this message (a keyless demo model gives a lone number to the one field missing).
    meta: { ...llmMeta(session), missingFields: schemaStatus(schema.jsonSchema, session.context).missingFields },
  });
  session.lastLlmOutput = answer.raw;
  session.lastLlmStage = 'SCHEMA_EXTRACTION';
  const candidate = answer.ok ? answer.json : answer.unchecked;
  const accepted = isJsonObject(candidate) ? acceptExtraction(answerSchema, candidate) : undefined;
  ctx.scope.audit('SCHEMA_EXTRACTION_LLM_OUTPUT', {
    json: answer.raw,
    valid: answer.ok,
    ...(answer.ok ? {} : { error: answer.error }),
    dropped: accepted?.dropped ?? [],
    converted: accepted?.converted ?? [],
    contextKeysIgnored: accepted?.contextKeysIgnored ?? [],
  } satisfies SchemaExtractionOutputPayload);
  // New facts invalidate an earlier MCP answer (stale-answer guard, seed "stale move ID bug").
  if (accepted && mergeExtraction(session.context, accepted.fields)) delete session.context['mcp'];
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
