import { ApplicationFailure } from '@temporalio/common';
import { EngineError, ErrorType, isEngineError } from '../../core/errors';
import { databaseErrorText } from '../../db/error-text';

/**
 * A database error as a step reports it: INTERNAL and retryable (a later attempt may find the
 * database back), with the text db/error-text.ts allows out of the process and no cause. Anything
 * else is returned unchanged.
 */
export function fromDatabaseError(err: unknown): unknown {
  const text = databaseErrorText(err);
  if (!text) return err;
  return new EngineError(ErrorType.Internal, text.message, { retryable: true, details: { sqlState: text.sqlState } });
}

/**
 * Typed engine errors become ApplicationFailures Temporal understands: the type is the engine
 * error type and non-retryable errors (bad config, invalid input, stale turn) are not retried.
 * Anything else is rethrown unchanged, which Temporal treats as retryable. The step wrapper types
 * a database error first (fromDatabaseError), as its STEP_ERROR row needs the same text.
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
