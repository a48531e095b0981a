import { readSetting } from '../../core/config/setting';
import { GuardrailSettings as S } from '../../core/config/settings/pipeline';
import { approvalGranted, isSensitive, sanitizeUserText } from '../../core/guardrail/gate';
import { P } from '../../core/params/keys';
import type { StepOutput } from '../../core/turn/contracts';
import type { StepContext } from '../step-runtime';

/**
 * Sensitive-action approval gate (§5.9). A deny skips tools and pending actions for this turn
 * only: skip_tool_execution is request-scoped and never carried into later turns (fixes §13.3 #10).
 */
export async function guardrail(ctx: StepContext): Promise<StepOutput> {
  if (!readSetting(ctx.snapshot, S.enabled)) return ctx.scope.output();
  const session = ctx.scope.session;
  const sanitized = sanitizeUserText(session.userText);
  if (readSetting(ctx.snapshot, S.sanitizeInput)) session.inputParams['sanitized_user_text'] = sanitized;
  const sensitive = isSensitive(sanitized, readSetting(ctx.snapshot, S.sensitivePatterns));
  const approvalRequired = readSetting(ctx.snapshot, S.requireApproval) && sensitive;
  const granted = approvalGranted(session.inputParams, session.context);
  const base = { sensitive, approvalRequired, approvalGranted: granted, intent: session.intent, state: session.state };
  if (approvalRequired && !granted) {
    Object.assign(session.inputParams, {
      [P.guardrailBlocked]: true,
      [P.guardrailReason]: 'SENSITIVE_ACTION_APPROVAL_REQUIRED',
      [P.policyDecision]: 'RECLASSIFY_INTENT',
      [P.skipToolExecution]: true,
      [P.skipPendingActionExecution]: true,
    });
    ctx.scope.audit('GUARDRAIL_DENY', {
      result: 'DENY',
      reason: 'SENSITIVE_ACTION_APPROVAL_REQUIRED',
      userText: sanitized,
      ...base,
    });
    return ctx.scope.output();
  }
  session.inputParams[P.guardrailBlocked] = false;
  ctx.scope.audit('GUARDRAIL_ALLOW', { result: 'ALLOW', ...base });
  return ctx.scope.output();
}
