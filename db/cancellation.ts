import { Client, type Pool, type PoolClient, type QueryConfig, type QueryResult, type QueryResultRow } from 'pg';

/**
 * Where a pool's statements learn that the work they run for was given up: the worker's engine pool answers the
 * running activity's cancellation (worker/deps.ts), so a step waiting on a row lock ends when its worker stops
 * instead of keeping it until the forced stop. Pools without one (the API's, the CLI's) query as pool.query does.
 */
const cancellations = new WeakMap<Pool, () => AbortSignal | undefined>();

/** The reasons cancellableQuery rejected with, so that a caller that wraps driver errors passes them on unchanged. */
const abortReasons = new WeakSet<object>();

export function cancelStatementsOn(pool: Pool, signalOf: () => AbortSignal | undefined): void {
  cancellations.set(pool, signalOf);
}

/** Whether `err` is a statement's cancellation (the signal's reason), not a database error. */
export function isStatementCancellation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && abortReasons.has(err);
}

/** What a statement cancelled through `signal` rejects with: the signal's reason, as fetch rejects with it. */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  const error = reason instanceof Error ? reason : new Error('the statement was cancelled', { cause: reason });
  abortReasons.add(error);
  return error;
}

/**
 * pool.query, cancellable: with the pool's signal set (cancelStatementsOn) and present (an activity runs it), the
 * statement runs on a client of its own, and when the signal aborts the server cancels it (cancelledOnAbort). It then
 * rejects with the signal's reason; the server has rolled it back (one statement is its own transaction), so nothing
 * of it is written. A statement asked for once the signal has aborted is not sent.
 */
export async function cancellableQuery<R extends QueryResultRow>(
  pool: Pool,
  config: QueryConfig
): Promise<QueryResult<R>> {
  const signal = cancellations.get(pool)?.();
  if (!signal) return pool.query<R>(config);
  if (signal.aborted) throw abortReason(signal);
  const client = await pool.connect();
  let broken = false;
  try {
    return await cancelledOnAbort(pool, client, signal, () => client.query<R>(config));
  } catch (err) {
    broken = !signal.aborted;
    throw signal.aborted ? abortReason(signal) : err;
  } finally {
    // A client whose statement failed for another reason may be broken (a lost connection): not pooled again.
    client.release(broken);
  }
}

/**
 * Runs `run` on `client`; when `signal` aborts meanwhile, the server cancels the statement (pg_cancel_backend, from a
 * connection of its own with the pool's login: a role may cancel its own sessions, and an exhausted pool cannot hold
 * the cancel back), so it stops at once, even in a lock wait, instead of at its timeout. It returns once that cancel
 * has been answered: a cancel still on its way could otherwise hit the client's next statement. Best effort: a cancel
 * that cannot be sent leaves the statement to its timeouts (lock_timeout, statement_timeout).
 */
export async function cancelledOnAbort<T>(
  pool: Pool,
  client: PoolClient,
  signal: AbortSignal | undefined,
  run: () => Promise<T>
): Promise<T> {
  if (!signal) return run();
  signal.throwIfAborted();
  const backend = (client as PoolClient & { processID?: number | null }).processID;
  let cancelling: Promise<void> = Promise.resolve();
  const cancel = (): void => {
    if (typeof backend === 'number') cancelling = cancelBackend(pool, backend);
  };
  signal.addEventListener('abort', cancel, { once: true });
  try {
    return await run();
  } finally {
    signal.removeEventListener('abort', cancel);
    await cancelling;
  }
}

/** pg_cancel_backend(backend) on a connection opened for it; never rejects. */
async function cancelBackend(pool: Pool, backend: number): Promise<void> {
  const client = new Client(pool.options);
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT pg_cancel_backend($1)', [backend]);
  } catch {
    // Best effort: the statement's own timeouts end it.
  } finally {
    await client.end().catch(() => undefined);
  }
}
