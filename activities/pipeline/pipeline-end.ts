import type { StepOutput } from '../../core/turn/contracts';
import { timingsByStep } from '../../core/turn/protocol';
import { stepDurations } from '../../db/repositories/audit';
import { currentRunId } from '../runtime/activity-context';
import type { StepContext } from '../step-runtime';

/**
 * PIPELINE_TIMING: total time since the request arrived and the time of each step, from the
 * timings the turn carried here (the reference keeps them in its session), so the row is whole
 * whatever the audit policy keeps. An input recorded before timings travelled (a turn in flight
 * across the upgrade) has none: its STEP_EXIT rows are read instead.
 */
export async function pipelineEnd(ctx: StepContext): Promise<StepOutput> {
  const { turn, stepTimings } = ctx.input;
  const steps = stepTimings
    ? timingsByStep(stepTimings)
    : await stepDurations(ctx.deps.db, turn.conversationId, turn.turnNumber, currentRunId());
  const totalMs = Math.max(0, ctx.deps.clock.now().getTime() - Date.parse(turn.receivedAt));
  ctx.scope.audit('PIPELINE_TIMING', { totalMs, steps, turnId: turn.turnId });
  return ctx.scope.output();
}
