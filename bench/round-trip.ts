import { randomUUID } from 'node:crypto';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { loadEnv } from '../config/env';
import { localTemporal } from '../config/temporal-connection';
import { withoutFailureText } from '../observability/failure-outline';
import { connectWorker, turnActivityInterceptors } from '../worker/worker';
import type { BenchStack } from './stack';
import { mean, ownCpuMs, percentile, processCpuMs } from './turns';

/**
 * Benchmark: what one activity costs on the dev server when the activity itself does nothing —
 * a workflow of `count` echo activities, run by an SDK worker in this process against the same dev
 * server process as the turns — with an empty payload and with a turn-sized payload (a real
 * activity input taken from a turn's history), so the per-activity overhead of a turn can be split
 * into "one more round trip" and "a bigger payload" — and, for comparison, the same chain as local
 * activities (no activity task through the server per step).
 */
export interface RoundTripResult {
  workflow: 'activityChain' | 'localActivityChain';
  payloadBytes: number;
  msPerActivity: number;
  p95MsPerActivity: number;
  serverCpuMsPerActivity: number;
  workerCpuMsPerActivity: number;
}

const TASK_QUEUE = `bench-round-trip-${process.pid}`;
const NOOP_LOGGER = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

async function measure(
  stack: BenchStack,
  workflow: RoundTripResult['workflow'],
  count: number,
  payload: unknown,
  runs: number
): Promise<RoundTripResult> {
  const run = () =>
    stack.client.workflow.execute(workflow, {
      taskQueue: TASK_QUEUE,
      workflowId: randomUUID(),
      args: [count, payload],
    });
  for (let i = 0; i < 2; i++) await run();
  const server = processCpuMs(stack.server.pid);
  const own = ownCpuMs();
  const perActivity: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await run();
    perActivity.push((performance.now() - started) / count);
  }
  const activities = runs * count;
  return {
    workflow,
    payloadBytes: Buffer.byteLength(JSON.stringify(payload)),
    msPerActivity: mean(perActivity),
    p95MsPerActivity: percentile(perActivity, 95),
    serverCpuMsPerActivity: (processCpuMs(stack.server.pid) - server) / activities,
    workerCpuMsPerActivity: (ownCpuMs() - own) / activities,
  };
}

/**
 * Activities with an empty payload, then with `turnPayload`, then local activities with it; `count`
 * steps per workflow (a turn's worth), `runs` workflows each.
 */
export async function benchRoundTrip(
  stack: BenchStack,
  turnPayload: unknown,
  count = 27,
  runs = 10
): Promise<RoundTripResult[]> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('./workflows/round-trip'),
    logger: NOOP_LOGGER,
  });
  // Connected as the bench's turn worker is (TEMPORAL_GRPC_COMPRESSION), and its activities under the same
  // interceptors (turnActivityInterceptors), so the chains price what its turns pay.
  const env = loadEnv();
  const connection = await connectWorker(localTemporal(stack.address), env.TEMPORAL_GRPC_COMPRESSION);
  try {
    const worker = await Worker.create({
      connection,
      taskQueue: TASK_QUEUE,
      workflowBundle: { code },
      activities: { echo: async (payload: unknown) => payload },
      dataConverter: stack.dataConverter,
      interceptors: { activity: turnActivityInterceptors(withoutFailureText(env)) },
    });
    return await worker.runUntil(async () => [
      await measure(stack, 'activityChain', count, {}, runs),
      await measure(stack, 'activityChain', count, turnPayload, runs),
      await measure(stack, 'localActivityChain', count, turnPayload, runs),
    ]);
  } finally {
    await connection.close();
  }
}
