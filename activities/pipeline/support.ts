import type { LlmCallMeta } from '../../core/llm';
import type { JsonObject } from '../../core/json';
import { buildPromptVars } from '../../core/prompt/vars';
import { runRulePhase, type RuleOrigin } from '../../core/rules';
import type { RulePhase } from '../../core/rules/phase';
import { sessionSchemaSubset } from '../../core/schema/subset';
import type { Session } from '../../core/session';
import type { VerboseEvent } from '../../core/verbose';
import { verboseAudit } from '../runtime/verbose';
import type { StepContext } from '../step-runtime';

export function llmMeta(session: Session): LlmCallMeta {
  return {
    conversationId: session.conversationId,
    turnNumber: session.turnNumber,
    intent: session.intent,
    state: session.state,
    userText: session.userText,
    ...(session.missingRequiredFields.length > 0 ? { missingFields: [...session.missingRequiredFields] } : {}),
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

/**
 * Publishes one progress event (reference "Verbose messages") with the step's audits: when the
 * config has a message for it, a VERBOSE_PROGRESS row that the SSE stream forwards.
 */
export function publishVerbose(ctx: StepContext, event: VerboseEvent): void {
  const record = verboseAudit({ snapshot: ctx.snapshot, session: ctx.scope.session, now: nowIso(ctx) }, event);
  if (record) ctx.scope.audits.push(record);
}
