import type { ConnectionLike } from '@temporalio/client';
import type { Env } from '../config/env';
import { isNamespaceNotFound } from '../config/temporal-client';
import type { Database } from '../db/pool';
import { cachedFor, databaseReadiness, temporalReadiness } from '../observability/dependency-checks';
export { READINESS_CACHE_MS } from '../observability/dependency-checks';
import { PREREQUISITE_MESSAGES } from '../observability/prerequisite-problems';
import { readinessWithPrerequisites, type PrerequisiteMonitor } from '../observability/prerequisites';
import { temporalClock, type TemporalClock } from '../observability/temporal-clock';
import { readTurnPollers, turnPollersCheck, type TurnPollersCheck } from '../observability/turn-pollers';
import type { ReadinessProbe } from './ports';

/** What the API's readiness asks: its database, its Temporal connection and the prerequisite checks. */
export interface ReadinessDependencies {
  db: Pick<Database, 'execute'>;
  connection: Pick<ConnectionLike, 'workflowService' | 'withDeadline'>;
  env: Pick<Env, 'TEMPORAL_NAMESPACE' | 'TEMPORAL_TASK_QUEUE'>;
  prerequisites: PrerequisiteMonitor;
  /**
   * `convengine start`: the readiness of the turn worker's own engine pool in this process (its sessions differ from
   * the API's: WORKER_DB_LOCK_TIMEOUT_MS), reported as `workerDatabase`, so a pool that cannot connect (a pooler
   * refusing its sessions) is not ready while the API's own pool is.
   */
  workerDatabase?: () => Promise<string>;
  /** Temporal's clock as the pollers prove it (the process's own by default, which the decisions' gate shares). */
  clock?: TemporalClock;
}

/** The API's /readyz: one probe of every dependency serves the calls of the next `cacheMs`. */
export function apiReadiness(dependencies: ReadinessDependencies, cacheMs: number): ReadinessProbe {
  const { db, connection, env, prerequisites, clock = temporalClock } = dependencies;
  const namespace = env.TEMPORAL_NAMESPACE;
  // The reader a decision's gate uses too (api/turns/turn-worker.ts), so both count the same workers.
  const pollers = (): Promise<TurnPollersCheck> =>
    readTurnPollers(connection, namespace, env.TEMPORAL_TASK_QUEUE, clock).then(turnPollersCheck, (err: unknown) => ({
      // No worker polls a namespace that does not exist; the temporal check names the fix.
      check: isNamespaceNotFound(err) ? 'no worker polling' : 'unreachable',
    }));
  return {
    // Open to anyone (api/auth.ts): however often it is asked, the dependencies are asked at most once per period.
    check: cachedFor(cacheMs, async () => {
      const [database, temporalState, worker, required, workerDatabase] = await Promise.all([
        databaseReadiness(db),
        temporalReadiness(connection, () => connection.workflowService.describeNamespace({ namespace })),
        pollers(),
        prerequisites.status(),
        dependencies.workerDatabase?.(),
      ]);
      const checks = {
        ...readinessWithPrerequisites({ database, temporal: temporalState }, required),
        ...(workerDatabase !== undefined ? { workerDatabase } : {}),
        ...(required.deployment !== undefined ? { deployment: required.deployment } : {}),
        worker: worker.check,
      };
      const skew = clock.skewWarning();
      const warnings = {
        ...required.warnings,
        ...(worker.warning !== undefined ? { worker: worker.warning } : {}),
        ...(skew !== undefined ? { clock: skew } : {}),
      };
      return { checks, warnings };
    }),
    async turnBlocker() {
      const { problem } = await prerequisites.status();
      return problem === null ? null : { code: problem, message: PREREQUISITE_MESSAGES[problem] };
    },
    async deploymentBlocker() {
      const code = 'DEPLOYMENT_MISMATCH';
      return (await prerequisites.deploymentMismatch()) ? { code, message: PREREQUISITE_MESSAGES[code] } : null;
    },
  };
}
