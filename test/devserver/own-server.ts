/**
 * Set-up for tests of behaviour specific to the embedded dev server: they always start their own
 * instance (even when TEMPORAL_ADDRESS is set), and run SDK workers against any instance they start.
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { startDevServer, type DevServer } from '../../devserver';
import { bundleTestWorkflows, installQuietRuntime } from './harness';
import { RawClient } from './raw-client';

export const testActivities = {
  echo: async (value: number) => value,
  slow: async (ms: number) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return 'slow done';
  },
};

export interface OwnServer {
  bundle: WorkflowBundleWithSourceMap;
  server: DevServer;
  raw: RawClient;
  /** What the server reported through onInternalError: a robust server reports nothing. */
  internalErrors: unknown[];
}

/**
 * Starts the file's own dev server before its tests and stops it after them. Exact deadlines (no 1 s
 * timer floor): the tests time sticky fallbacks against 300 ms long polls.
 */
export function useOwnDevServer(): OwnServer {
  const own = { internalErrors: [] as unknown[] } as OwnServer;
  beforeAll(async () => {
    installQuietRuntime();
    own.bundle = await bundleTestWorkflows();
    own.server = await startDevServer({
      port: 0,
      longPollTimeoutMs: 300,
      minTimerDelayMs: 0,
      onInternalError: (e) => own.internalErrors.push(e),
    });
    own.raw = new RawClient(own.server.address);
  });
  afterAll(async () => {
    own.raw?.close();
    await own.server?.stop();
  });
  return own;
}

/** Runs `fn` with an SDK client while a worker of the test workflows and activities polls `taskQueue`. */
export async function withWorker<T>(
  bundle: WorkflowBundleWithSourceMap,
  address: string,
  taskQueue: string,
  fn: (client: Client) => Promise<T>,
  maxCachedWorkflows?: number
) {
  const connection = await NativeConnection.connect({ address });
  const clientConnection = await Connection.connect({ address });
  try {
    const worker = await Worker.create({
      connection,
      taskQueue,
      workflowBundle: bundle,
      activities: testActivities,
      ...(maxCachedWorkflows === undefined ? {} : { maxCachedWorkflows }),
    });
    return await worker.runUntil(fn(new Client({ connection: clientConnection })));
  } finally {
    await clientConnection.close();
    await connection.close();
  }
}

/** Starts a run of a workflow type no worker knows on `taskQueue` and takes its first workflow task, raw. */
export async function startAndTakeFirstTask(own: OwnServer, taskQueue: string, workflowId: string) {
  await own.raw.call('StartWorkflowExecution', {
    namespace: 'default',
    workflowId,
    workflowType: { name: 'anything' },
    taskQueue: { name: taskQueue },
  });
  return own.raw.call('PollWorkflowTaskQueue', { namespace: 'default', taskQueue: { name: taskQueue } });
}
