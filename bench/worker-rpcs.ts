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

/** Sum of a counter's samples by one label (all samples under '' when `label` is absent). */
function counter(scrape: string, metric: string, label: string): Record<string, number> {
  const out: Record<string, number> = {};
  const labelPattern = new RegExp(`${label}="([^"]*)"`);
  for (const line of scrape.split('\n')) {
    if (!line.startsWith(`${metric}{`)) continue;
    const key = labelPattern.exec(line)?.[1] ?? '';
    out[key] = (out[key] ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return out;
}

const total = (values: Record<string, number>): number => Object.values(values).reduce((a, b) => a + b, 0);

/** The worker's counters now; all zero when its exporter cannot be read (the row then says so). */
export async function scrapeWorkerRpcs(address: string): Promise<WorkerRpcs> {
  try {
    const scrape = await (await fetch(`http://${address}/metrics`)).text();
    const received = counter(scrape, 'temporal_activity_task_received_total', 'eager');
    return {
      polls: counter(scrape, 'temporal_long_request_total', 'operation'),
      calls: total(counter(scrape, 'temporal_request_total', 'operation')),
      activityTasks: total(received),
      eagerActivityTasks: received['true'] ?? 0,
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
  const polls = total(rpcs.polls);
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
