import * as grpc from '@grpc/grpc-js';
import type { ConnectionLike } from '@temporalio/client';
import { sql } from 'drizzle-orm';
import type { Pool, PoolClient } from 'pg';
import { isNamespaceNotFound } from '../config/temporal-client';
import { DATABASE_BUSY_MEANING, isDatabaseBusy } from '../db/connection-loss';
import { connectionRefusalOf } from '../db/error-text';
import { markBusySince } from '../db/engine-pool';
import type { Database } from '../db/pool';
import { refusalReason } from './database-refusal';

/**
 * How long a check of a dependency may take before it counts as unreachable: a readiness probe, the prerequisite
 * check a message waits for, the pending-approvals count a scrape waits for. Without it a probe or a scrape outlasts
 * its caller's own timeout (Prometheus's is 10 s): Temporal's client retries an unreachable server for about 19 s
 * (the worker's native connection retries past a gRPC deadline), and the pool waits 10 s for a connection to a
 * database that does not answer.
 */
export const CHECK_DEADLINE_MS = 2_000;

/** `work`'s answer, or `timedOut()` thrown once `ms` have passed; the work itself goes on, unobserved. */
export function answerWithin<T>(work: Promise<T>, timedOut: () => Error, ms = CHECK_DEADLINE_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(timedOut()), ms);
    timer.unref();
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/**
 * A Temporal call under the check deadline: the gRPC deadline ends the call where the client honours it, and a call
 * still retrying then fails as one cut off by its deadline would (DEADLINE_EXCEEDED, which isTemporalUnreachable
 * reads as unreachable).
 */
export function temporalCheck<T>(connection: Pick<ConnectionLike, 'withDeadline'>, call: () => Promise<T>): Promise<T> {
  const timedOut = () =>
    Object.assign(new Error(`Temporal did not answer within ${CHECK_DEADLINE_MS} ms`), {
      code: grpc.status.DEADLINE_EXCEEDED,
    });
  const running = connection.withDeadline(Date.now() + CHECK_DEADLINE_MS, call);
  track(connection, running);
  return answerWithin(running, timedOut);
}

/**
 * The Temporal checks still running, per connection. A check given up at its deadline may still wait in the client's
 * retry back-off (at most one, up to 5 s, since DEADLINE_EXCEEDED is not retried), and that retry throws, uncaught, on
 * a connection closed meanwhile: a client Connection is closed only after temporalChecksEnded. (A NativeConnection
 * rejects what it still runs when closed.)
 */
const runningChecks = new WeakMap<object, Set<Promise<unknown>>>();

function track(connection: object, check: Promise<unknown>): void {
  const running = runningChecks.get(connection) ?? new Set<Promise<unknown>>();
  runningChecks.set(connection, running);
  running.add(check);
  const done = () => running.delete(check);
  check.then(done, done);
}

/** Resolves when every Temporal check started on `connection` has ended, however it ended. */
export async function temporalChecksEnded(connection: object): Promise<void> {
  await Promise.allSettled([...(runningChecks.get(connection) ?? [])]);
}

/**
 * A database check under the check deadline: run on `pool`, a deadline met while the database answered the pool's other
 * statements is a busy database (isDatabaseBusy), not an unreachable one.
 */
export function databaseCheck<T>(work: Promise<T>, pool?: Pool): Promise<T> {
  const since = performance.now();
  const timedOut = () => new Error(`the database did not answer within ${CHECK_DEADLINE_MS} ms`);
  return answerWithin(work, () => (pool ? markBusySince(pool, timedOut(), since) : timedOut()));
}

/** A check's statement sent on one of its pool's connections that got no answer within the check deadline. */
export class CheckStalledError extends Error {}

/**
 * `work` on one of `pool`'s connections, under the check deadline. The deadline met while the database answered the
 * pool's other statements meanwhile is a busy database (isDatabaseBusy), whether the check still waited for a
 * connection (the pool is full) or its own statement got no answer (one stopped backend, or a server slow for this
 * statement): every replica on a slow database would see the same, and taking them all out of service at once turns a
 * spike into an outage (docs/operations.md). Met with no answer at all since it began, once its statement was sent, it
 * is a CheckStalledError: this process got nothing from its database within the bound.
 */
export function pooledCheck<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const since = performance.now();
  let connected = false;
  const run = async (): Promise<T> => {
    const client = await pool.connect();
    connected = true;
    try {
      const answer = await work(client);
      client.release();
      return answer;
    } catch (err) {
      // As pool.query does: a client whose statement failed is not handed out again.
      client.release(err instanceof Error ? err : true);
      throw err;
    }
  };
  const timedOut = () =>
    markBusySince(
      pool,
      connected
        ? new CheckStalledError(`the database did not answer a check's statement within ${CHECK_DEADLINE_MS} ms`)
        : new Error(`no connection to the database was free within ${CHECK_DEADLINE_MS} ms`),
      since
    );
  return answerWithin(run(), timedOut);
}

/**
 * The readiness of a database that answers the pool's statements, but not a check in time (no free connection, or no
 * answer on its own): the pool is saturated or the server slow. The process stays ready (probe-server.ts,
 * readinessReply): every replica on the database sees the same load.
 */
export const DATABASE_BUSY = 'busy';

/**
 * The readiness of a database whose check had a connection but no answer to its statement within the deadline, and
 * that answered none of the pool's other statements meanwhile: not ready (probe-server.ts).
 */
export const DATABASE_STALLED = 'stalled';

/** What /readyz says beside a busy check (public: no pool counts, the log has them). */
export const DATABASE_BUSY_WARNING =
  `the database is busy: ${DATABASE_BUSY_MEANING}; requests get 503 DATABASE_BUSY meanwhile, and this process ` +
  'stays ready (every replica on the database shares the load)';

/** What readiness names as the fix of the engine database's refused login: the variable, nothing of its value. */
export const CHECK_DATABASE_URL = 'check DATABASE_URL';

/**
 * The database's readiness (`select 1`) within the check deadline: `ok`, `unreachable`, `busy` (no pooled connection
 * was free in time, or its `select 1` got no answer, while the database answered the pool's other statements),
 * `stalled` (its `select 1` was sent and got no answer in time, and no statement of the pool was answered since the
 * check began), or the refused login a retry would not mend (`database missing: check DATABASE_URL`, `login refused:
 * …`).
 */
export function databaseReadiness(db: Pick<Database, 'execute'> & Partial<Pick<Database, '$client'>>): Promise<string> {
  const pool = db.$client;
  const answered = pool
    ? pooledCheck(pool, (client) => client.query('select 1'))
    : databaseCheck(db.execute(sql`select 1`));
  return answered.then(
    () => 'ok',
    (err: unknown) => {
      if (isDatabaseBusy(err)) return DATABASE_BUSY;
      if (err instanceof CheckStalledError) return DATABASE_STALLED;
      const refusal = connectionRefusalOf(err);
      return refusal === null ? 'unreachable' : refusalReason(refusal, CHECK_DATABASE_URL);
    }
  );
}

/**
 * Temporal's readiness (`call` answers): `ok` or `unreachable`, within the check deadline. A namespace that does not
 * exist is an answer of a reachable server: the prerequisite check names that and its fix.
 */
export function temporalReadiness(
  connection: Pick<ConnectionLike, 'withDeadline'>,
  call: () => Promise<unknown>
): Promise<string> {
  const answered = temporalCheck(connection, call).catch((err: unknown) => {
    if (!isNamespaceNotFound(err)) throw err;
  });
  return readiness(answered);
}

/** A readiness check: `ok`, or `unreachable` without the error (the probe body is public). */
function readiness(probe: Promise<unknown>): Promise<string> {
  return probe.then(
    () => 'ok',
    () => 'unreachable'
  );
}

/** How long one readiness answer serves the next probes, API and worker alike (docs/operations.md: "the next second"). */
export const READINESS_CACHE_MS = 1_000;

/**
 * How long one readiness answer serves /readyz in a process whose prerequisite checks run every
 * `prerequisiteCacheMs`: READINESS_CACHE_MS, or less, so that /readyz never reports a prerequisite answer staler
 * than the checks themselves would.
 */
export function readinessCacheMs(prerequisiteCacheMs?: number): number {
  return Math.min(READINESS_CACHE_MS, prerequisiteCacheMs ?? READINESS_CACHE_MS);
}

/**
 * `read`, run at most once per `ms`: a call within that time of the last run gets the last run's answer (a failure
 * too), so probes and scrapes in a burst, or while a dependency is down, cost one check. Timed on the monotonic
 * clock: a wall clock set back (NTP, a resumed VM) would otherwise serve the last answer until it caught up again.
 */
export function cachedFor<T>(ms: number, read: () => Promise<T>): () => Promise<T> {
  let last: { at: number; answer: Promise<T> } | undefined;
  return () => {
    const now = performance.now();
    if (last === undefined || now - last.at >= ms) last = { at: now, answer: read() };
    return last.answer;
  };
}
