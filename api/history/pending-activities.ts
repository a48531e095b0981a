import { temporal } from '@temporalio/proto';
import { epochMs } from '../../config/temporal-timestamp';
import type { PendingActivityView } from '../console/ports';
import { publicFailureOf, type PublicFailure } from './public-failure';

type Failure = temporal.api.failure.v1.IFailure;

const isoOf = (t: { seconds?: unknown; nanos?: unknown } | null | undefined): string | null => {
  const ms = epochMs(t);
  return ms === null ? null : new Date(ms).toISOString();
};

function activityState(state: number | null | undefined): string {
  const name = temporal.api.enums.v1.PendingActivityState[state ?? 0] ?? 'UNSPECIFIED';
  return name.replace(/^PENDING_ACTIVITY_STATE_/, '');
}

/**
 * A running turn's activity from DescribeWorkflowExecution: its attempt, last failure and next attempt. The console
 * shows the failure as the API does (publicFailureOf); `convengine history`, for operators, in full (failureOf).
 */
export function pendingActivityView(
  a: temporal.api.workflow.v1.IPendingActivityInfo,
  shown: (failure: Failure) => PublicFailure = publicFailureOf
): PendingActivityView {
  const failure = a.lastFailure ? shown(a.lastFailure) : null;
  return {
    activityId: a.activityId ?? '',
    type: a.activityType?.name ?? '',
    state: activityState(a.state),
    attempt: a.attempt ?? 0,
    maximumAttempts: a.maximumAttempts ?? 0,
    paused: !!a.paused,
    lastFailure: failure ? `${failure.type}: ${failure.message}` : null,
    nextAttemptAt: isoOf(a.nextAttemptScheduleTime),
  };
}
