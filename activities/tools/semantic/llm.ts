import type { JsonObject } from '../../../core/json';
import type { LlmCallKind, LlmJsonResult } from '../../../core/llm';
import { buildPromptVars } from '../../../core/prompt/vars';
import { renderTemplate } from '../../../core/templates';
import type { ToolHandlerContext } from '../deps';

/**
 * One LLM call of a semantic tool: renders the prompts with the usual prompt variables plus the
 * tool's own, audits `<prefix>_LLM_INPUT` / `_LLM_OUTPUT` (or `_LLM_ERROR` for an answer that is
 * not JSON), and returns the JSON result. Transport failures propagate (the activity retries).
 */
export interface SemanticLlmRequest {
  kind: LlmCallKind;
  stagePrefix: string;
  prompts: { system: string; user: string; source: string };
  extra: JsonObject;
  schema: JsonObject;
}

export async function semanticLlmCall(ctx: ToolHandlerContext, req: SemanticLlmRequest): Promise<LlmJsonResult> {
  const vars = buildPromptVars(ctx.session, { now: ctx.deps.clock.now().toISOString(), extra: req.extra });
  const systemPrompt = renderTemplate(req.prompts.system, vars);
  const userPrompt = renderTemplate(req.prompts.user, vars);
  ctx.audit(`${req.stagePrefix}_LLM_INPUT`, {
    source: req.prompts.source,
    system_prompt: systemPrompt,
    user_prompt: userPrompt,
  });
  const s = ctx.session;
  const result = await ctx.deps.llm.generateJson({
    kind: req.kind,
    systemPrompt,
    userPrompt,
    schema: req.schema,
    meta: { conversationId: s.conversationId, turnNumber: s.turnNumber, intent: s.intent, state: s.state },
  });
  if (result.ok) ctx.audit(`${req.stagePrefix}_LLM_OUTPUT`, { json: result.raw });
  else ctx.audit(`${req.stagePrefix}_LLM_ERROR`, { raw: result.raw, error: result.error });
  return result;
}
