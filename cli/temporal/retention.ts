import type { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';

/**
 * The shortest namespace retention the real server (1.29.1, as `temporal server start-dev` runs it) accepts: its
 * UpdateNamespace refuses 59 minutes (`A valid retention period is not set on request`) and takes an hour, measured.
 */
export const REAL_SERVER_MIN_RETENTION_MS = 60 * 60 * 1000;

export interface AppliedRetention {
  /** What the namespace now keeps closed runs for. */
  appliedMs: number;
  /** Said at start when the setting asked for less than the server keeps; null when it got what it asked for. */
  warning: string | null;
}

/** `1 hour`, `10 minutes`, `2 days`: retentions are whole minutes at least (DEVSERVER_RETENTION_MS ≥ 60000). */
export function describeRetention(ms: number): string {
  const [unit, size] = ms % 86_400_000 === 0 ? ['day', 86_400_000] : ms % 3_600_000 === 0 ? ['hour', 3_600_000] : [];
  if (unit && size) return `${ms / size} ${unit}${ms === size ? '' : 's'}`;
  return ms % 60_000 === 0 ? `${ms / 60_000} minutes` : `${ms / 1000} seconds`;
}

/**
 * Sets the retention of `namespace` on a real server `start` runs itself to DEVSERVER_RETENTION_MS, as the embedded dev
 * server keeps closed runs: left at start-dev's day, its SQLite file grew with every turn of a day (183 MiB over 2,098
 * turns of a soak). A setting below the server's minimum gets the minimum, and a warning naming both.
 */
export async function applyNamespaceRetention(
  connection: Connection,
  namespace: string,
  requestedMs: number
): Promise<AppliedRetention> {
  const appliedMs = Math.max(requestedMs, REAL_SERVER_MIN_RETENTION_MS);
  await connection.workflowService.updateNamespace({
    namespace,
    config: { workflowExecutionRetentionTtl: msToTs(appliedMs) },
  });
  const warning =
    appliedMs === requestedMs
      ? null
      : `DEVSERVER_RETENTION_MS=${requestedMs} (${describeRetention(requestedMs)}) is below the real Temporal ` +
        `server's minimum namespace retention: namespace ${namespace} keeps closed turns for ` +
        `${describeRetention(appliedMs)} instead (or run --temporal=embedded for a shorter one)`;
  return { appliedMs, warning };
}
