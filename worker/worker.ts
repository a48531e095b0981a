import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { TurnActivities } from '../core/turn/activities';
import { workflowSource, type WorkflowSource } from './bundle';

export interface TurnWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: TurnActivities;
  workflows?: WorkflowSource;
  /** Extra Worker options (concurrency limits, identity, …). */
  tuning?: Partial<WorkerOptions>;
}

/** A worker that runs conversation turns: the turn workflow plus every step and tool activity. */
export function createTurnWorker(options: TurnWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: options.activities,
    ...(options.workflows ?? workflowSource()),
    ...options.tuning,
  });
}

export function connectWorker(address: string): Promise<NativeConnection> {
  return NativeConnection.connect({ address });
}
