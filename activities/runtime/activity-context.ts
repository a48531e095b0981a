import { asyncLocalStorage, type Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';

/**
 * The context of the Temporal activity running now, or null outside one (the in-process runner:
 * tests, the benchmark baseline). Reads the store Context.current() reads (the worker runs every
 * activity inside it), without Context.current()'s throw — in process it would build an Error,
 * with its stack trace, several times per step.
 */
export function activityContext(): Context | null {
  return asyncLocalStorage.getStore() ?? null;
}

/** The Temporal run the current activity belongs to, or null outside one (stored with audit rows and LLM calls). */
export function currentRunId(): string | null {
  return activityContext()?.info.workflowExecution?.runId ?? null;
}

/**
 * Whether Temporal has given up on this attempt: it timed out (a local activity is cancelled when it does), lost
 * its heartbeat, or was cancelled. Whatever it returns is discarded, and a later attempt, or the workflow's own
 * failure row, stands instead; so it must not write rows that would land after them.
 */
export function attemptAbandoned(): boolean {
  return activityContext()?.cancellationSignal?.aborted ?? false;
}

/**
 * The running activity's cancellation signal, or undefined outside one: I/O that may outlast WORKER_SHUTDOWN_GRACE_MS
 * (a model call, a SQL or HTTP tool call) ends on it, so a stopping worker's attempt fails at the grace's end and is
 * retried on another worker at once, instead of running on until the worker is cut off 10 s later.
 */
export function activityCancellation(): AbortSignal | undefined {
  return activityContext()?.cancellationSignal;
}

/**
 * What an attempt cancelled through `signal` throws: Temporal's own reason (a CancelledFailure), which the worker
 * reports as the attempt cancelled, not as the aborted I/O's failure.
 */
export function cancelledBy(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new CancelledFailure('the activity was cancelled');
}

/**
 * Throws the attempt's cancellation (cancelledBy) once Temporal has cancelled it (the turn cancelled, the worker
 * stopping, its heartbeat lost), whatever the cancelled I/O threw instead (a tool's ToolExecutionFailed, a handler's
 * AbortError): the worker then reports the attempt cancelled (WorkerShutdown on a stopping worker, which Temporal
 * retries at once), not as a failure of the step or its tool.
 */
export function throwIfCancelled(): void {
  const signal = activityCancellation();
  if (signal?.aborted) throw cancelledBy(signal);
}
