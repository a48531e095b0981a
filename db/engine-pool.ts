import { Pool, type PoolClient, type PoolConfig } from 'pg';
import { markDatabaseBusy, type PoolStats } from './connection-loss';
import type { SessionClient } from './session-client';

/** pg-pool's error when no connection of a full pool was free within connectionTimeoutMillis. */
const POOL_WAIT_TIMEOUT = 'timeout exceeded when trying to connect';

type ConnectCallback = (
  err: Error | undefined,
  client: PoolClient | undefined,
  done: (release?: Error | boolean) => void
) => void;

/**
 * A pool that knows when its database last answered (a connection opened, a client given back without an error). A
 * wait for a connection that timed out meanwhile was on a busy pool, not on an unreachable database: pg-pool says the
 * same words when every connection runs statements the server answers and when every one is still trying to reach a
 * server that drops packets.
 */
export class EnginePool extends Pool {
  lastAnswerAt = -Infinity;

  constructor(config: PoolConfig) {
    super(config);
    const answered = () => (this.lastAnswerAt = performance.now());
    this.on('connect', answered);
    this.on('release', (err: unknown) => err || answered());
    // Told before the session's setup (onConnect: pinSession's statement), which its query_timeout ends too: pg-pool
    // emits 'connect' only once onConnect has finished, and a timeout there went unlogged and unmarked.
    const { onConnect } = this.options;
    this.options.onConnect = (client) => {
      this.watchQueryTimeouts(client as unknown as SessionClient);
      return onConnect?.(client);
    };
  }

  /**
   * A statement that timed out while the pool's others answered waited on a busy server (a lock, a stalled backend),
   * not on an unreachable one. 'query-timeout' on the pool, with the bound that statement had (its own, a SQL tool's
   * query: queryTimeoutPast; else the pool's): for the owner's log line.
   */
  private watchQueryTimeouts(client: SessionClient): void {
    client.onQueryTimeout = (err, since, ownTimeoutMs) => {
      markBusySince(this, err, since);
      this.emit('query-timeout', err, ownTimeoutMs ?? (this.options as { query_timeout?: number }).query_timeout);
    };
  }

  override connect(): Promise<PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<PoolClient> | void {
    const since = performance.now();
    const classify = (err: Error): Error => (err.message === POOL_WAIT_TIMEOUT ? markBusySince(this, err, since) : err);
    if (!callback) return super.connect().then(releasingTimedOut, (err: Error) => Promise.reject(classify(err)));
    super.connect((err, client, done) => {
      if (!client) return callback(err && classify(err), client, done);
      const releasing = releasingTimedOut(client);
      callback(err, releasing, releasing.release);
    });
  }
}

/**
 * `client`, whose release hands it back with the error of a statement that timed out on it, whatever its user passes
 * (a drizzle transaction passes nothing): pg-pool destroys a client released with an error instead of reusing it. A
 * timeout releases it at once (SessionClient, endTimedOut); its user's own release then does nothing, where pg-pool
 * would throw for a second one.
 */
function releasingTimedOut(client: PoolClient): PoolClient {
  const session = client as unknown as SessionClient;
  const release = client.release.bind(client);
  let released = false;
  const releaseOnce = (err?: Error | boolean) => {
    if (released) return;
    released = true;
    session.releaseTimedOut = null;
    release(err);
  };
  session.releaseTimedOut = releaseOnce;
  client.release = (err?: Error | boolean) => releaseOnce(err || session.timedOutBy || undefined);
  return client;
}

/** How full `pool` is now. */
export function poolStats(pool: Pool): PoolStats {
  const { totalCount: total, idleCount: idle, waitingCount: waiting } = pool;
  return { total, idle, waiting, max: pool.options.max ?? 10 };
}

/**
 * Marks `err`, a statement's wait that ran out, as one on a busy database when `pool`'s database answered another
 * statement since `since` (performance.now()); returns it. Unmarked, it reads as the database unreachable.
 */
export function markBusySince<E>(pool: Pool, err: E, since: number): E {
  return pool instanceof EnginePool && pool.lastAnswerAt >= since ? markDatabaseBusy(err, poolStats(pool)) : err;
}
