import type { TurnActivities } from '../core/turn/activities';
import type { ActivityDeps } from './deps';
import { createMcpActivities } from './mcp';
import { createPipelineActivities } from './pipeline';
import { createStepRuns } from './pipeline/step-runs';
import { withHeldAudits } from './runtime/audit-writer';
import { createRecordTurnDecision } from './turn-decision';
import { createTurnFailure } from './turn-failure';

/** Every activity of a turn, keyed by activity type: what the worker registers and the in-process runner calls. */
export function createActivities(deps: ActivityDeps): TurnActivities {
  return withStepRuns(
    {
      ...createPipelineActivities(deps),
      ...createMcpActivities(deps),
      RecordTurnDecision: createRecordTurnDecision(deps),
      TurnFailure: createTurnFailure(deps),
    },
    deps
  );
}

/**
 * The activities with step runs (`LocalSteps`, `RegularSteps`) that run THESE step activities:
 * whoever wraps a step (a test injecting a failure) rebuilds them, so a step behaves the same alone
 * and inside a step run.
 */
export function withStepRuns(
  activities: Omit<TurnActivities, 'LocalSteps' | 'RegularSteps'>,
  deps: ActivityDeps
): TurnActivities {
  const runDeps = { clock: deps.clock, holdAudits: <T>(work: () => Promise<T>) => withHeldAudits(deps, work) };
  return { ...activities, ...createStepRuns(activities, runDeps) };
}

export type { ActivityDeps } from './deps';
