import { applyReset, resetReason } from '../../core/conversation/reset';
import type { StepOutput } from '../../core/turn/contracts';
import type { StepContext } from '../step-runtime';

/** Explicit reset (request flag, reset params or a /reset command): the turn continues from a clean session. */
export async function resetConversation(ctx: StepContext): Promise<StepOutput> {
  const { turn } = ctx.input;
  const reason = resetReason(turn.inputParams, turn.reset, turn.message);
  if (reason) {
    applyReset(ctx.scope.session, turn.inputParams);
    ctx.scope.audit('CONVERSATION_RESET', { reason });
  }
  return ctx.scope.output();
}
