import { AuditStage, type UserInputPayload } from '../../core/audit/payloads';
import type { StepOutput } from '../../core/turn/contracts';
import type { StepContext } from '../step-runtime';

export async function auditUserInput(ctx: StepContext): Promise<StepOutput> {
  ctx.scope.audit(AuditStage.UserInput, { text: ctx.input.turn.message } satisfies UserInputPayload);
  return ctx.scope.output();
}
