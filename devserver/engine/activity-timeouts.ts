/** An activity's timeouts: the next deadline of its current stage, and the failure a timeout records. */
import { enums, type Failure } from '../proto/types';
import type { ActivityState } from './state';

const TIMEOUT = enums.TimeoutType;

/** The earliest deadline of the activity in its current stage. */
export function nextDeadline(activity: ActivityState): number {
  let at = activity.scheduleToCloseMs > 0 ? activity.scheduledAt + activity.scheduleToCloseMs : Infinity;
  if (activity.stage === 'BACKOFF') at = Math.min(at, activity.attemptScheduledAt);
  if (activity.stage === 'SCHEDULED' && activity.scheduleToStartMs > 0) {
    at = Math.min(at, activity.attemptScheduledAt + activity.scheduleToStartMs);
  }
  if (activity.stage === 'STARTED' && activity.startedAt !== undefined) {
    if (activity.startToCloseMs > 0) at = Math.min(at, activity.startedAt + activity.startToCloseMs);
    if (activity.heartbeatMs > 0) {
      at = Math.min(at, (activity.lastHeartbeatAt ?? activity.startedAt) + activity.heartbeatMs);
    }
  }
  return at;
}

export function timeoutFailure(type: number, activity: ActivityState, cause?: Failure): Failure {
  const names: Record<number, string> = {
    [TIMEOUT.TIMEOUT_TYPE_START_TO_CLOSE]: 'StartToClose',
    [TIMEOUT.TIMEOUT_TYPE_SCHEDULE_TO_START]: 'ScheduleToStart',
    [TIMEOUT.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE]: 'ScheduleToClose',
    [TIMEOUT.TIMEOUT_TYPE_HEARTBEAT]: 'Heartbeat',
  };
  return {
    message: `activity ${names[type] ?? 'unknown'} timeout`,
    source: 'Server',
    cause,
    timeoutFailureInfo: { timeoutType: type, lastHeartbeatDetails: activity.heartbeatDetails },
  };
}
