import {
  ActivityFailure,
  ApplicationFailure,
  type TemporalFailure,
  TimeoutFailure,
  proxyLocalActivities,
} from '@temporalio/workflow';
import type { TurnActivities, TurnFailureFacts } from '../core/turn/activities';
import type { TurnInput } from '../core/turn/contracts';
import { failedStepOfRun } from '../core/turn/step-runs';
import { TOOL_HOLD_FAILED } from '../core/mcp/hold';
import { reportedAttempt } from '../core/turn/executor';
import { blankSession } from '../core/turn/session-factory';
import { STEP_TABLE } from '../core/turn/steps';
import type { Session } from '../core/session';
import { localActivityOptionsFor } from './activity-options';

const { TurnFailure } = proxyLocalActivities<Pick<TurnActivities, 'TurnFailure'>>(
  localActivityOptionsFor(STEP_TABLE.TurnFailure)
);

/**
 * The failure a turn ended on, as the API reads it (api/history/public-failure.ts): below Temporal's
 * ActivityFailure, the step's own failure; a timeout is TIMEOUT, whatever it wraps.
 */
export function turnFailureFacts(err: TemporalFailure): TurnFailureFacts {
  let step = 'Turn';
  let own: unknown = err;
  while (own instanceof ActivityFailure) {
    step = own.activityType ?? step;
    own = own.cause;
  }
  if (own instanceof TimeoutFailure) {
    return { step, type: 'TIMEOUT', message: own.message || 'timed out', nonRetryable: false, attempt: null };
  }
  if (own instanceof ApplicationFailure) {
    const type = own.type ?? 'TURN_FAILED';
    const at = type === TOOL_HOLD_FAILED ? 'McpToolHold' : (failedStepOfRun(own.details) ?? step);
    const nonRetryable = own.nonRetryable === true;
    return { step: at, type, message: own.message, nonRetryable, attempt: reportedAttempt(own) };
  }
  const message = own instanceof Error ? own.message : String(own);
  const type = own instanceof Error ? own.name : 'Error';
  return { step, type, message, nonRetryable: false, attempt: null };
}

/**
 * Has the turn's failure row written when no step did (activities/turn-failure.ts). Best effort: the
 * turn's own failure is what Temporal records and the caller gets, whatever happens to this write.
 */
export async function recordTurnFailure(turn: TurnInput, session: Session | null, err: TemporalFailure): Promise<void> {
  const failure = turnFailureFacts(err);
  // A step that reports its failed attempt is the step runtime's: its last attempt wrote the row itself.
  if (failure.attempt !== null) return;
  const summary = `TurnFailure: ${failure.type} at ${failure.step}`;
  try {
    await TurnFailure.executeWithOptions({ ...localActivityOptionsFor(STEP_TABLE.TurnFailure), summary }, [
      { turn, session: session ?? blankSession(turn), failure },
    ]);
  } catch (writeFailed) {
    if (!(writeFailed instanceof ActivityFailure)) throw writeFailed;
  }
}
