import type { Worker } from '@temporalio/worker';
import type { DeploymentMismatchError } from '../db/deployment';
import type { DeploymentWatch } from './deployment-watch';

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

/** A built worker, run until it stops, then everything closed. */
export function runningWorker(
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
