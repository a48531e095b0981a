import type { Server } from 'node:net';
import type { LimitMetrics } from './concurrency-limit';

/** The convengine_api_limit_* label of the connections a full API closes as they are accepted. */
export const CONNECTIONS_LIMIT = 'connections';

/** How often, at most, a full API says in its log that it closes connections: a burst would otherwise flood it. */
const DROP_LOG_INTERVAL_MS = 60_000;

export interface ConnectionCap {
  /** At most this many HTTP connections at once (API_MAX_CONNECTIONS, or from the open-files limit). */
  max: number;
  metrics?: LimitMetrics;
  warn?: (fields: object, line: string) => void;
}

/**
 * Bounds the connections `server` holds at once: Node closes one more as soon as it is accepted, before it reads a
 * byte, so its client sees a closed connection to retry, and the process keeps the descriptors its pools, Temporal
 * connections and files need. Without the bound a burst past the open-files limit made accepts fail with EMFILE
 * (config/open-files.ts), clients got resets, and the worker of `convengine start` could abort the process.
 */
export function capConnections(server: Server, cap: ConnectionCap): void {
  server.maxConnections = cap.max;
  // Declared at 0, so dashboards and alerts find it before the first refusal.
  cap.metrics?.refused.inc({ limit: CONNECTIONS_LIMIT }, 0);
  let dropped = 0;
  let loggedAt = -Infinity;
  server.on('drop', () => {
    cap.metrics?.refused.inc({ limit: CONNECTIONS_LIMIT });
    dropped += 1;
    const now = performance.now();
    if (!cap.warn || now - loggedAt < DROP_LOG_INTERVAL_MS) return;
    cap.warn(
      { maxConnections: cap.max, dropped },
      `closed a connection as it was accepted: this API holds ${cap.max} at once (API_MAX_CONNECTIONS; ` +
        'docs/operations.md "File descriptors"); further ones are counted in convengine_api_limit_refused_total'
    );
    loggedAt = now;
    dropped = 0;
  });
}
