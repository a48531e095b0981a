import type { JsonObject } from '../../../core/json';
import type { LlmCallKind, LlmJsonResult } from '../../../core/llm';
import { buildPromptVars } from '../../../core/prompt/vars';
import { renderPrompt } from '../../../core/templates';
import type { ToolHandlerContext } from '../deps';

/**
 * The audit stages of each semantic LLM call, spelled out rather than built from a prefix so that
 * docs/config-reference.md's generator (scripts/reference/blocks.ts) lists every one.
 */
export const SEMANTIC_LLM_STAGES = {
  interpret: {
    input: 'SEMANTIC_INTERPRET_LLM_INPUT',
    output: 'SEMANTIC_INTERPRET_LLM_OUTPUT',
    error: 'SEMANTIC_INTERPRET_LLM_ERROR',
  },
  query: { input: 'SEMANTIC_QUERY_LLM_INPUT', output: 'SEMANTIC_QUERY_LLM_OUTPUT', error: 'SEMANTIC_QUERY_LLM_ERROR' },
  queryRetry: {
    input: 'SEMANTIC_QUERY_RETRY_LLM_INPUT',
    output: 'SEMANTIC_QUERY_RETRY_LLM_OUTPUT',
    error: 'SEMANTIC_QUERY_RETRY_LLM_ERROR',
  },
} as const;

export type SemanticLlmStages = (typeof SEMANTIC_LLM_STAGES)[keyof typeof SEMANTIC_LLM_STAGES];

/**
 * One LLM call of a semantic tool: renders the prompts with the usual prompt variables plus the
 * tool's own, audits its `input` / `output` stage (or `error` for an answer that is not JSON), and
 * returns the JSON result. Transport failures propagate (the activity retries).
 */
export interface SemanticLlmRequest {
  kind: LlmCallKind;
  stages: SemanticLlmStages;
  prompts: { system: string; user: string; source: string };
  extra: JsonObject;
  schema: JsonObject;
}

export async function semanticLlmCall(ctx: ToolHandlerContext, req: SemanticLlmRequest): Promise<LlmJsonResult> {
  const vars = buildPromptVars(ctx.session, { now: ctx.deps.clock.now().toISOString(), extra: req.extra });
  const systemPrompt = renderPrompt(req.prompts.system, vars);
  const userPrompt = renderPrompt(req.prompts.user, vars);
  ctx.audit(req.stages.input, {
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
  if (result.ok) ctx.audit(req.stages.output, { json: result.raw });
  else ctx.audit(req.stages.error, { raw: result.raw, error: result.error });
  return result;
}
