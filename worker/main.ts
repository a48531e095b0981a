import type { NativeConnection, Worker, WorkerOptions } from '@temporalio/worker';
import type { Env } from '../config/env';
import type { TemporalConnectionSettings } from '../config/temporal-connection';
import { createActivities } from '../activities';
import type { TaskTable } from '../core/tasks/registry';
import type { Database } from '../db/pool';
import { silentLogger, type Logger } from '../observability/logger';
import { createWorkerMetrics, type WorkerMetrics } from '../observability/metrics';
import { databaseReadiness, temporalReadiness } from '../observability/dependency-checks';
import { metricsText, startProbeServer, type ProbeServer } from '../observability/probe-server';
import {
  readinessWithPrerequisites,
  startPrerequisiteMonitor,
  type PrerequisiteMonitor,
} from '../observability/prerequisites';
import { workerInstrumentation } from '../observability/worker-options';
import { buildWorkerDeps } from './deps';
import { TURN_WORKFLOW_TYPE } from '../workflows/turn-type';
import { runnableWorkflowSource } from './bundle-cache';
import { connectWorker, createTurnWorker, workerShutdownOptions } from './worker';
import {
  namespaceExists,
  StoppedBeforeNamespaceError,
  untilNamespaceExists,
  WAITING_FOR_NAMESPACE,
} from './namespace-wait';

export interface RunningWorker {
  /** Resolves when the worker has stopped (after shutdown() or a fatal error), connections closed. */
  done: Promise<void>;
  /** The /metrics, /healthz and /readyz server, when one was asked for. */
  probeUrl: string | null;
  /**
   * Starts the stop a SIGTERM starts: tasks in flight drain (workerShutdownOptions); false when the worker is not
   * running any more.
   */
  requestStop(): boolean;
  shutdown(): Promise<void>;
}

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
   * Serve /metrics, /healthz and /readyz here (port 0: any free port). `orAnyPort`: when the port is
   * taken (a second worker on one host with the default port), serve on a free one and log where.
   */
  probe?: { host: string; port: number; orAnyPort?: boolean };
  /** How long a migration or search-attribute check answers /readyz (default PREREQUISITE_CACHE_MS). */
  prerequisiteCacheMs?: number;
  /**
   * Given, a namespace that does not exist yet is waited for (worker/namespace-wait.ts: logged, /readyz not ready)
   * until it does, and aborting this signal meanwhile ends the start with StoppedBeforeNamespaceError. Without it a
   * missing namespace fails the start at once (`convengine worker --fail-without-namespace`; `convengine start`, whose
   * servers have it).
   */
  namespaceWait?: AbortSignal;
}

/** Connects, wires the activity dependencies and runs a turn worker until shutdown. */
export async function runTurnWorker(run: TurnWorkerRun): Promise<RunningWorker> {
  const logger = run.logger ?? silentLogger();
  const metrics = run.metrics ?? createWorkerMetrics();
  const wired = await buildWorkerDeps(run.env, {
    databaseUrl: run.databaseUrl,
    toolEnv: run.toolEnv,
    ...(run.tasks ? { tasks: run.tasks } : {}),
    observability: { logger, metrics },
  });
  const owned = run.connection === undefined;
  const connection = run.connection ?? (await connectWorker(run.temporal, run.env.TEMPORAL_GRPC_COMPRESSION));
  const release = () => (owned ? connection.close() : Promise.resolve());
  // Logs a missing migration or search attribute now; /readyz reports it until fixed.
  const prerequisites = await startPrerequisiteMonitor({
    db: wired.deps.db,
    config: wired.configStore,
    temporal: connection,
    namespace: run.env.TEMPORAL_NAMESPACE,
    tools: wired.toolsLogin,
    logger,
    ...(run.prerequisiteCacheMs !== undefined ? { cacheMs: run.prerequisiteCacheMs } : {}),
  });
  // From sources, webpack would run on every start: the bundle cached for this source state instead.
  const workflows = await runnableWorkflowSource(run.env);
  const state: WorkerState = { worker: null, starting: 'starting' };
  const targets = { state, connection, db: wired.deps.db, prerequisites, logger, metrics };
  const probe = run.probe
    ? await startWorkerProbe(run, targets).catch(closingOnError(release, () => wired.close()))
    : null;
  const closeAll = async () => {
    await probe?.close();
    await release();
    await wired.close();
  };
  const worker = await startWhenNamespaceExists(run, connection, state, logger)
    .then(() =>
      createTurnWorker({
        connection,
        namespace: run.env.TEMPORAL_NAMESPACE,
        taskQueue: run.env.TEMPORAL_TASK_QUEUE,
        activities: createActivities(wired.deps),
        dataConverter: wired.dataConverter,
        workflows,
        tuning: {
          ...workerInstrumentation({ logger, metrics }, 'bundle'),
          ...workerShutdownOptions(run.env.WORKER_SHUTDOWN_GRACE_MS),
          ...run.tuning,
        },
      })
    )
    // A namespace that does not exist (setup-temporal not run) fails here: the caller may go on (a test, a retry).
    .catch(closingOnError(closeAll));
  state.worker = worker;
  // The type the API starts: an operator comparing builds in a mixed deploy reads it here (docs/operations.md).
  logger.info(
    { taskQueue: run.env.TEMPORAL_TASK_QUEUE, workflowType: TURN_WORKFLOW_TYPE, identity: worker.options.identity },
    `worker polls ${run.env.TEMPORAL_TASK_QUEUE} and runs ${TURN_WORKFLOW_TYPE}, the turn type this build's API starts`
  );
  const done = worker.run().finally(closeAll);
  const requestStop = (): boolean => {
    if (worker.getState() !== 'RUNNING') return false;
    worker.shutdown();
    return true;
  };
  return {
    done,
    probeUrl: probe?.url ?? null,
    requestStop,
    async shutdown() {
      requestStop();
      await done.catch(() => undefined);
    },
  };
}

/** A failed start's handler: closes what was opened (in order), then rethrows. */
function closingOnError(...close: (() => Promise<unknown>)[]): (err: unknown) => Promise<never> {
  return async (err) => {
    for (const step of close) await step();
    throw err;
  };
}

/** With `run.namespaceWait`, waits until the namespace exists; rejects when the wait is stopped first. */
async function startWhenNamespaceExists(
  run: TurnWorkerRun,
  connection: NativeConnection,
  state: WorkerState,
  logger: Logger
): Promise<void> {
  if (!run.namespaceWait) return;
  const namespace = run.env.TEMPORAL_NAMESPACE;
  const exists = await untilNamespaceExists({
    namespace,
    exists: namespaceExists(connection, namespace),
    stop: run.namespaceWait,
    logger,
    onMissing: () => (state.starting = WAITING_FOR_NAMESPACE),
  });
  if (!exists) throw new StoppedBeforeNamespaceError(namespace);
  state.starting = 'starting';
}

/** The worker once built; until then, what its start is doing (/readyz's `worker` check). */
interface WorkerState {
  worker: Worker | null;
  starting: string;
}

interface ProbeTargets {
  state: WorkerState;
  connection: NativeConnection;
  db: Database;
  prerequisites: PrerequisiteMonitor;
  logger: Logger;
  metrics: WorkerMetrics;
}

function workerCheck({ worker, starting }: WorkerState): string {
  if (!worker) return starting;
  return worker.getState() === 'RUNNING' ? 'ok' : worker.getState().toLowerCase();
}

/** The worker's /metrics (its registry plus the SDK's exporter) and /readyz: database, Temporal, tools login, worker state. */
async function startWorkerProbe(run: TurnWorkerRun, targets: ProbeTargets): Promise<ProbeServer> {
  const { host = '127.0.0.1', port = 0, orAnyPort = false } = run.probe ?? {};
  const start = (on: number) => startWorkerProbeOn(run, targets, host, on);
  return start(port).catch((err: unknown) => {
    if (!orAnyPort || port === 0 || (err as { code?: string }).code !== 'EADDRINUSE') throw err;
    targets.logger.warn({ port }, `port ${port} is taken: /metrics, /healthz and /readyz go to a free port`);
    return start(0);
  });
}

function startWorkerProbeOn(
  run: TurnWorkerRun,
  targets: ProbeTargets,
  host: string,
  port: number
): Promise<ProbeServer> {
  const { state, connection, db, prerequisites } = targets;
  return startProbeServer({
    host,
    port,
    logger: targets.logger,
    metrics: () => metricsText(targets.metrics.registry, run.env.TEMPORAL_SDK_METRICS_ADDRESS),
    readiness: async () => {
      const [database, temporal, required] = await Promise.all([
        databaseReadiness(db),
        temporalReadiness(connection, () => connection.workflowService.getSystemInfo({})),
        prerequisites.status(),
      ]);
      const checks = {
        ...readinessWithPrerequisites({ database, temporal }, required),
        // The worker runs the SQL tools: a refused tools login fails each of their calls.
        ...(required.tools !== undefined ? { tools: required.tools } : {}),
        worker: workerCheck(state),
      };
      return { checks, warnings: required.warnings };
    },
  });
}
