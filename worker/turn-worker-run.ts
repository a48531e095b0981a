import type { NativeConnection, WorkerOptions } from '@temporalio/worker';
import type { Env } from '../config/env';
import type { TemporalConnectionSettings } from '../config/temporal-connection';
import type { TaskTable } from '../core/tasks/registry';
import type { Logger } from '../observability/logger';
import type { WorkerMetrics } from '../observability/metrics';
import type { ProbeAddress, WorkerProbe } from './listeners';

/** What runTurnWorker (worker/main.ts) is given: the settings, the connections and the options of one turn worker. */
export interface TurnWorkerRun {
  env: Env;
  databaseUrl: string;
  temporal: TemporalConnectionSettings;
  /**
   * A connection to share (`convengine start`: the API's client uses it too, for eager workflow
   * start); its owner closes it. Default: the worker connects to `temporal` and closes on stop.
   */
  connection?: NativeConnection;
  /** Environment HTTP tool rows may read (the command passes its process environment). */
  toolEnv: Readonly<Record<string, string | undefined>>;
  /**
   * Consumer task methods for SET_TASK rules and ce_pending_action rows (docs/config-reference.md#tasks).
   * The CLI's workers (`convengine start`, `convengine worker`) pass none.
   */
  tasks?: TaskTable;
  tuning?: Partial<WorkerOptions>;
  /** Step, LLM and tool log lines; default none (the CLI passes the process logger). */
  logger?: Logger;
  metrics?: WorkerMetrics;
  /**
   * Serve /metrics, /healthz and /readyz: at this address, bound before anything is connected, or on the probe a
   * command bound at its own start (bindWorkerListeners, worker/listeners.ts).
   */
  probe?: ProbeAddress | WorkerProbe;
  /** How long a migration or search-attribute check answers /readyz (default PREREQUISITE_CACHE_MS). */
  prerequisiteCacheMs?: number;
  /**
   * Given, a namespace that does not exist yet is waited for (worker/namespace-wait.ts: logged, /readyz not ready)
   * until it does, and aborting this signal meanwhile ends the start with StoppedBeforeNamespaceError. Without it a
   * missing namespace fails the start at once (`convengine worker --fail-without-namespace`; `convengine start`, whose
   * servers have it).
   */
  namespaceWait?: AbortSignal;
  /**
   * Bind the database to this worker's deployment (TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE) when it is unbound, fail
   * the start with DeploymentMismatchError, before connecting to Temporal, when it is bound to another, and check the
   * binding in /readyz (db/deployment.ts). The CLI's workers set it; tests that run many task queues on one database
   * leave it out.
   */
  bindDeployment?: boolean;
}

/** The logger and the metrics a turn worker reports to. */
export interface WorkerObservability {
  logger: Logger;
  metrics: WorkerMetrics;
}
