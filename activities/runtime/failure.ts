import { ApplicationFailure, ApplicationFailureCategory, CancelledFailure } from '@temporalio/common';
import { EngineError, ErrorType, isEngineError, isProgrammingError, safeErrorDetails } from '../../core/errors';
import { FAILED_ATTEMPT_DETAIL, FAILURE_ROWS_UNWRITTEN_DETAIL } from '../../core/turn/executor';
import { isJsonObject } from '../../core/json';
import { NON_RETRYABLE_ERROR_TYPES } from '../../core/turn/steps';
import { currentAttempt } from './attempt';
import { databaseErrorText } from '../../db/error-text';
import { attemptAbandoned } from './activity-context';

/**
 * A database error as a step reports it: INTERNAL, with the text db/error-text.ts allows out of the
 * process and no cause. Retryable (a later attempt may find the database back) unless the data itself
 * cannot be stored: SQLSTATE class 22 (data exception: a NUL in text, a bad jsonb escape) or 54
 * (program limit exceeded: a jsonb value over 256 MB). Those fail every attempt the same way, and each
 * retry would call the model or re-send a tool's write again. Anything else is returned unchanged.
 */
export function fromDatabaseError(err: unknown): unknown {
  const text = databaseErrorText(err);
  if (!text) return err;
  const dataRefused = text.sqlState !== null && /^(22|54)/.test(text.sqlState);
  return new EngineError(ErrorType.Internal, text.message, {
    retryable: !dataRefused,
    details: { sqlState: text.sqlState },
  });
}

/**
 * Typed engine errors become ApplicationFailures Temporal understands: the type is the engine
 * error type and non-retryable errors (bad config, invalid input, stale turn) are not retried.
 * Its details are the error's safe ones (safeErrorDetails) and, last, the attempt that failed:
 * Temporal tells the workflow only the retry state, and a tool failure reports its attempts
 * (core/turn/executor.ts, reportedAttempt).
 * A programming error (core/errors.ts, isProgrammingError) becomes a non-retryable one of its class.
 * Anything else is rethrown unchanged, which Temporal treats as retryable. The step wrapper types
 * a database error first (fromDatabaseError), as its STEP_ERROR row needs the same text.
 */
export function toActivityFailure(err: unknown): unknown {
  if (isProgrammingError(err)) return programmingFailure(err);
  if (!isEngineError(err)) return err;
  return ApplicationFailure.create({
    type: err.type,
    message: err.message,
    nonRetryable: !err.retryable,
    // History is kept for the namespace's retention and read by anyone who may read the namespace: the details go as
    // a log line's do (safeErrorDetails), never an upstream's body or a value a call or the environment filled in.
    details: [
      ...(err.details === undefined ? [] : [safeErrorDetails(err.details)]),
      { [FAILED_ATTEMPT_DETAIL]: currentAttempt() },
    ],
    // No cause: the engine error's message is the text allowed out of the process (a SQL tool's is scrubbed by
    // db/error-text.ts); the driver error it wraps would carry the raw one, user values included, into history.
  });
}

/**
 * The failure of an attempt whose failure rows could not be stored (the database still down when its outage wait ran
 * out), saying so beside its attempt, so that the workflow writes the turn's failure row once the database is back
 * (workflows/turn-failure.ts). A failure that reports no attempt is returned unchanged: the workflow writes that
 * turn's row anyway.
 */
export function withFailureRowsUnwritten(failure: unknown): unknown {
  if (!(failure instanceof ApplicationFailure)) return failure;
  let marked = false;
  const details = (failure.details ?? []).map((detail) => {
    if (marked || !isJsonObject(detail) || typeof detail[FAILED_ATTEMPT_DETAIL] !== 'number') return detail;
    marked = true;
    return { ...detail, [FAILURE_ROWS_UNWRITTEN_DETAIL]: true };
  });
  if (!marked) return failure;
  return ApplicationFailure.create({
    type: failure.type ?? undefined,
    message: failure.message,
    nonRetryable: failure.nonRetryable === true,
    details,
    cause: failure.cause,
  });
}

/**
 * A bug's error as a failure no retry follows and that no reader takes for a retryable one (the API answers 503 for
 * those). Unchanged in class and message, the error itself as its cause: its stack is what finds the bug, and it was
 * in history before as the failure itself.
 */
function programmingFailure(err: Error): ApplicationFailure {
  return ApplicationFailure.create({
    type: err.name,
    message: err.message,
    nonRetryable: true,
    details: [{ [FAILED_ATTEMPT_DETAIL]: currentAttempt() }],
    cause: err,
  });
}

/**
 * Whether a failure thrown by an activity function may succeed on another attempt, as Temporal
 * decides it: a non-retryable flag, else the type against the retry policy's nonRetryableErrorTypes
 * (an error's name is its type). The in-process runner retries by this.
 */
export function isRetryableFailure(err: unknown): boolean {
  if (isEngineError(err)) return err.retryable;
  if (isProgrammingError(err)) return false;
  if (err instanceof ApplicationFailure && err.nonRetryable) return false;
  const type = err instanceof ApplicationFailure ? err.type : err instanceof Error ? err.name : null;
  return !(type && NON_RETRYABLE_ERROR_TYPES.includes(type));
}

/**
 * The failure type of an attempt whose run has already ended: its workflow wrote the run's last row (TURN_CANCELLED, or
 * the failure row of a turn whose attempt timed out) while the attempt ran on, and the audit batch refused its rows.
 */
export const RUN_ENDED = 'RUN_ENDED';

const RUN_ENDED_MESSAGE = "the turn's run has ended (its last row is written): this attempt's rows are not";

/**
 * How an attempt of a run that has ended stops: cancelled, as Temporal asked, once its cancellation has arrived;
 * before that (it arrives with a heartbeat's answer), non-retryable and benign, so that no retry follows and the
 * worker does not log it as a failure. Temporal discards either: the workflow no longer waits on the attempt.
 */
export function runEndedFailure(): Error {
  if (attemptAbandoned()) return new CancelledFailure(RUN_ENDED_MESSAGE, [RUN_ENDED]);
  return ApplicationFailure.create({
    type: RUN_ENDED,
    message: RUN_ENDED_MESSAGE,
    nonRetryable: true,
    category: ApplicationFailureCategory.BENIGN,
  });
}

export function isRunEndedFailure(err: unknown): boolean {
  if (err instanceof CancelledFailure) return err.details[0] === RUN_ENDED;
  return err instanceof ApplicationFailure && err.type === RUN_ENDED;
}
