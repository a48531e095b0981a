import { Client } from 'pg';
import { markSessionRefusal } from './connection-loss';
import { sqlStateOf } from './error-text';

/**
 * A client that marks what failed while it opened its session (a refusal, not a statement's failure), so
 * isDatabaseUnreachable knows it without reading the server's localised severity.
 */
export class SessionClient extends Client {
  /**
   * Told of a statement its query_timeout ended, when it was sent (performance.now()) and the timeout the statement
   * set for itself (queryTimeoutPast), if any: set by its pool.
   */
  onQueryTimeout?: (err: Error, since: number, ownTimeoutMs: number | undefined) => void;
  /**
   * The timeout that ended this session (endTimedOut): its pool releases it with this error, to destroy it, and every
   * later statement on it fails with it.
   */
  timedOutBy: Error | null = null;
  /** Hands this client, checked out, back to its pool at once (releasingTimedOut): set while it is checked out. */
  releaseTimedOut: ((err: Error) => void) | null = null;
  /** The ErrorResponse with which the server ended this session between statements (sessionEndOf). */
  private endedBy: Error | null = null;

  constructor(config?: ConstructorParameters<typeof Client>[0]) {
    super(config);
    this.on('error', (err: Error) => {
      if (sqlStateOf(err) !== null) this.endedBy ??= err;
    });
  }

  /**
   * pg's query, whose failure on a session the server ended between statements carries the server's reason as its
   * cause: pg emits that FATAL ("terminating connection due to administrator command", an idle_session_timeout) as
   * an 'error' event on the client, and the next statement fails with only "Connection terminated unexpectedly".
   */
  override query(...args: unknown[]): never {
    const run = (super.query as (...a: unknown[]) => unknown).bind(this);
    const since = performance.now();
    // On a session a timeout ended, a later statement (a drizzle transaction's ROLLBACK) fails with the timeout's
    // error, not pg's "Client was closed": drizzle throws the ROLLBACK's error, and the timeout and its busy mark
    // (the API's 503 DATABASE_BUSY) were lost.
    const failed = (err: unknown): unknown =>
      this.timedOutBy ?? this.withSessionEnd(this.endTimedOut(err, since, ownQueryTimeout(args[0])));
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      const callback = last as (err: unknown, ...rest: unknown[]) => void;
      return run(...args.slice(0, -1), (err: unknown, ...rest: unknown[]) =>
        callback(err ? failed(err) : err, ...rest)
      ) as never;
    }
    const result = run(...args);
    if (!(result instanceof Promise)) return result as never;
    return result.catch((err: unknown) => Promise.reject(failed(err))) as never;
  }

  /**
   * A statement its query_timeout gave up on: pg answers the caller but leaves the statement running on this
   * connection, and the next statement queued behind it (a transaction's ROLLBACK, the next user of a client handed
   * back to the pool). The session is ended now (end() closes the socket under a statement in flight, and fails every
   * later statement at once), and handed back to its pool with the error at once, so the pool destroys it and opens a
   * fresh one, whether or not its user releases it (a drizzle transaction whose BEGIN failed never does, and a stopping
   * worker's pool.end() waited for it forever); onQueryTimeout tells the pool, which marks the error busy or not.
   */
  private endTimedOut(err: unknown, since: number, ownTimeoutMs: number | undefined): unknown {
    if (!(err instanceof Error) || err.message !== QUERY_TIMEOUT_MESSAGE) return err;
    this.timedOutBy ??= err;
    this.end(() => undefined);
    this.onQueryTimeout?.(err, since, ownTimeoutMs);
    this.releaseTimedOut?.(err);
    return err;
  }

  private withSessionEnd(err: unknown): unknown {
    if (this.endedBy === null || !(err instanceof Error) || err === this.endedBy || err.cause !== undefined) return err;
    err.cause = this.endedBy;
    return err;
  }

  override connect(): Promise<Client>;
  override connect(callback: (err: Error) => void): void;
  override connect(callback?: (err: Error) => void): Promise<Client> | void {
    if (!callback) return super.connect().catch((err: unknown) => Promise.reject(markSessionRefusal(err)));
    super.connect((err: Error) => callback(markSessionRefusal(err)));
  }
}

/** The query_timeout a statement's config sets for itself, which pg applies over its client's (Client.query). */
function ownQueryTimeout(query: unknown): number | undefined {
  const ms = typeof query === 'object' && query !== null ? (query as { query_timeout?: unknown }).query_timeout : null;
  return typeof ms === 'number' && ms > 0 ? ms : undefined;
}

/** pg's error for a statement that did not answer within its client's query_timeout. */
export const QUERY_TIMEOUT_MESSAGE = 'Query read timeout';
