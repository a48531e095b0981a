import { ApplicationFailure } from '@temporalio/common';
import { isEngineError } from '../../core/errors';

/**
 * Typed engine errors become ApplicationFailures Temporal understands: the type is the engine
 * error type and non-retryable errors (bad config, invalid input, stale turn) are not retried.
 * Anything else is rethrown unchanged, which Temporal treats as retryable.
 */
export function toActivityFailure(err: unknown): unknown {
  if (!isEngineError(err)) return err;
  return ApplicationFailure.create({
    type: err.type,
    message: err.message,
    nonRetryable: !err.retryable,
    details: err.details === undefined ? [] : [err.details],
    cause: err.cause instanceof Error ? err.cause : undefined,
  });
}

/** Whether a failure thrown by an activity function may succeed on another attempt. */
export function isRetryableFailure(err: unknown): boolean {
  if (err instanceof ApplicationFailure) return !err.nonRetryable;
  if (isEngineError(err)) return err.retryable;
  return true;
}
