/**
 * Shared set-up for the dev server conformance suite: one workflow bundle per test file, one
 * worker on a task queue unique to the file, the real SDK client, and the histories of finished
 * workflows collected for a replay check at the end.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import {
  bundleWorkflowCode,
  DefaultLogger,
  NativeConnection,
  Runtime,
  Worker,
  type WorkerOptions,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { getTestTemporal, type TestTemporal } from '../support/temporal';
export { usingRealServer } from '../support/temporal';

export { exportHistory, importHistory } from '../../cli/history/json';
import { exportHistory, importHistory } from '../../cli/history/json';

export const WORKFLOWS_PATH = path.join(__dirname, 'workflows');

const quietLogger = new DefaultLogger('ERROR');

/**
 * The suite fails workflows, tasks and activities on purpose; their WARN lines would drown real
 * problems. The runtime can be installed once per module registry.
 */
export function installQuietRuntime(): void {
  try {
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
    });
  } catch {
    // Already installed by an earlier test file in this Jest worker: keep that one.
  }
}

export async function bundleTestWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietLogger });
}

export interface Harness {
  temporal: TestTemporal;
  client: Client;
  connection: NativeConnection;
  taskQueue: string;
  bundle: WorkflowBundleWithSourceMap;
  /** Histories of finished workflows, replayed by `replayCollected`. */
  histories: { workflowId: string; json: string }[];
  /** A workflow ID unique to this run of the suite. */
  id(label: string): string;
  newWorker(options: Partial<WorkerOptions>): Promise<Worker>;
  collect(handle: WorkflowHandle): Promise<void>;
  close(): Promise<void>;
}

export async function createHarness(
  activities: WorkerOptions['activities'],
  workerOptions: Partial<WorkerOptions> = {}
): Promise<Harness & { worker: Worker; running: Promise<void> }> {
  installQuietRuntime();
  const [bundle, temporal] = await Promise.all([bundleTestWorkflows(), getTestTemporal()]);
  const connection = await NativeConnection.connect({ address: temporal.address });
  const clientConnection = await Connection.connect({ address: temporal.address });
  const client = new Client({ connection: clientConnection, namespace: temporal.namespace });
  const suffix = randomUUID().slice(0, 8);
  const taskQueue = `devserver-${suffix}`;
  const newWorker = (options: Partial<WorkerOptions>): Promise<Worker> =>
    Worker.create({
      connection,
      namespace: temporal.namespace,
      taskQueue,
      workflowBundle: bundle,
      activities,
      ...workerOptions,
      ...options,
    });
  const worker = await newWorker({});
  const running = worker.run();
  const histories: { workflowId: string; json: string }[] = [];
  return {
    temporal,
    client,
    connection,
    taskQueue,
    bundle,
    histories,
    worker,
    running,
    id: (label) => `${label}-${suffix}-${randomUUID().slice(0, 6)}`,
    newWorker,
    collect: async (handle) => {
      histories.push({ workflowId: handle.workflowId, json: exportHistory(await handle.fetchHistory()) });
    },
    close: async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await clientConnection.close();
      await connection.close();
      await temporal.stop();
    },
  };
}

/** Writes the collected histories as JSON files and replays them with the same workflow bundle. Returns the replay errors. */
export async function replayCollected(harness: Harness, fileLabel: string): Promise<string[]> {
  const directory = path.join(os.tmpdir(), 'convengine-devserver-histories', fileLabel);
  fs.mkdirSync(directory, { recursive: true });
  const inputs = harness.histories.map(({ workflowId, json }) => {
    fs.writeFileSync(path.join(directory, `${workflowId}.json`), json);
    return { workflowId, history: importHistory(json) };
  });
  const errors: string[] = [];
  const results = Worker.runReplayHistories({ workflowBundle: harness.bundle, replayName: fileLabel }, inputs);
  for await (const result of results) {
    if (result.error) errors.push(`${result.workflowId}: ${result.error.message}`);
  }
  return errors;
}

/** Retries `check` until it stops throwing (visibility on a real server is eventually consistent). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 10_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}

/** Event type names of a fetched history, without the EVENT_TYPE_ prefix. */
export async function eventTypes(handle: WorkflowHandle): Promise<string[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).map((event) =>
    String(temporal.api.enums.v1.EventType[event.eventType ?? 0]).replace(/^EVENT_TYPE_/, '')
  );
}
