import type { DataConverter } from '@temporalio/common';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { TurnActivities } from '../core/turn/activities';
import { workflowBundleVariant } from '../observability/worker-options';
import { workflowSource, type WorkflowSource } from './bundle';

export interface TurnWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: TurnActivities;
  /** The claim-check converter (db/claims/codec.ts); the gateway's client must use the same store. */
  dataConverter: DataConverter;
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
    dataConverter: options.dataConverter,
    ...(options.workflows ?? workflowSource(workflowBundleVariant())),
    ...options.tuning,
  });
}

export function connectWorker(address: string): Promise<NativeConnection> {
  return NativeConnection.connect({ address });
}
