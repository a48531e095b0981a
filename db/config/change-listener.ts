import { Client, type Pool } from 'pg';
import type { Logger } from '../../observability/logger';
import type { DatabaseConfigStore } from './store';

/** The channel the config revision trigger notifies as a config write commits (migration 0025). */
export const CONFIG_CHANGED_CHANNEL = 'ce_config_changed';

/** How long a listener whose connection failed or was lost first waits to connect again; doubled per failure. */
export const RELISTEN_MS = 1_000;
/** The longest wait between two attempts while the database stays away. */
const RELISTEN_MAX_MS = 30_000;

export interface ConfigChangeListener {
  /** Resolves once the first LISTEN is in place (or has failed: then it keeps trying), so a later commit is heard. */
  readonly listening: Promise<void>;
  /** Resolves once the store has acted on the next notification: its check, and its reload if the revision moved. */
  nextReload(): Promise<void>;
  close(): Promise<void>;
}

export interface ConfigChangeListenerOptions {
  logger?: Pick<Logger, 'warn'>;
  /** The first wait before listening again (RELISTEN_MS). */
  relistenMs?: number;
}

/**
 * Has `store` check the config revision, and reload, as soon as a config write commits (`config apply`, a seed, an
 * SQL edit: the revision trigger notifies for each), on a connection of its own outside `pool` (LISTEN holds its
 * session). The store's own check at current() stays: it covers the time this connection is down, after which the
 * store checks once, as a write may have committed meanwhile.
 */
export function reloadOnConfigChange(
  store: Pick<DatabaseConfigStore, 'changed'>,
  pool: Pool,
  options: ConfigChangeListenerOptions = {}
): ConfigChangeListener {
  const waiting: (() => void)[] = [];
  const reload = (): void => {
    const settled = waiting.splice(0);
    void store
      .changed()
      .catch(() => undefined) // A reload that failed (the database gone): the store's next current() checks again.
      .finally(() => settled.forEach((resolve) => resolve()));
  };
  const connection = new ListenConnection(pool, reload, options);
  return {
    listening: connection.open(),
    nextReload: () => new Promise((resolve) => waiting.push(resolve)),
    close: () => connection.close(),
  };
}

/** One LISTEN session, opened again after a loss until closed. */
class ListenConnection {
  private client: Client | null = null;
  private retry: NodeJS.Timeout | null = null;
  private closed = false;
  /** Failed attempts since the last LISTEN that held: the next wait doubles with each, and only the first warns. */
  private failures = 0;

  constructor(
    private readonly pool: Pool,
    private readonly onNotified: () => void,
    private readonly options: ConfigChangeListenerOptions
  ) {}

  async open(): Promise<void> {
    if (this.closed) return;
    const client = new Client(this.pool.options);
    // While it connects, the failure reaches the catch below (its 'end' says only that it ended).
    client.on('error', () => undefined);
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${CONFIG_CHANGED_CHANNEL}`);
    } catch (err) {
      this.lost(client, err);
      return;
    }
    client.on('notification', () => this.onNotified());
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, null));
    this.failures = 0;
    // Not on the first connection only: a write may have committed while an earlier one was down.
    this.onNotified();
  }

  private lost(client: Client, err: unknown): void {
    if (this.client !== client) return;
    this.client = null;
    void client.end().catch(() => undefined);
    if (this.closed) return;
    const waitMs = Math.min((this.options.relistenMs ?? RELISTEN_MS) * 2 ** this.failures, RELISTEN_MAX_MS);
    if (this.failures === 0) {
      // Not instanceof Error: a socket's error may come from another realm (a test runner's).
      const message = (err as { message?: unknown } | null)?.message;
      const why = typeof message === 'string' ? message : 'the connection ended';
      this.options.logger?.warn(
        `config change listener: ${why}; listening again in ${waitMs} ms (turns check the config revision meanwhile)`
      );
    }
    this.failures += 1;
    this.retry = setTimeout(() => void this.open(), waitMs);
    this.retry.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}
