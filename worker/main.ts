import { loadEnv, requireDatabaseUrl, type Env } from '../config/env';
import { createActivities } from '../activities';
import { buildWorkerDeps } from './deps';
import { connectWorker, createTurnWorker } from './worker';

export interface RunningWorker {
  /** Resolves when the worker has stopped (after shutdown() or a fatal error). */
  done: Promise<void>;
  shutdown(): Promise<void>;
}

/** Starts a worker from the environment; SIGTERM/SIGINT drain in-flight tasks, then exit. */
export async function startWorkerFromEnv(env: Env = loadEnv(), address = env.TEMPORAL_ADDRESS): Promise<RunningWorker> {
  if (!address) throw new Error('TEMPORAL_ADDRESS is not set (use `convengine start` for the embedded dev server).');
  const wired = buildWorkerDeps(env, { databaseUrl: requireDatabaseUrl() });
  const connection = await connectWorker(address);
  const worker = await createTurnWorker({
    connection,
    namespace: env.TEMPORAL_NAMESPACE,
    taskQueue: env.TEMPORAL_TASK_QUEUE,
    activities: createActivities(wired.deps),
  });
  const done = worker.run().finally(async () => {
    await connection.close();
    await wired.close();
  });
  const shutdown = async () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await done;
  };
  return { done, shutdown };
}
