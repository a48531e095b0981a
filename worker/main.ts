import type { Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { unsetToolVariables, unsetToolVariableWarning } from '../core/mcp/tool-env';
import { silentLogger, type Logger } from '../observability/logger';
import { createWorkerMetrics } from '../observability/metrics';
import { databaseReadiness } from '../observability/dependency-checks';
import { PREREQUISITE_CACHE_MS } from '../observability/prerequisites';
import { workerInstrumentation } from '../observability/worker-options';
import { withoutFailureText } from '../observability/failure-outline';
import type { WorkerDeps } from './deps';
import { TURN_WORKFLOW_TYPE } from '../workflows/turn-type';
import { databaseAddress } from '../db/address';
import { deploymentWatch } from './deployment-watch';
import { createTurnWorker, workerShutdownOptions } from './worker';
import { startWhenNamespaceExists } from './namespace-wait';
import { workerProbeHandlers, type WorkerState } from './readiness';
import { boundProbe, closingOnError, openWorkerResources, type WorkerResources } from './resources';
import { runningWorker, type RunningWorker } from './running-worker';
import type { TurnWorkerRun, WorkerObservability } from './turn-worker-run';

export type { RunningWorker } from './running-worker';
export type { TurnWorkerRun } from './turn-worker-run';

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
  logWhatItRuns(run, worker, observability.logger);
  const watch = run.bindDeployment
    ? deploymentWatch(opened.prerequisites, run.prerequisiteCacheMs ?? PREREQUISITE_CACHE_MS, observability.logger)
    : undefined;
  return {
    ...runningWorker(worker, opened.close, probe?.url ?? null, watch),
    databaseReadiness: () => databaseReadiness(opened.wired.deps.db),
  };
}

/**
 * The type the API starts: an operator comparing builds in a mixed deploy reads it here (docs/operations.md). The
 * database too: a worker given another deployment's DATABASE_URL is found by this line.
 */
function logWhatItRuns(run: TurnWorkerRun, worker: Worker, logger: Logger): void {
  const { TEMPORAL_TASK_QUEUE: taskQueue, TEMPORAL_NAMESPACE: namespace } = run.env;
  const database = databaseAddress(run.databaseUrl);
  logger.info(
    { taskQueue, namespace, database, workflowType: TURN_WORKFLOW_TYPE, identity: worker.options.identity },
    `worker polls ${taskQueue} in namespace ${namespace}, writes to the database at ${database}, and runs ` +
      `${TURN_WORKFLOW_TYPE}, the turn type this build's API starts`
  );
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

/** The turn worker over what was opened, its options from the environment; `run.tuning` overrides any of them. */
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
