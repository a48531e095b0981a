import type { StepOutput } from '../../core/turn/contracts';
import type { StepContext } from '../step-runtime';

/** A missing (or blank) intent or state becomes UNKNOWN, which the conversation row requires. */
export async function fallbackIntentState(ctx: StepContext): Promise<StepOutput> {
  const session = ctx.scope.session;
  if (session.intent.trim() === '') {
    session.intent = 'UNKNOWN';
    ctx.scope.audit('INTENT_MISSING', { intent: 'UNKNOWN' });
  }
  if (session.state.trim() === '') {
    session.state = 'UNKNOWN';
    ctx.scope.audit('STATE_MISSING', { state: 'UNKNOWN' });
  }
  return ctx.scope.output();
}
