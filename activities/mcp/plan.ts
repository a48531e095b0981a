import { readSetting } from '../../core/config/setting';
import { McpPlannerSettings } from '../../core/config/settings/mcp';
import type { JsonObject } from '../../core/json';
import { McpAudit } from '../../core/mcp/constants';
import { readObservations } from '../../core/mcp/context';
import { compactObservations } from '../../core/mcp/observations';
import { applyPlanDecision } from '../../core/mcp/plan-apply';
import { normalizePlannerOutput } from '../../core/mcp/planner-decision';
import { plannerTools, selectPlannerPrompt } from '../../core/mcp/planner-prompt';
import { PLANNER_LLM_SCHEMA, PLANNER_OUTPUT_SCHEMA } from '../../core/mcp/prompts';
import { enrichSemanticArgs } from '../../core/mcp/semantic-args';
import { toolsInScope } from '../../core/mcp/tools';
import { renderPrompt } from '../../core/templates';
import type { McpPlanInput, McpPlanOutput, PlannerDecision } from '../../core/turn/contracts';
import { llmMeta, promptVars, publishVerbose } from '../pipeline/support';
import type { StepContext } from '../step-runtime';
import { emit } from './support';

/**
 * McpPlan: one planner LLM call (§6.2). Builds the prompt from the selected planner row, the
 * tools in scope (backtick filter) and the compacted observations, records MCP_PLAN_LLM_INPUT /
 * OUTPUT, normalizes the answer into CALL_TOOL / ANSWER and applies it to the session (an ANSWER
 * writes the final answer). Everything else about a CALL_TOOL is decided by the driver.
 */
function plannerVars(ctx: StepContext, tools: JsonObject[], observations: string): JsonObject {
  const toolsJson = JSON.stringify(tools);
  return promptVars(ctx, {
    mcp_tools: toolsJson,
    tools: toolsJson,
    available_tools: toolsJson,
    tool_list: toolsJson,
    mcp_observations: observations,
    observations,
  });
}

export async function mcpPlan(ctx: StepContext<McpPlanInput>): Promise<McpPlanOutput> {
  const { scope, snapshot, deps } = ctx;
  const session = scope.session;
  const observations = readObservations(session);
  const prompt = selectPlannerPrompt(snapshot, session.intent, session.state);
  const tools = plannerTools(toolsInScope(snapshot, session.intent, session.state), prompt, snapshot);
  const compacted = compactObservations(
    observations,
    readSetting(snapshot, McpPlannerSettings.maxObservations),
    readSetting(snapshot, McpPlannerSettings.maxObservationChars)
  );
  const vars = plannerVars(ctx, tools as unknown as JsonObject[], compacted.json);
  const systemPrompt = renderPrompt(prompt.systemPrompt, vars);
  const userPrompt = renderPrompt(prompt.userPrompt, vars);
  scope.audit(McpAudit.PlanInput, {
    source: prompt.source,
    system_prompt: systemPrompt,
    user_prompt: userPrompt,
    schema: PLANNER_OUTPUT_SCHEMA as unknown as JsonObject,
    mcp_observations_compacted: compacted.compacted,
    mcp_observations_raw_chars: compacted.rawChars,
    mcp_observations_final_chars: compacted.finalChars,
    iteration: ctx.input.iteration,
  });
  publishVerbose(ctx, {
    stepName: 'McpPlanner',
    determinant: 'MCP_PLAN_LLM_INPUT',
    metadata: { iteration: ctx.input.iteration },
  });
  const result = await deps.llm.generateJson({
    kind: 'PLAN',
    systemPrompt,
    userPrompt,
    schema: PLANNER_LLM_SCHEMA as unknown as JsonObject,
    meta: llmMeta(session),
  });
  scope.audit(McpAudit.PlanOutput, { json: result.raw, valid: result.ok });
  const decision = normalizePlannerOutput(result.ok ? { ok: true, json: result.json } : { ok: false });
  if (decision.action === 'CALL_TOOL' && decision.toolCode) {
    decision.args = enrichSemanticArgs(decision.toolCode, decision.args, observations);
  }
  emit(scope, applyPlanDecision(scope.session, decision));
  publishDecision(ctx, decision);
  return { ...scope.output(), decision };
}

/**
 * The planner's decision as progress (Java McpToolStep): MCP_TOOL_CALL names the tool about to run,
 * so the message streams — and becomes the turn's current details — before the tool call starts.
 */
function publishDecision(ctx: StepContext<McpPlanInput>, decision: PlannerDecision): void {
  if (decision.action === 'ANSWER') {
    const metadata = { answer: decision.answer ?? '' };
    publishVerbose(ctx, { stepName: 'McpToolStep', determinant: 'MCP_FINAL_ANSWER', metadata });
  } else if (decision.toolCode) {
    const metadata = { tool_code: decision.toolCode, args: decision.args };
    publishVerbose(ctx, {
      stepName: 'McpToolStep',
      determinant: 'MCP_TOOL_CALL',
      toolCode: decision.toolCode,
      metadata,
    });
  }
}
