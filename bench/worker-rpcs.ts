import { parseMetrics, sumOf } from '../test/support/prometheus-text';
import type { Row } from './table';

/**
 * The worker's calls to the Temporal server, from sdk-core's own metrics (the bench worker exports
 * them on TEMPORAL_SDK_METRICS_ADDRESS): long polls by operation, other calls, and how many activity
 * tasks came eagerly, in the answer to the workflow task that scheduled them, instead of from a poll.
 */
export interface WorkerRpcs {
  polls: Record<string, number>;
  calls: number;
  activityTasks: number;
  eagerActivityTasks: number;
}

export const NO_RPCS: WorkerRpcs = { polls: {}, calls: 0, activityTasks: 0, eagerActivityTasks: 0 };

/** The long polls sdk-core makes; every other call is counted as one. */
const POLLS = ['PollWorkflowTaskQueue', 'PollActivityTaskQueue'];

/** The worker's counters now; all zero when its exporter cannot be read (the row then says so). */
export async function scrapeWorkerRpcs(address: string): Promise<WorkerRpcs> {
  try {
    const samples = parseMetrics(await (await fetch(`http://${address}/metrics`)).text());
    const polls = Object.fromEntries(
      POLLS.map((operation) => [operation, sumOf(samples, 'temporal_long_request_total', { operation })])
    );
    return {
      polls,
      calls: sumOf(samples, 'temporal_request_total'),
      activityTasks: sumOf(samples, 'temporal_activity_task_received_total'),
      eagerActivityTasks: sumOf(samples, 'temporal_activity_task_received_total', { eager: 'true' }),
    };
  } catch {
    return NO_RPCS;
  }
}

/** `after − before`, or `a + b` with `sign` 1 (merging windows). */
export function combineRpcs(a: WorkerRpcs, b: WorkerRpcs, sign: 1 | -1): WorkerRpcs {
  const polls = { ...a.polls };
  for (const [op, n] of Object.entries(b.polls)) polls[op] = (polls[op] ?? 0) + sign * n;
  return {
    polls,
    calls: a.calls + sign * b.calls,
    activityTasks: a.activityTasks + sign * b.activityTasks,
    eagerActivityTasks: a.eagerActivityTasks + sign * b.eagerActivityTasks,
  };
}

export function workerRpcRow(rpcs: WorkerRpcs, turns: number): Row {
  const per = (n: number) => (n / Math.max(1, turns)).toFixed(1);
  const polls = Object.values(rpcs.polls).reduce((a, b) => a + b, 0);
  const eagerShare = rpcs.activityTasks > 0 ? (100 * rpcs.eagerActivityTasks) / rpcs.activityTasks : NaN;
  return [
    'Worker RPCs per turn: polls answered + other calls',
    `${per(polls + rpcs.calls)} (${per(polls)} + ${per(rpcs.calls)}); ${eagerShare.toFixed(0)} % of activity tasks eager`,
    `the worker's calls to the server, from sdk-core's metrics: polls ${Object.entries(rpcs.polls)
      .map(([op, n]) => `${op} ${per(n)}`)
      .join(', ')}; other calls (task completions, heartbeats) ${per(rpcs.calls)}; activity tasks received eagerly, ` +
      `in the answer to the workflow task that scheduled them: ${eagerShare.toFixed(0)} % of ${per(rpcs.activityTasks)}`,
  ];
}
