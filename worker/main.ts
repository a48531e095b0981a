import { NamespaceNotFoundError } from '@temporalio/client';
import type { NativeConnection, Worker, WorkerOptions } from '@temporalio/worker';
import type { Env } from '../config/env';
import type { TemporalConnectionSettings } from '../config/temporal-connection';
import { createActivities } from '../activities';
import { unsetToolVariables, unsetToolVariableWarning } from '../core/mcp/tool-env';
import type { TaskTable } from '../core/tasks/registry';
import { silentLogger, type Logger } from '../observability/logger';
import { createWorkerMetrics, type WorkerMetrics } from '../observability/metrics';
import { cachedFor, databaseReadiness, readinessCacheMs, temporalReadiness } from '../observability/dependency-checks';
import { metricsText } from '../observability/probe-server';
import {
  PREREQUISITE_CACHE_MS,
  readinessWithPrerequisites,
  startPrerequisiteMonitor,
  type PrerequisiteMonitor,
} from '../observability/prerequisites';
import { workerInstrumentation } from '../observability/worker-options';
import { withoutFailureText } from '../observability/failure-outline';
import type { WorkflowSource } from './bundle';
import { buildWorkerDeps, type WorkerDeps } from './deps';
import { bindWorkerProbe, type ProbeAddress, type ProbeHandlers, type WorkerProbe } from './listeners';
import { TURN_WORKFLOW_TYPE } from '../workflows/turn-type';
import { databaseAddress } from '../db/address';
import { bindOwnDeployment, deploymentOf, type DeploymentMismatchError } from '../db/deployment';
import { deploymentWatch, type DeploymentWatch } from './deployment-watch';
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
  /** Its engine pool's readiness (`select 1` on it): what `convengine start`'s /readyz reports as `workerDatabase`. */
  databaseReadiness(): Promise<string>;
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

/** Binds its probe, connects, wires the activity dependencies and runs a turn worker until shutdown. */
export async function runTurnWorker(run: TurnWorkerRun): Promise<RunningWorker> {
  const observability = {
    logger: run.logger ?? silentLogger(),
    metrics: run.metrics ?? createWorkerMetrics({ llmTimeoutMs: run.env.LLM_TIMEOUT_MS }),
  };
  // First: a taken probe port fails the start before anything is connected (worker/listeners.ts).
  const probe = await boundProbe(run.probe, observability.logger);
  const opened = await openWorkerResources(run, probe, observability);
  await warnOfUnsetToolVariables(opened.wired.configStore, run.toolEnv, observability.logger);
  const state: WorkerState = { worker: null, starting: 'starting' };
  probe?.serve(workerProbeHandlers(run, opened, state, observability.metrics));
  const worker = await startWhenNamespaceExists(run, opened.connection, state, observability)
    .then(() => buildTurnWorker(run, opened, observability))
    // A namespace that does not exist (setup-temporal not run) fails here: the caller may go on (a test, a retry).
    .catch(closingOnError(opened.close));
  state.worker = worker;
  // The type the API starts: an operator comparing builds in a mixed deploy reads it here (docs/operations.md).
  // The database too: a worker given another deployment's DATABASE_URL is found by this line.
  const { TEMPORAL_TASK_QUEUE: taskQueue, TEMPORAL_NAMESPACE: namespace } = run.env;
  const database = databaseAddress(run.databaseUrl);
  observability.logger.info(
    { taskQueue, namespace, database, workflowType: TURN_WORKFLOW_TYPE, identity: worker.options.identity },
    `worker polls ${taskQueue} in namespace ${namespace}, writes to the database at ${database}, and runs ` +
      `${TURN_WORKFLOW_TYPE}, the turn type this build's API starts`
  );
  const watch = run.bindDeployment
    ? deploymentWatch(opened.prerequisites, run.prerequisiteCacheMs ?? PREREQUISITE_CACHE_MS, observability.logger)
    : undefined;
  return {
    ...runningWorker(worker, opened.close, probe?.url ?? null, watch),
    databaseReadiness: () => databaseReadiness(opened.wired.deps.db),
  };
}

/**
 * One warning per CONVENGINE_TOOL_* variable the served config's HTTP tools read and the tool environment leaves
 * unset (core/mcp/tool-env.ts): their calls fail until it is set, and the start is where an operator looks. No config
 * yet (empty, refused, not migrated): nothing to say here, readiness says that.
 */
async function warnOfUnsetToolVariables(
  config: WorkerDeps['configStore'],
  toolEnv: TurnWorkerRun['toolEnv'],
  logger: Logger
): Promise<void> {
  const rows = await config.current().then(
    (snapshot) => snapshot.rows,
    () => null
  );
  for (const unset of rows ? unsetToolVariables(rows, toolEnv) : []) {
    logger.warn({ variable: unset.variable, tools: unset.tools }, unsetToolVariableWarning(unset));
  }
}

interface WorkerObservability {
  logger: Logger;
  metrics: WorkerMetrics;
}

/** What a turn worker holds open while it runs, and how all of it is closed, in order. */
interface WorkerResources {
  wired: WorkerDeps;
  connection: NativeConnection;
  prerequisites: PrerequisiteMonitor;
  workflows: WorkflowSource;
  /** The probe, the connection when it is the worker's own, the dependencies. */
  close(): Promise<void>;
}

/** `run.probe` listening: bound here at its address, or as the command bound it at its start. */
async function boundProbe(probe: TurnWorkerRun['probe'], logger: Logger): Promise<WorkerProbe | null> {
  if (probe === undefined) return null;
  return 'serve' in probe ? probe : bindWorkerProbe(probe, logger);
}

/**
 * The activity dependencies, the connection, the prerequisite monitor (it logs a missing migration or search
 * attribute now; /readyz reports it until fixed) and the workflow source. A failure closes what was opened.
 */
async function openWorkerResources(
  run: TurnWorkerRun,
  probe: WorkerProbe | null,
  observability: WorkerObservability
): Promise<WorkerResources> {
  const closeProbe = async () => probe?.close();
  const wired = await buildWorkerDeps(run.env, {
    databaseUrl: run.databaseUrl,
    toolEnv: run.toolEnv,
    ...(run.tasks ? { tasks: run.tasks } : {}),
    observability,
  }).catch(closingOnError(closeProbe));
  const deployment = run.bindDeployment ? deploymentOf(run.env) : undefined;
  // Before Temporal: a worker on another deployment's database must not poll at all.
  if (deployment)
    await bindOwnDeployment(wired.deps.db.$client, deployment).catch(closingOnError(closeProbe, () => wired.close()));
  const owned = run.connection === undefined;
  const connection =
    run.connection ??
    (await connectWorker(run.temporal, run.env.TEMPORAL_GRPC_COMPRESSION).catch(
      closingOnError(closeProbe, () => wired.close())
    ));
  const close = async () => {
    await closeProbe();
    if (owned) await connection.close();
    await wired.close();
  };
  const prerequisites = await startPrerequisiteMonitor({
    db: wired.deps.db,
    config: wired.configStore,
    temporal: connection,
    namespace: run.env.TEMPORAL_NAMESPACE,
    tools: wired.toolsLogin,
    ...(deployment ? { deployment } : {}),
    logger: observability.logger,
    ...(run.prerequisiteCacheMs !== undefined ? { cacheMs: run.prerequisiteCacheMs } : {}),
  }).catch(closingOnError(close));
  // From sources, webpack would run on every start: the bundle cached for this source state instead.
  const workflows = await runnableWorkflowSource(run.env).catch(closingOnError(close));
  return { wired, connection, prerequisites, workflows, close };
}

function buildTurnWorker(
  run: TurnWorkerRun,
  opened: WorkerResources,
  observability: WorkerObservability
): Promise<Worker> {
  const sealed = withoutFailureText(run.env);
  return createTurnWorker({
    connection: opened.connection,
    namespace: run.env.TEMPORAL_NAMESPACE,
    taskQueue: run.env.TEMPORAL_TASK_QUEUE,
    activities: createActivities(opened.wired.deps),
    dataConverter: opened.wired.dataConverter,
    workflows: opened.workflows,
    sealFailureText: sealed,
    tuning: {
      ...workerInstrumentation({ ...observability, withoutFailureText: sealed }, 'bundle'),
      ...workerShutdownOptions(run.env.WORKER_SHUTDOWN_GRACE_MS),
      ...run.tuning,
    },
  });
}

/** A built worker, run until it stops, then everything closed. */
function runningWorker(
  worker: Worker,
  closeAll: () => Promise<void>,
  probeUrl: string | null,
  watch?: DeploymentWatch
): Omit<RunningWorker, 'databaseReadiness'> {
  const requestStop = (): boolean => {
    if (worker.getState() !== 'RUNNING') return false;
    worker.shutdown();
    return true;
  };
  // A worker stopped by its database's rebinding ends with the mismatch, naming both deployments.
  let mismatched: DeploymentMismatchError | null = null;
  const endWatch = watch?.((mismatch) => {
    mismatched = mismatch;
    requestStop();
  });
  const done = worker
    .run()
    .then(() => {
      if (mismatched) throw mismatched;
    })
    .finally(async () => {
      endWatch?.();
      await closeAll();
    });
  return {
    done,
    probeUrl,
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

/**
 * With `run.namespaceWait`, waits until the namespace exists; rejects when the wait is stopped first. While it
 * waits, /readyz's `worker` check says so and convengine_worker_namespace_waiting is 1. Without it, a missing
 * namespace rejects at once with NamespaceNotFoundError.
 */
async function startWhenNamespaceExists(
  run: TurnWorkerRun,
  connection: NativeConnection,
  state: WorkerState,
  { logger, metrics }: WorkerObservability
): Promise<void> {
  const namespace = run.env.TEMPORAL_NAMESPACE;
  if (!run.namespaceWait) {
    // Asked before the worker is built: the SDK's core, once a worker exists, logs its own raw gRPC status dump
    // ("Status { code: NotFound, … details: b\"…\" }") for the missing namespace before the start fails.
    if (!(await namespaceExists(connection, namespace)())) throw new NamespaceNotFoundError(namespace);
    return;
  }
  const exists = await untilNamespaceExists({
    namespace,
    exists: namespaceExists(connection, namespace),
    stop: run.namespaceWait,
    logger,
    onMissing: () => {
      state.starting = WAITING_FOR_NAMESPACE;
      metrics.namespaceWaiting.set(1);
    },
  }).finally(() => metrics.namespaceWaiting.set(0));
  if (!exists) throw new StoppedBeforeNamespaceError(namespace);
  state.starting = 'starting';
}

/** The worker once built; until then, what its start is doing (/readyz's `worker` check). */
interface WorkerState {
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
