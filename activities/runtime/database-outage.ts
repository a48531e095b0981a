import type { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityInterceptors } from '@temporalio/worker';
import { isDatabaseUnreachable } from '../../db/connection-loss';
import type { Database } from '../../db/pool';
import { outageWaitMs, stepSpecNamed } from '../../core/turn/steps';
import { activityContext } from './activity-context';
import { whileHeartbeating } from './heartbeat';

/** Room left in an attempt's start-to-close after its wait, to write its failure rows and fail in time. */
const ATTEMPT_MARGIN_MS = 5_000;
const FIRST_PROBE_MS = 250;
const PROBE_MAX_MS = 2_000;
/** When each attempt (its activity context) that met an outage stops waiting for it. */
const outageDeadlines = new WeakMap<Context, number>();
/** When each attempt started on this worker, on its monotonic clock (attemptStartInterceptor). */
const attemptStarts = new WeakMap<Context, number>();

/**
 * The turn worker's activity interceptor (worker/worker.ts): notes when each attempt starts, so the time it has run is
 * measured on this worker's clock alone. Temporal's timestamps are on the server's clock, and a worker's clock behind
 * it by a minute would take a minute off what the attempt ran, and wait past its start-to-close.
 */
export function attemptStartInterceptor(context: Context): ActivityInterceptors {
  attemptStarts.set(context, performance.now());
  return {};
}

/**
 * How long this attempt has run, within [0, budgetMs]: on this worker's clock from its start, or, for an attempt the
 * interceptor did not see (a worker built without it), from the time Temporal scheduled it (the server's clock).
 */
function attemptRanMs(context: Context, budgetMs: number): number {
  const started = attemptStarts.get(context);
  const ran =
    started !== undefined ? performance.now() - started : Date.now() - context.info.currentAttemptScheduledTimestampMs;
  return Math.min(budgetMs, Math.max(0, ran));
}

/**
 * How long this attempt of step `name`, failed on `err`, waits for the database: its share of the step's outage window
 * (core/turn/steps.ts, databaseOutageMs), within what is left of the running activity's start-to-close (a step run's,
 * whose earlier steps took their part of it). Zero for any other failure, for a step with no window, and outside a
 * Temporal activity (the in-process runner does not wait).
 */
export function outageWaitFor(name: string, err: unknown): number {
  const spec = stepSpecNamed(name);
  const context = activityContext();
  if (!spec || !context || !isDatabaseUnreachable(err)) return 0;
  const budgetMs = context.info.startToCloseTimeoutMs || spec.startToCloseMs;
  const left = budgetMs - attemptRanMs(context, budgetMs) - ATTEMPT_MARGIN_MS;
  // One share per attempt, however many of its writes meet the outage (a failed step's rows, then its run's).
  const deadline = outageDeadlines.get(context) ?? Date.now() + Math.max(0, Math.min(outageWaitMs(spec.retry), left));
  outageDeadlines.set(context, deadline);
  return Math.max(0, deadline - Date.now());
}

/**
 * Waits, at most `budgetMs`, until the database answers again, probing it with a backoff and heartbeating meanwhile.
 * Temporal counts every attempt alike, so a step that retried only by its policy would spend its attempts in the
 * first seconds of a failover (5 attempts, 3 s for a bookkeeping step) and fail the turn, its failure row unwritten.
 * Waiting inside the attempt instead leaves the policy, and the failure of every other error, as it is: the attempt
 * still fails afterwards (its failure rows are written, now that they can be), and the next one starts at once.
 * True when the database answered within the budget.
 */
export async function awaitDatabase(db: Database, budgetMs: number): Promise<boolean> {
  const context = activityContext();
  if (!context || budgetMs <= 0) return false;
  const until = Date.now() + budgetMs;
  return whileHeartbeating(async () => {
    for (let pause = FIRST_PROBE_MS; Date.now() < until; pause = Math.min(PROBE_MAX_MS, pause * 2)) {
      try {
        // A cancelled attempt (timed out, its worker stopping) stops waiting: its failure stands.
        await context.sleep(Math.min(pause, Math.max(0, until - Date.now())));
        await db.$client.query('SELECT 1');
        return true;
      } catch (err) {
        if (!isDatabaseUnreachable(err)) return false;
      }
    }
    return false;
  });
}

/**
 * Runs `statement` (an idempotent read) in an attempt of step `name`, and once more when it met an unavailable
 * database that answered again within the attempt's share of the step's outage window: what a failed step does before
 * writing its rows (activities/step-runtime.ts), for an activity that reads before it writes (TurnFailure). Its
 * failure stands otherwise, and the attempt fails as it would have.
 */
export async function throughOutage<T>(db: Database, name: string, statement: () => Promise<T>): Promise<T> {
  try {
    return await statement();
  } catch (err) {
    if (!(await awaitDatabase(db, outageWaitFor(name, err)))) throw err;
    return statement();
  }
}

/**
 * The failure an attempt of step `name` ends on, when the step outlasts an unreachable database
 * (databaseUnreachableRetryMs): its policy has no attempt limit, so one that failed on anything else is failed for
 * good here once the step's maximumAttempts are spent. Failing on the database is the failure itself being one
 * (isDatabaseUnreachable), or the attempt having met one (outageWaitFor): a write's failure is typed INTERNAL
 * without it (activities/runtime/failure.ts). Unchanged for every other step, and outside a Temporal activity.
 */
function attemptFailure(name: string, err: unknown): unknown {
  const spec = stepSpecNamed(name);
  const context = activityContext();
  if (!spec?.retry.databaseUnreachableRetryMs || !context) return err;
  if (isDatabaseUnreachable(err) || outageDeadlines.has(context)) return err;
  if (context.info.attempt < spec.retry.maximumAttempts) return err;
  if (err instanceof ApplicationFailure) {
    if (err.nonRetryable) return err;
    const { type, message, details, cause } = err;
    return ApplicationFailure.create({
      type: type ?? undefined,
      message,
      details: details ?? undefined,
      cause,
      nonRetryable: true,
    });
  }
  const own = err instanceof Error ? err : new Error(String(err));
  return ApplicationFailure.create({ type: own.name, message: own.message, cause: own, nonRetryable: true });
}

/**
 * Runs an attempt of step `name`, which its policy retries for as long as the database stays unreachable
 * (TurnFailure: the turn's record must outlast an outage), every other failure after its maximumAttempts.
 */
export async function untilDatabaseBack<T>(name: string, attempt: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (err) {
    throw attemptFailure(name, err);
  }
}
