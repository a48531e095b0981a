import { syncSessionToContext } from '../../core/conversation/sync';
import type { StepOutput } from '../../core/turn/contracts';
import type { StepContext } from '../step-runtime';
import { applyRules } from './support';

/** PRE_RESPONSE_RESOLUTION rules, then the session's clarification/lock state is written into context. */
export async function rules(ctx: StepContext): Promise<StepOutput> {
  await applyRules(ctx, 'PRE_RESPONSE_RESOLUTION', 'RulesStep', 'RULES_STEP');
  syncSessionToContext(ctx.scope.session);
  return ctx.scope.output();
}
