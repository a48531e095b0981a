import type { TurnActivities } from '../core/turn/activities';
import type { ActivityDeps } from './deps';
import { createMcpActivities } from './mcp';
import { createPipelineActivities } from './pipeline';
import { createRecordTurnDecision } from './turn-decision';

/** Every activity of a turn, keyed by activity type: what the worker registers and the in-process runner calls. */
export function createActivities(deps: ActivityDeps): TurnActivities {
  return {
    ...createPipelineActivities(deps),
    ...createMcpActivities(deps),
    RecordTurnDecision: createRecordTurnDecision(deps),
  };
}

export type { ActivityDeps } from './deps';
