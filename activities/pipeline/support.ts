import type { LlmCallMeta } from '../../core/llm';
import type { JsonObject } from '../../core/json';
import { buildPromptVars } from '../../core/prompt/vars';
import { runRulePhase, type RuleOrigin } from '../../core/rules';
import type { RulePhase } from '../../core/rules/phase';
import { sessionSchemaSubset } from '../../core/schema/subset';
import type { Session } from '../../core/session';
import type { StepContext } from '../step-runtime';

export function llmMeta(session: Session): LlmCallMeta {
  return {
    conversationId: session.conversationId,
    turnNumber: session.turnNumber,
    intent: session.intent,
    state: session.state,
    userText: session.userText,
  };
}

export function nowIso(ctx: StepContext): string {
  return ctx.deps.clock.now().toISOString();
}

/** Prompt variables for the scope's current session (§8.1), plus step-specific ones. */
export function promptVars(ctx: StepContext, extra: JsonObject = {}): JsonObject {
  const session = ctx.scope.session;
  return buildPromptVars(session, { schemaJson: sessionSchemaSubset(ctx.snapshot, session), now: nowIso(ctx), extra });
}

/** Runs one rule phase on the scope's session and folds its audits, session and stop into the scope. */
export async function applyRules(
  ctx: StepContext,
  phase: RulePhase,
  source: string,
  origin: RuleOrigin = 'PIPELINE_STEP'
): Promise<void> {
  const result = await runRulePhase({
    session: ctx.scope.session,
    snapshot: ctx.snapshot,
    phase,
    source,
    origin,
    tasks: ctx.deps.tasks,
    now: nowIso(ctx),
  });
  ctx.scope.absorb(result);
}
