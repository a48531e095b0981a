import { pickMostSpecific } from '../../../core/config/scope';
import { readSetting } from '../../../core/config/setting';
import { McpSemanticSettings } from '../../../core/config/settings/mcp';
import { isJsonObject, type Json, type JsonObject } from '../../../core/json';
import { SemanticTool } from '../../../core/mcp/constants';
import { compareCodePoints } from '../../../core/text/compare-code-points';
import {
  DEFAULT_SEMANTIC_INTERPRET_SYSTEM_PROMPT,
  DEFAULT_SEMANTIC_INTERPRET_USER_PROMPT,
} from '../../../core/mcp/prompts';
import { semanticCatalog } from '../../../core/mcp/semantic-catalog';
import type { ToolHandlerContext } from '../deps';
import { SEMANTIC_LLM_STAGES, semanticLlmCall } from './llm';

/**
 * `db.semantic.interpret` (§7.4): the LLM maps the question onto the semantic catalog and returns
 * a canonical intent. Low confidence or an unresolved ambiguity asks the user to clarify; a
 * write request or an uninterpretable answer is reported as unsupported. It never writes SQL.
 */
const INTERPRET_SCHEMA: JsonObject = {
  type: 'object',
  required: ['meta', 'canonicalIntent'],
  properties: { meta: { type: 'object' }, canonicalIntent: { type: ['object', 'null'] } },
};

function questionOf(ctx: ToolHandlerContext): string {
  for (const key of ['question', 'standalone_query', 'standaloneQuery', 'query', 'user_input']) {
    const value = ctx.args[key];
    if (typeof value === 'string' && value.trim() !== '') return value;
  }
  const s = ctx.session;
  return s.standaloneQuery?.trim() || s.resolvedUserInput?.trim() || s.userText;
}

function promptsOf(ctx: ToolHandlerContext): { system: string; user: string; source: string } {
  const rows = ctx.snapshot.rows.promptTemplates.filter(
    (t) => t.enabled && t.outputFormat.toUpperCase() === 'SEMANTIC_INTERPRET'
  );
  const row = pickMostSpecific(rows, ctx.session.intent, ctx.session.state, (a, b) =>
    compareCodePoints(b.createdAt, a.createdAt)
  );
  if (row)
    return {
      system: row.systemPrompt ?? '',
      user: row.userPrompt ?? '',
      source: `ce_prompt_template(template_id=${row.templateId})`,
    };
  return {
    system: DEFAULT_SEMANTIC_INTERPRET_SYSTEM_PROMPT,
    user: DEFAULT_SEMANTIC_INTERPRET_USER_PROMPT,
    source: 'built-in',
  };
}

function unsupported(question: string, message: string, confidence = 0): JsonObject {
  return {
    meta: {
      tool: SemanticTool.interpret,
      version: 'v2',
      confidence,
      needsClarification: false,
      clarificationQuestion: null,
      ambiguities: [],
      operationSupported: false,
      unsupported: true,
      unsupportedMessage: message,
    },
    question,
    canonicalIntent: null,
  };
}

function hasOptions(ambiguities: Json): boolean {
  return (
    Array.isArray(ambiguities) &&
    ambiguities.some((a) => isJsonObject(a) && Array.isArray(a['options']) && a['options'].length > 0)
  );
}

/** Applies the engine's own rules to the LLM's answer: threshold, clarification, unsupported. */
export function normalizeInterpretation(question: string, json: Json, threshold: number): JsonObject {
  if (!isJsonObject(json) || !isJsonObject(json['meta']))
    return unsupported(question, 'The question could not be interpreted.');
  const meta = json['meta'];
  const confidence = typeof meta['confidence'] === 'number' ? meta['confidence'] : 0;
  if (meta['operationSupported'] === false || meta['unsupported'] === true) {
    const message =
      typeof meta['unsupportedMessage'] === 'string' && meta['unsupportedMessage']
        ? meta['unsupportedMessage']
        : 'This operation is not supported.';
    return unsupported(question, message, confidence);
  }
  const intent = isJsonObject(json['canonicalIntent']) ? json['canonicalIntent'] : null;
  const ambiguities = Array.isArray(meta['ambiguities']) ? meta['ambiguities'] : [];
  const asked =
    typeof meta['clarificationQuestion'] === 'string' && meta['clarificationQuestion'].trim()
      ? meta['clarificationQuestion']
      : null;
  const needsClarification = meta['needsClarification'] === true || confidence < threshold || intent === null;
  if (needsClarification && !asked && !hasOptions(ambiguities)) {
    return unsupported(
      question,
      'The question is too ambiguous to answer; please rephrase it with more detail.',
      confidence
    );
  }
  const clarificationQuestion = needsClarification
    ? (asked ?? 'Could you clarify which of the options you mean?')
    : null;
  return {
    meta: {
      tool: SemanticTool.interpret,
      version: 'v2',
      confidence,
      needsClarification,
      clarificationQuestion,
      ambiguities,
      operationSupported: true,
      unsupported: false,
      unsupportedMessage: null,
    },
    question,
    canonicalIntent: intent,
  };
}

export async function runSemanticInterpret(ctx: ToolHandlerContext): Promise<Json> {
  const question = questionOf(ctx);
  const prompts = promptsOf(ctx);
  const extra: JsonObject = { question, semantic_catalog: semanticCatalog(ctx.snapshot) };
  const out = await semanticLlmCall(ctx, {
    kind: 'SEMANTIC_INTERPRET',
    stages: SEMANTIC_LLM_STAGES.interpret,
    prompts,
    extra,
    schema: INTERPRET_SCHEMA,
  });
  const threshold = readSetting(ctx.snapshot, McpSemanticSettings.clarificationThreshold);
  const result = out.ok
    ? normalizeInterpretation(question, out.json, threshold)
    : unsupported(question, 'The question could not be interpreted.');
  ctx.audit('SEMANTIC_INTERPRET_OUTPUT', { result });
  return result;
}
