import { connect } from 'node:net';
import type { Pool, PoolClient, QueryConfig, QueryResult, QueryResultRow } from 'pg';

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
    return await cancelledOnAbort(client, signal, () => client.query<R>(config));
  } catch (err) {
    broken = !signal.aborted;
    throw signal.aborted ? abortReason(signal) : err;
  } finally {
    // A client whose statement failed for another reason may be broken (a lost connection): not pooled again.
    releaseClient(client, broken);
  }
}

/** The clients a CancelRequest was sent for (cancelledOnAbort): never pooled again (releaseClient). */
const cancelSent = new WeakSet<PoolClient>();

/**
 * Returns `client` to its pool, or discards it (closes its connection) when `broken` or when a CancelRequest was
 * sent for its session: the server handles a cancel asynchronously (a pooler forwards it later still), so one that
 * arrives after its statement ended would cancel whatever statement the pool's next user runs on that session.
 */
export function releaseClient(client: PoolClient, broken: boolean): void {
  client.release(broken || cancelSent.has(client));
}

/**
 * Runs `run` on `client`; when `signal` aborts meanwhile, the server cancels the statement (the protocol's
 * CancelRequest, cancelRequestOf), so it stops at once, even in a lock wait, instead of at its timeout. It returns
 * once that cancel has been handled, and the client must then be released with releaseClient, which discards it: a
 * cancel the server (or a pooler) acts on late could otherwise hit the client's next statement. Best effort: a cancel
 * that cannot be sent leaves the statement to its timeouts (lock_timeout, statement_timeout).
 */
export async function cancelledOnAbort<T>(
  client: PoolClient,
  signal: AbortSignal | undefined,
  run: () => Promise<T>
): Promise<T> {
  if (!signal) return run();
  signal.throwIfAborted();
  const request = cancelRequestOf(client);
  let cancelling: Promise<void> = Promise.resolve();
  const cancel = (): void => {
    if (request === null) return;
    cancelSent.add(client);
    cancelling = sendCancelRequest(request);
  };
  signal.addEventListener('abort', cancel, { once: true });
  try {
    return await run();
  } finally {
    signal.removeEventListener('abort', cancel);
    await cancelling;
  }
}

/** Where and for which session a CancelRequest goes: the key the server (or the pooler) gave this connection. */
interface CancelRequest {
  host: string;
  port: number;
  processID: number;
  secretKey: number;
}

/**
 * The CancelRequest for `client`'s session, or null when it has no key (not connected). Not pg_cancel_backend on its
 * processID: behind PgBouncer that is the pooler's own id, not a server pid, so the cancel did nothing and a stopping
 * worker waited out the lock; PgBouncer forwards a CancelRequest to the server session it gave the client. It needs
 * no privilege either (the SQL tools' role may not signal backends).
 */
function cancelRequestOf(client: PoolClient): CancelRequest | null {
  const { processID, secretKey, host, port } = client as PoolClient & Partial<Record<string, unknown>>;
  if (typeof processID !== 'number' || typeof secretKey !== 'number') return null;
  if (typeof host !== 'string' || typeof port !== 'number') return null;
  return { host, port, processID, secretKey };
}

/** How long a CancelRequest may take to be handled (the server closes its connection once it has). */
const CANCEL_REQUEST_TIMEOUT_MS = 5_000;

/** The protocol's CancelRequest code (1234 << 16 | 5678). */
const CANCEL_REQUEST_CODE = 80_877_102;

/** Sends `request` on a connection of its own and waits until the server has closed it; never rejects. */
function sendCancelRequest(request: CancelRequest): Promise<void> {
  const packet = Buffer.alloc(16);
  packet.writeInt32BE(16, 0);
  packet.writeInt32BE(CANCEL_REQUEST_CODE, 4);
  packet.writeInt32BE(request.processID, 8);
  packet.writeInt32BE(request.secretKey, 12);
  return new Promise((resolve) => {
    // A host that is a directory is a Unix socket's, as pg connects to it.
    const socket = request.host.startsWith('/')
      ? connect(`${request.host}/.s.PGSQL.${request.port}`)
      : connect(request.port, request.host);
    const done = (): void => {
      socket.destroy();
      resolve();
    };
    socket.setTimeout(CANCEL_REQUEST_TIMEOUT_MS, done);
    // Written, not ended: the server closes it once handled (PgBouncer 1.18 crashed on a client's early FIN there).
    socket.once('connect', () => socket.write(packet));
    // Best effort: the statement's own timeouts end it.
    socket.once('error', done);
    socket.once('close', done);
  });
}
