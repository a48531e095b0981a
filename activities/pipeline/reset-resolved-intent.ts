import { readSetting } from '../../core/config/setting';
import { IntentSettings } from '../../core/config/settings/pipeline';
import { applyReset } from '../../core/conversation/reset';
import type { StepOutput } from '../../core/turn/contracts';
import type { StepContext } from '../step-runtime';

/** An intent listed in RESET_INTENT_CODES (e.g. RESET_SESSION) resets the conversation. */
export async function resetResolvedIntent(ctx: StepContext): Promise<StepOutput> {
  const session = ctx.scope.session;
  const codes = readSetting(ctx.snapshot, IntentSettings.resetIntentCodes).map((c) => c.toUpperCase());
  if (codes.includes(session.intent.trim().toUpperCase())) {
    const resetIntent = session.intent;
    applyReset(session, ctx.input.turn.inputParams);
    ctx.scope.audit('CONVERSATION_RESET', { reason: 'INTENT_RESOLVED_RESET', intent: resetIntent });
  }
  return ctx.scope.output();
}
