import {
  ActivityFailure,
  ApplicationFailure,
  type TemporalFailure,
  TimeoutFailure,
  proxyActivities,
  proxyLocalActivities,
} from '@temporalio/workflow';
import type { TurnActivities, TurnFailureFacts } from '../core/turn/activities';
import type { TurnInput } from '../core/turn/contracts';
import { failedStepOfRun } from '../core/turn/step-runs';
import { operatorFailedText, TOOL_HOLD_FAILED } from '../core/mcp/hold';
import { reportedAttempt, reportedRowsUnwritten } from '../core/turn/executor';
import { blankSession } from '../core/turn/session-factory';
import { STEP_TABLE } from '../core/turn/steps';
import type { Session } from '../core/session';
import { activityOptionsFor, localActivityOptionsFor } from './activity-options';
import type { TurnVersions } from './turn-versions';

type TurnFailureActivity = Pick<TurnActivities, 'TurnFailure'>;
const regular = proxyActivities<TurnFailureActivity>(activityOptionsFor(STEP_TABLE.TurnFailure));
const local = proxyLocalActivities<TurnFailureActivity>(localActivityOptionsFor(STEP_TABLE.TurnFailure));

/**
 * TurnFailure as the turn schedules it: a regular activity retried for as long as the database stays unreachable, so
 * the row outlasts an outage (core/turn/steps.ts, TURN_FAILURE_RETRY); in histories from before that patch, a local
 * activity with a bookkeeping step's attempts.
 */
function scheduledTurnFailure(versions: Pick<TurnVersions, 'failureRowOutlastsOutage'>) {
  if (versions.failureRowOutlastsOutage()) {
    return { activity: regular.TurnFailure, options: activityOptionsFor(STEP_TABLE.TurnFailure) };
  }
  return { activity: local.TurnFailure, options: localActivityOptionsFor(STEP_TABLE.TurnFailure) };
}

/** The activity type a failure came out of, and the failure below Temporal's ActivityFailure: the step's own. */
function ownFailureOf(err: unknown): { step: string; own: unknown } {
  let step = 'Turn';
  let own: unknown = err;
  while (own instanceof ActivityFailure) {
    step = own.activityType ?? step;
    own = own.cause;
  }
  return { step, own };
}

/**
 * The failure a turn ended on, as the API reads it (api/history/public-failure.ts): below Temporal's
 * ActivityFailure, the step's own failure; a timeout is TIMEOUT, whatever it wraps.
 */
export function turnFailureFacts(err: TemporalFailure): TurnFailureFacts {
  const { step, own } = ownFailureOf(err);
  if (own instanceof TimeoutFailure) {
    return { step, type: 'TIMEOUT', message: own.message || 'timed out', nonRetryable: false, attempt: null };
  }
  if (own instanceof ApplicationFailure) {
    const type = own.type ?? 'TURN_FAILED';
    const at = type === TOOL_HOLD_FAILED ? 'McpToolHold' : (failedStepOfRun(own.details) ?? step);
    const nonRetryable = own.nonRetryable === true;
    const message = operatorFailedText(type, own.message, own.details);
    return { step: at, type, message, nonRetryable, attempt: reportedAttempt(own) };
  }
  const message = own instanceof Error ? own.message : String(own);
  const type = own instanceof Error ? own.name : 'Error';
  return { step, type, message, nonRetryable: false, attempt: null };
}

/**
 * Whether the workflow writes the turn's failure row: when no step did. A step that reports its failed attempt is
 * the step runtime's, whose last attempt wrote the row itself, unless the database was still down then and the
 * attempt says so; only histories with UNWRITTEN_FAILURE_ROW_PATCH write that one here, and only a turn that met
 * it asks the patch (so every other turn's history stays as it was).
 */
function noStepWroteRow(err: TemporalFailure, versions: Pick<TurnVersions, 'unwrittenFailureRow'>): boolean {
  const { own } = ownFailureOf(err);
  if (reportedAttempt(own) === null) return true;
  return reportedRowsUnwritten(own) && versions.unwrittenFailureRow();
}

/**
 * Has the turn's failure row written when no step did (activities/turn-failure.ts). The turn stays open while the
 * database is unreachable, up to TurnFailure's schedule-to-close; past it, or on any other failure of the write, the
 * turn's own failure is still what Temporal records and the caller gets.
 */
export async function recordTurnFailure(
  turn: TurnInput,
  session: Session | null,
  err: TemporalFailure,
  versions: Pick<TurnVersions, 'unwrittenFailureRow' | 'failureRowOutlastsOutage'>
): Promise<void> {
  if (noStepWroteRow(err, versions)) await writeFailureRow(turn, session, turnFailureFacts(err), versions);
}

/** The failure type of a turn cancelled in Temporal (`temporal workflow cancel`, the SDK's `handle.cancel()`). */
export const TURN_CANCELLED = 'TURN_CANCELLED';

/**
 * The failure row of a turn cancelled in Temporal, at the step it was in (or last ran, when it waited), so its trail ends with an ENGINE_*_FAILURE
 * row (the stream's end event) as any ended turn's does. Not retryable: the turn was stopped on purpose. The caller
 * runs it where the cancellation cannot reach (CancellationScope.nonCancellable).
 */
export async function recordTurnCancellation(
  turn: TurnInput,
  session: Session | null,
  err: unknown,
  lastSent: string,
  versions: Pick<TurnVersions, 'failureRowOutlastsOutage'>
): Promise<void> {
  // The activity's own cancellation names its step; the turn's (the SDK cancels the activity with it) does not.
  const named = ownFailureOf(err).step;
  const step = named === 'Turn' ? lastSent : named;
  const message = `the turn was cancelled in Temporal (workflow cancel) during ${step}`;
  const failure = { step, type: TURN_CANCELLED, message, nonRetryable: true, attempt: null };
  await writeFailureRow(turn, session, failure, versions);
}

async function writeFailureRow(
  turn: TurnInput,
  session: Session | null,
  failure: TurnFailureFacts,
  versions: Pick<TurnVersions, 'failureRowOutlastsOutage'>
): Promise<void> {
  const summary = `TurnFailure: ${failure.type} at ${failure.step}`;
  const { activity, options } = scheduledTurnFailure(versions);
  try {
    await activity.executeWithOptions({ ...options, summary }, [
      { turn, session: session ?? blankSession(turn), failure },
    ]);
  } catch (writeFailed) {
    if (!(writeFailed instanceof ActivityFailure)) throw writeFailed;
  }
}
