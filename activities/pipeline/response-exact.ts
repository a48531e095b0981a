import type { ResponseRow } from '../../core/config/types';
import { errorMessage, isEngineError } from '../../core/errors';
import { isJsonObject } from '../../core/json';
import { absentTurnOutput } from '../../core/mcp/turn-output';
import { jsonPayloadFromText, textPayload } from '../../core/response/payload';
import { ReservedResponseState, reservedResponseText } from '../../core/response/reserved';
import { renderJsonTemplateLenient, renderTemplateLenient } from '../../core/templates';
import type { Payload } from '../../core/session';
import type { StepContext } from '../step-runtime';
import { promptVars } from './support';
import { cutText } from '../../core/text/cut-text';

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

/** What rendering exact_text gave: the text, the variables it did not find, or the error that stopped it. */
interface Rendered {
  text: string;
  missing: string[];
  /** Placeholders without a default that read a tool's or the planner's output this turn does not have. */
  absentOutput: string[];
  error?: unknown;
}

function render(ctx: StepContext, response: ResponseRow, json: boolean): Rendered {
  try {
    const vars = promptVars(ctx, { metadata: metadataVars(response), ...metadataVars(response) });
    const template = response.exactText ?? '';
    const rendered = (json ? renderJsonTemplateLenient : renderTemplateLenient)(template, vars);
    return { ...rendered, absentOutput: absentTurnOutput(template, vars) };
  } catch (error) {
    return { text: '', missing: [], absentOutput: [], error };
  }
}

/**
 * The text said when exact_text renders blank, or reads a tool's or the planner's output this turn does not have,
 * and this turn has no planner answer: what the user is told when no response matches (the TURN_FAILED text, per
 * intent or ANY, else the default), never a blank reply nor one that repeats what an earlier turn's tool found.
 * `context.mcp.finalAnswer` is this turn's or absent here: McpPrepare cleared any earlier turn's.
 */
function fallbackText(ctx: StepContext, reason: FallbackReason): string {
  const { intent, state } = ctx.scope.session;
  return reservedResponseText(ctx.snapshot, ReservedResponseState.TurnFailed, {
    intent,
    state,
    failureType: reason === 'RENDERED_BLANK' ? 'RESPONSE_RENDERED_BLANK' : reason,
    retryable: false,
  });
}

type FallbackReason = 'RENDERED_BLANK' | 'TURN_OUTPUT_MISSING';

/**
 * Renders exact_text (§8 step 5). An absent value renders as empty (or its `?: 'default'`) and an
 * EXACT_RESPONSE_RENDERING audit names it. A malformed template falls back to `context.mcp.finalAnswer`
 * (or the raw text); a reply that renders blank, or whose placeholder (no default) reads a tool's or the
 * planner's output this turn does not have (reason TURN_OUTPUT_MISSING: it would repeat what an earlier turn's
 * tool found), falls back to `context.mcp.finalAnswer`, else to the TURN_FAILED text (audited, `fallback` says which). A JSON reply's values are rendered as JSON
 * (core/templates/json-render.ts), so a value cannot break the reply's structure.
 */
function renderExact(ctx: StepContext, response: ResponseRow, json: boolean): string {
  const template = response.exactText ?? '';
  const audit = (payload: Record<string, unknown>) =>
    ctx.scope.audit('EXACT_RESPONSE_RENDERING', {
      component: 'ResponseResolutionStep',
      responseId: response.responseId,
      templatePreview: cutText(template, 200),
      ...payload,
    });
  const { text, missing, absentOutput, error } = render(ctx, response, json);
  if (error !== undefined) {
    audit({
      fallbackUsed: true,
      errorClass: isEngineError(error) ? error.type : error instanceof Error ? error.name : 'Error',
      errorMessage: errorMessage(error),
    });
    return mcpFinalAnswer(ctx) ?? template;
  }
  const missingVariables = missing.length > 0 ? { missingVariables: missing } : {};
  const reason: FallbackReason | null =
    text.trim() === '' ? 'RENDERED_BLANK' : absentOutput.length > 0 ? 'TURN_OUTPUT_MISSING' : null;
  if (reason === null) {
    if (missing.length > 0) audit({ fallbackUsed: false, ...missingVariables });
    return text;
  }
  const answer = mcpFinalAnswer(ctx);
  const fallback = answer !== null ? 'MCP_FINAL_ANSWER' : 'TURN_FAILED_TEXT';
  audit({ fallbackUsed: true, fallback, reason, ...missingVariables });
  return answer ?? fallbackText(ctx, reason);
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
