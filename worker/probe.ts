import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import type { GrpcCompression } from '../config/env';
import { connectTemporalClient } from '../config/temporal-client';
import type { TemporalConnectionSettings } from '../config/temporal-connection';
import type { ProbeActivities } from '../workflows/probe';
import { workflowExporterSinks } from '../observability/worker-options';
import type { WorkflowBundleEnv } from './bundle';
import { runnableWorkflowSource } from './bundle-cache';
import { connectWorker, turnActivityInterceptors } from './worker';

/** What one activity round trip costs on a server, measured by `convengine doctor`. */
export interface RoundTripProbeResult {
  /** Median over the timed runs of (run wall time ÷ activities per run). */
  msPerActivity: number;
  /** Every timed run's figure, in order. */
  samplesMs: number[];
}

export interface RoundTripProbeOptions {
  temporal: TemporalConnectionSettings;
  namespace: string;
  /** The turn worker's (TEMPORAL_GRPC_COMPRESSION), so the figure is what its turns pay. */
  compression: GrpcCompression;
  /** The turn worker's too: the probe workflow is in the same bundle. */
  workflowBundle: WorkflowBundleEnv;
  /** Activities chained in one probe workflow. */
  activitiesPerRun?: number;
  /** Timed runs after one untimed warm-up. */
  runs?: number;
  /** The turn worker's (withoutFailureText): its activities run under the same interceptors. */
  sealFailureText: boolean;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * Runs the probe workflow (workflows/probe.ts) on a private task queue, with a worker of its own
 * in this process, and times it. The worker is built like the turn worker (same bundle source), so
 * the figure is what a turn's steps pay per round trip on this server, minus the steps' own work.
 */
export async function probeActivityRoundTrip(options: RoundTripProbeOptions): Promise<RoundTripProbeResult> {
  const activitiesPerRun = options.activitiesPerRun ?? 5;
  const runs = options.runs ?? 3;
  const taskQueue = `convengine-doctor-${randomUUID()}`;
  const activities: ProbeActivities = { probeNoop: async () => undefined };
  const workerConnection = await connectWorker(options.temporal, options.compression);
  const clientConnection = await connectTemporalClient(options.temporal);
  try {
    const worker = await Worker.create({
      connection: workerConnection,
      namespace: options.namespace,
      taskQueue,
      activities,
      ...(await runnableWorkflowSource(options.workflowBundle)),
      sinks: workflowExporterSinks(),
      interceptors: { activity: turnActivityInterceptors(options.sealFailureText) },
    });
    const client = new Client({ connection: clientConnection, namespace: options.namespace });
    const runOnce = () =>
      client.workflow.execute('activityRoundTripProbe', {
        taskQueue,
        workflowId: `convengine-doctor-${randomUUID()}`,
        args: [activitiesPerRun],
        workflowExecutionTimeout: '60 seconds',
      });
    const samplesMs = await worker.runUntil(async () => {
      await runOnce();
      const samples: number[] = [];
      for (let i = 0; i < runs; i++) {
        const started = performance.now();
        await runOnce();
        samples.push((performance.now() - started) / activitiesPerRun);
      }
      return samples;
    });
    return { msPerActivity: median(samplesMs), samplesMs };
  } finally {
    await clientConnection.close();
    await workerConnection.close();
  }
}
