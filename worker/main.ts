import type { WorkerOptions } from '@temporalio/worker';
import { loadEnv, requireDatabaseUrl, type Env } from '../config/env';
import { createActivities } from '../activities';
import { buildWorkerDeps } from './deps';
import { connectWorker, createTurnWorker } from './worker';

export interface RunningWorker {
  /** Resolves when the worker has stopped (after shutdown() or a fatal error), connections closed. */
  done: Promise<void>;
  shutdown(): Promise<void>;
}

export interface TurnWorkerRun {
  env: Env;
  databaseUrl: string;
  address: string;
  /** Environment HTTP tool rows may read; default process.env. */
  toolEnv?: Readonly<Record<string, string | undefined>>;
  tuning?: Partial<WorkerOptions>;
}

/** Connects, wires the activity dependencies and runs a turn worker until shutdown. */
export async function runTurnWorker(run: TurnWorkerRun): Promise<RunningWorker> {
  const wired = await buildWorkerDeps(run.env, { databaseUrl: run.databaseUrl, toolEnv: run.toolEnv });
  const connection = await connectWorker(run.address);
  const worker = await createTurnWorker({
    connection,
    namespace: run.env.TEMPORAL_NAMESPACE,
    taskQueue: run.env.TEMPORAL_TASK_QUEUE,
    activities: createActivities(wired.deps),
    dataConverter: wired.dataConverter,
    tuning: run.tuning,
  });
  const done = worker.run().finally(async () => {
    await connection.close();
    await wired.close();
  });
  return {
    done,
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done.catch(() => undefined);
    },
  };
}

/** `convengine worker`: a worker from the environment; the SDK drains in-flight tasks on SIGTERM/SIGINT. */
export async function startWorkerFromEnv(env: Env = loadEnv(), address = env.TEMPORAL_ADDRESS): Promise<RunningWorker> {
  if (!address) throw new Error('TEMPORAL_ADDRESS is not set (use `convengine start` for the embedded dev server).');
  return runTurnWorker({ env, databaseUrl: requireDatabaseUrl(), address });
}
