import { ApplicationFailure } from '@temporalio/common';
import { DrizzleQueryError } from 'drizzle-orm';
import { DatabaseError } from 'pg';
import { EngineError, ErrorType, isEngineError } from '../../core/errors';
import { scrubDatabaseMessage } from '../../db/error-text';

/**
 * A database error as a step reports it: INTERNAL and retryable (a later attempt may find the
 * database back), with the server's first line, quoted values left out, and its SQLSTATE. Never
 * drizzle's message, which quotes the statement and its parameters (the user's text, the session's
 * context, a whole config): that would reach the worker's log lines past their redaction, the
 * STEP_ERROR row and Temporal's history. Anything else is returned unchanged.
 */
export function fromDatabaseError(err: unknown): unknown {
  const driver = err instanceof DrizzleQueryError ? err.cause : err instanceof DatabaseError ? err : undefined;
  if (driver === undefined && !(err instanceof DrizzleQueryError)) return err;
  const code = (driver as { code?: unknown } | undefined)?.code;
  // Nothing quoted: in the engine's own statements a quoted value is the user's text or the session's.
  const text = scrubDatabaseMessage(driver, 'the database connection failed or the statement could not be sent', 0);
  return new EngineError(ErrorType.Internal, `A database statement failed: ${text}`, {
    retryable: true,
    details: { sqlState: typeof code === 'string' ? code : null },
  });
}

/**
 * Typed engine errors become ApplicationFailures Temporal understands: the type is the engine
 * error type and non-retryable errors (bad config, invalid input, stale turn) are not retried.
 * Database errors are typed first (fromDatabaseError). Anything else is rethrown unchanged, which
 * Temporal treats as retryable.
 */
export function toActivityFailure(thrown: unknown): unknown {
  const err = fromDatabaseError(thrown);
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
