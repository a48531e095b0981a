/** Server-side retry policy: defaults, validation and the retry decision for activity attempts. */
import { durationMs, msToDuration } from '../proto/time';
import { enums, type Failure, type RetryPolicy, type RetryState } from '../proto/types';

export type NormalizedRetryPolicy = Required<RetryPolicy>;

const DEFAULT_INITIAL_INTERVAL_MS = 1000;
const DEFAULT_BACKOFF_COEFFICIENT = 2;
const DEFAULT_MAXIMUM_INTERVAL_FACTOR = 100;

/** Returns a message describing why the policy is invalid, or undefined. */
export function validateRetryPolicy(policy: RetryPolicy | undefined): string | undefined {
  if (!policy) return undefined;
  if ((policy.backoffCoefficient ?? 0) !== 0 && (policy.backoffCoefficient ?? 0) < 1) {
    return 'BackoffCoefficient cannot be less than 1.';
  }
  if ((policy.maximumAttempts ?? 0) < 0) return 'MaximumAttempts cannot be negative.';
  const initial = durationMs(policy.initialInterval);
  const maximum = durationMs(policy.maximumInterval);
  if (initial < 0 || maximum < 0) return 'Intervals cannot be negative.';
  if (maximum > 0 && maximum < initial) return 'MaximumInterval cannot be less than InitialInterval on retry policy.';
  return undefined;
}

export function normalizeRetryPolicy(policy: RetryPolicy | undefined): NormalizedRetryPolicy {
  const initial = durationMs(policy?.initialInterval) || DEFAULT_INITIAL_INTERVAL_MS;
  const maximum = durationMs(policy?.maximumInterval) || initial * DEFAULT_MAXIMUM_INTERVAL_FACTOR;
  return {
    initialInterval: msToDuration(initial),
    backoffCoefficient: policy?.backoffCoefficient || DEFAULT_BACKOFF_COEFFICIENT,
    maximumInterval: msToDuration(maximum),
    maximumAttempts: policy?.maximumAttempts ?? 0,
    nonRetryableErrorTypes: policy?.nonRetryableErrorTypes ?? [],
  };
}

export interface RetryDecision {
  retryState: RetryState;
  /** Set when the attempt is retried (retryState IN_PROGRESS). */
  delayMs?: number;
}

/** The type the server matches against `nonRetryableErrorTypes`. */
function failureType(failure: Failure): string | undefined {
  if (failure.applicationFailureInfo) return failure.applicationFailureInfo.type;
  const timeout = failure.timeoutFailureInfo?.timeoutType;
  if (timeout === enums.TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE) return 'TemporalTimeout:StartToClose';
  if (timeout === enums.TimeoutType.TIMEOUT_TYPE_HEARTBEAT) return 'TemporalTimeout:Heartbeat';
  return undefined;
}

/**
 * Decides whether a failed attempt is retried. `attempt` is the attempt that just failed;
 * `expiresAt` is the schedule-to-close deadline, if any.
 */
export function decideRetry(
  policy: NormalizedRetryPolicy,
  attempt: number,
  failure: Failure,
  now: number,
  expiresAt: number | undefined
): RetryDecision {
  const R = enums.RetryState;
  if (failure.applicationFailureInfo?.nonRetryable || failure.canceledFailureInfo) {
    return { retryState: R.RETRY_STATE_NON_RETRYABLE_FAILURE };
  }
  if (policy.maximumAttempts > 0 && attempt >= policy.maximumAttempts) {
    return { retryState: R.RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED };
  }
  const type = failureType(failure);
  if (type !== undefined && policy.nonRetryableErrorTypes.includes(type)) {
    return { retryState: R.RETRY_STATE_NON_RETRYABLE_FAILURE };
  }
  const delayMs = nextDelayMs(policy, attempt, failure);
  if (expiresAt !== undefined && now + delayMs >= expiresAt) return { retryState: R.RETRY_STATE_TIMEOUT };
  return { retryState: R.RETRY_STATE_IN_PROGRESS, delayMs };
}

function nextDelayMs(policy: NormalizedRetryPolicy, attempt: number, failure: Failure): number {
  const explicit = durationMs(failure.applicationFailureInfo?.nextRetryDelay);
  if (explicit > 0) return explicit;
  const initial = durationMs(policy.initialInterval);
  const maximum = durationMs(policy.maximumInterval);
  const backoff = initial * Math.pow(policy.backoffCoefficient, attempt - 1);
  return Math.min(backoff, maximum);
}
