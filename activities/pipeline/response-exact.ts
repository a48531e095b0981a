import type { ResponseRow } from '../../core/config/types';
import { ErrorType, errorMessage, isEngineError } from '../../core/errors';
import { isJsonObject } from '../../core/json';
import { jsonPayloadFromText, textPayload } from '../../core/response/payload';
import { renderTemplate } from '../../core/templates';
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
 * Renders exact_text. A malformed template falls back to `context.mcp.finalAnswer` (or the raw
 * text) with an EXACT_RESPONSE_RENDERING audit; an unknown variable is a config error and fails.
 */
function renderExact(ctx: StepContext, response: ResponseRow): string {
  const template = response.exactText ?? '';
  try {
    return renderTemplate(template, promptVars(ctx, { metadata: metadataVars(response), ...metadataVars(response) }));
  } catch (err) {
    if (isEngineError(err) && err.type === ErrorType.UnresolvedPromptVariable) throw err;
    const fallback = mcpFinalAnswer(ctx) ?? template;
    ctx.scope.audit('EXACT_RESPONSE_RENDERING', {
      component: 'ResponseResolutionStep',
      fallbackUsed: true,
      errorClass: isEngineError(err) ? err.type : err instanceof Error ? err.name : 'Error',
      errorMessage: errorMessage(err),
      templatePreview: template.slice(0, 200),
    });
    return fallback;
  }
}

/** EXACT response (§8 step 5): deterministic text or JSON, no LLM. */
export function resolveExact(ctx: StepContext, response: ResponseRow): Payload {
  const text = renderExact(ctx, response);
  const json = response.outputFormat.trim().toUpperCase() === 'JSON';
  const reply = json ? jsonPayloadFromText(text) : textPayload(text);
  ctx.scope.session.payload = reply.payload;
  ctx.scope.session.lastAssistantJson = reply.stored;
  ctx.scope.audit('RESPONSE_EXACT', { text, responseId: response.responseId });
  return reply.payload;
}
