import type { Worker } from '@temporalio/worker';
import type { WorkerMetrics } from '../observability/metrics';
import { cachedFor, databaseReadiness, readinessCacheMs, temporalReadiness } from '../observability/dependency-checks';
import { metricsText } from '../observability/probe-server';
import { readinessWithPrerequisites } from '../observability/prerequisites';
import type { ProbeHandlers } from './listeners';
import type { WorkerResources } from './resources';
import type { TurnWorkerRun } from './turn-worker-run';

/** The worker once built; until then, what its start is doing (/readyz's `worker` check). */
export interface WorkerState {
  worker: Worker | null;
  starting: string;
}

function workerCheck({ worker, starting }: WorkerState): string {
  if (!worker) return starting;
  return worker.getState() === 'RUNNING' ? 'ok' : worker.getState().toLowerCase();
}

/**
 * The worker's /metrics (its registry plus the SDK's exporter) and /readyz: database, Temporal, tools login, worker
 * state. One readiness answer serves the probes of the next second, as the API's does: a probe asks the database and
 * Temporal at most once a second, however often it is sent.
 */
export function workerProbeHandlers(
  run: TurnWorkerRun,
  { connection, wired, prerequisites }: WorkerResources,
  state: WorkerState,
  metrics: WorkerMetrics
): ProbeHandlers {
  return {
    metrics: () => metricsText(metrics.registry, run.env.TEMPORAL_SDK_METRICS_ADDRESS),
    // As the API's: never longer than the prerequisite checks' own period, which a test may shorten.
    readiness: cachedFor(readinessCacheMs(run.prerequisiteCacheMs), async () => {
      const [database, temporal, required] = await Promise.all([
        databaseReadiness(wired.deps.db),
        temporalReadiness(connection, () => connection.workflowService.getSystemInfo({})),
        prerequisites.status(),
      ]);
      const checks = {
        ...readinessWithPrerequisites({ database, temporal }, required),
        // The worker runs the SQL tools: a refused tools login fails each of their calls.
        ...(required.tools !== undefined ? { tools: required.tools } : {}),
        ...(required.deployment !== undefined ? { deployment: required.deployment } : {}),
        worker: workerCheck(state),
      };
      return { checks, warnings: required.warnings };
    }),
  };
}
