import type { StepOutput } from '../../core/turn/contracts';
import type { StepContext } from '../step-runtime';

export async function auditUserInput(ctx: StepContext): Promise<StepOutput> {
  ctx.scope.audit('USER_INPUT', { text: ctx.input.turn.message });
  return ctx.scope.output();
}
