import type { ResponseRow } from '../../core/config/types';
import { errorMessage, isEngineError } from '../../core/errors';
import { isJsonObject } from '../../core/json';
import { jsonPayloadFromText, textPayload } from '../../core/response/payload';
import { renderJsonTemplateLenient, renderTemplateLenient } from '../../core/templates';
import type { Payload } from '../../core/session';
import type { StepContext } from '../step-runtime';
import { promptVars } from './support';

function metadataVars(response: ResponseRow) {
  return {
    outputFormat: response.outputFormat,
    responseType: response.responseType,
    derivationHint: response.derivationHint ?? '',
    jsonSchema: response.jsonSchema,
    exactText: response.exactText ?? '',
  };
}

function mcpFinalAnswer(ctx: StepContext): string | null {
  const mcp = ctx.scope.session.context['mcp'];
  const answer = isJsonObject(mcp) ? mcp['finalAnswer'] : undefined;
  return typeof answer === 'string' && answer !== '' ? answer : null;
}

/**
 * Renders exact_text (§8 step 5). An absent value renders as empty (or its `?: 'default'`) and an
 * EXACT_RESPONSE_RENDERING audit names it; a reply that renders blank, or a malformed template,
 * falls back to `context.mcp.finalAnswer` (or the raw text). A JSON reply's values are rendered as JSON
 * (core/templates/json-render.ts), so a value cannot break the reply's structure.
 */
function renderExact(ctx: StepContext, response: ResponseRow, json: boolean): string {
  const template = response.exactText ?? '';
  const audit = (payload: Record<string, unknown>) =>
    ctx.scope.audit('EXACT_RESPONSE_RENDERING', {
      component: 'ResponseResolutionStep',
      responseId: response.responseId,
      templatePreview: template.slice(0, 200),
      ...payload,
    });
  try {
    const vars = promptVars(ctx, { metadata: metadataVars(response), ...metadataVars(response) });
    const { text, missing } = (json ? renderJsonTemplateLenient : renderTemplateLenient)(template, vars);
    if (missing.length === 0) return text;
    const blank = text.trim() === '' && template.trim() !== '';
    const fallback = blank ? mcpFinalAnswer(ctx) : null;
    audit({ fallbackUsed: fallback !== null, missingVariables: missing });
    return fallback ?? text;
  } catch (err) {
    audit({
      fallbackUsed: true,
      errorClass: isEngineError(err) ? err.type : err instanceof Error ? err.name : 'Error',
      errorMessage: errorMessage(err),
    });
    return mcpFinalAnswer(ctx) ?? template;
  }
}

/** EXACT response (§8 step 5): deterministic text or JSON, no LLM. */
export function resolveExact(ctx: StepContext, response: ResponseRow): Payload {
  const json = response.outputFormat.trim().toUpperCase() === 'JSON';
  const text = renderExact(ctx, response, json);
  // Audited first, as Java does: a JSON reply that is not JSON fails the turn, and this row shows what it was.
  ctx.scope.audit('RESPONSE_EXACT', { text, responseId: response.responseId });
  const reply = json ? jsonPayloadFromText(text, response.responseId) : textPayload(text);
  ctx.scope.session.payload = reply.payload;
  ctx.scope.session.lastAssistantJson = reply.stored;
  return reply.payload;
}
