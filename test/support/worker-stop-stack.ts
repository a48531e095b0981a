import { startApiServer, type ApiServer } from '../../api/server';
import { loadEnv, type Env } from '../../config/env';
import { localTemporal } from '../../config/temporal-connection';
import { DEMO_MESSAGES } from '../../demo/conversations';
import type { DemoToolServer } from '../../demo/tool-server';
import { silentLogger, type Logger } from '../../observability/logger';
import { installTemporalRuntime } from '../../observability/temporal-runtime';
import type { ScriptedLlm } from '../../scripted-llm';
import { runTurnWorker, type RunningWorker } from '../../worker/main';
import { startDemoDependencies } from './demo-dependencies';

/**
 * What the worker-stop tests (test/worker/shutdown-*.test.ts) stop a worker in: the order-diagnostics pack, the demo
 * model and tool server, Temporal with a task queue of its own, and an API; no worker (each test starts its own).
 * WORKER_SHUTDOWN_GRACE_MS is unset: the default, as `convengine worker` and `convengine start` run it.
 */
export interface WorkerStopStack {
  env: Env;
  /** The environment a `convengine worker` process of this stack runs with (tool variables included). */
  variables: Record<string, string>;
  llm: ScriptedLlm;
  tools: DemoToolServer;
  api: ApiServer;
  /** A turn worker in this process. */
  startWorker(logger?: Logger): Promise<RunningWorker>;
  /** Sends the order-status message; resolves with the API's answer once the turn ends. */
  sendOrderTurn(): Promise<Response>;
  /** Stops what `onStop` was given, last first, then the stack. */
  onStop(stop: () => Promise<unknown>): void;
  stop(): Promise<void>;
}

export async function startWorkerStopStack(queuePrefix: string): Promise<WorkerStopStack> {
  installTemporalRuntime({ logger: silentLogger() });
  const stops: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const step of stops.reverse()) await step().catch(() => undefined);
  };
  try {
    const { tdb, llm, tools, temporal, toolEnv } = await startDemoDependencies(['order-diagnostics'], stops);
    const variables = {
      DATABASE_URL: tdb.url,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: temporal.namespace,
      TEMPORAL_TASK_QUEUE: `${queuePrefix}-${process.pid}-${Date.now()}`,
      ANTHROPIC_BASE_URL: llm.baseUrl,
      ANTHROPIC_MODEL: 'recorded-demo',
      ...toolEnv,
    };
    const env = loadEnv(variables);
    const connection = { env, databaseUrl: tdb.url, temporal: localTemporal(temporal.address) };
    const api = await startApiServer({ ...connection, host: '127.0.0.1', port: 0, logger: silentLogger() });
    stops.push(() => api.close({ drainMs: 0 }));
    return {
      env,
      variables,
      llm,
      tools,
      api,
      startWorker: (logger) => runTurnWorker({ ...connection, toolEnv: variables, ...(logger ? { logger } : {}) }),
      sendOrderTurn: () =>
        fetch(`${api.url}/api/v1/conversation/message`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ message: DEMO_MESSAGES.orderDirect }),
        }),
      onStop: (step) => stops.push(step),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Waits until `condition` holds, checking every 50 ms; fails naming `what` after `timeoutMs`. */
export async function until(condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
