import type { StepOutput } from '../../core/turn/contracts';
import { stepDurations } from '../../db/repositories/audit';
import type { StepContext } from '../step-runtime';

/** PIPELINE_TIMING: total time since the request arrived and the time of each step (from STEP_EXIT rows). */
export async function pipelineEnd(ctx: StepContext): Promise<StepOutput> {
  const { turn } = ctx.input;
  const steps = await stepDurations(ctx.deps.db, turn.conversationId, turn.turnNumber);
  const totalMs = Math.max(0, ctx.deps.clock.now().getTime() - Date.parse(turn.receivedAt));
  ctx.scope.audit('PIPELINE_TIMING', { totalMs, steps, turnId: turn.turnId });
  return ctx.scope.output();
}
