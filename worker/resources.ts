import type { NativeConnection } from '@temporalio/worker';
import { bindOwnDeployment, deploymentOf } from '../db/deployment';
import type { Logger } from '../observability/logger';
import { startPrerequisiteMonitor, type PrerequisiteMonitor } from '../observability/prerequisites';
import type { WorkflowSource } from './bundle';
import { runnableWorkflowSource } from './bundle-cache';
import { buildWorkerDeps, type WorkerDeps } from './deps';
import { bindWorkerProbe, type WorkerProbe } from './listeners';
import type { TurnWorkerRun, WorkerObservability } from './turn-worker-run';
import { connectWorker } from './worker';

/** What a turn worker holds open while it runs, and how all of it is closed, in order. */
export interface WorkerResources {
  wired: WorkerDeps;
  connection: NativeConnection;
  prerequisites: PrerequisiteMonitor;
  workflows: WorkflowSource;
  /** The probe, the connection when it is the worker's own, the dependencies. */
  close(): Promise<void>;
}

/** `run.probe` listening: bound here at its address, or as the command bound it at its start. */
export async function boundProbe(probe: TurnWorkerRun['probe'], logger: Logger): Promise<WorkerProbe | null> {
  if (probe === undefined) return null;
  return 'serve' in probe ? probe : bindWorkerProbe(probe, logger);
}

/**
 * The activity dependencies, the connection, the prerequisite monitor (it logs a missing migration or search
 * attribute now; /readyz reports it until fixed) and the workflow source. A failure closes what was opened.
 */
export async function openWorkerResources(
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

/** A failed start's handler: closes what was opened (in order), then rethrows. */
export function closingOnError(...close: (() => Promise<unknown>)[]): (err: unknown) => Promise<never> {
  return async (err) => {
    for (const step of close) await step();
    throw err;
  };
}
