import { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/**
 * A workflow task that failed or timed out. A reset (`temporal workflow reset`, the runbook's recipe 4) is one:
 * the new run's history ends its copy of the old one with a WorkflowTaskFailed of cause RESET_WORKFLOW whose
 * message is the reset's reason. Others are a worker's own failures (non-determinism, a panic) and task timeouts.
 */
export interface WorkflowTaskFailure {
  kind: 'reset' | 'failed' | 'timed-out';
  /** The cause without its enum prefix (RESET_WORKFLOW, NON_DETERMINISTIC_ERROR, …), or a timeout's type. */
  cause: string;
  message: string | null;
  /** A reset's runs: the one it was reset from and the one it started (this history's run). */
  baseRunId: string | null;
  newRunId: string | null;
}

/** An enum value as its name: a fetched history holds numbers, a JSON fixture the names themselves. */
function enumName(names: Record<number, string>, value: unknown, prefix: string): string {
  const name = typeof value === 'number' ? names[value] : typeof value === 'string' ? value : undefined;
  return (name ?? 'UNSPECIFIED').replace(prefix, '');
}

export function workflowTaskFailureOf(event: HistoryEvent): WorkflowTaskFailure | null {
  const failed = event.workflowTaskFailedEventAttributes;
  if (failed) {
    const { WorkflowTaskFailedCause } = temporal.api.enums.v1;
    const cause = enumName(WorkflowTaskFailedCause, failed.cause, 'WORKFLOW_TASK_FAILED_CAUSE_');
    return {
      kind: cause === 'RESET_WORKFLOW' ? 'reset' : 'failed',
      cause,
      message: failed.failure?.message || null,
      baseRunId: failed.baseRunId || null,
      newRunId: failed.newRunId || null,
    };
  }
  const timedOut = event.workflowTaskTimedOutEventAttributes;
  if (!timedOut) return null;
  const cause = enumName(temporal.api.enums.v1.TimeoutType, timedOut.timeoutType, 'TIMEOUT_TYPE_');
  return { kind: 'timed-out', cause, message: null, baseRunId: null, newRunId: null };
}

/** The failure in one line, as `convengine history` and the console's timeline show it. */
export function workflowTaskFailureText(failure: WorkflowTaskFailure): string {
  const message = failure.message ? `: ${failure.message}` : '';
  if (failure.kind === 'reset') {
    const runs = [
      failure.baseRunId && `from run ${failure.baseRunId}`,
      failure.newRunId && `new run ${failure.newRunId}`,
    ].filter(Boolean);
    return `reset (${failure.cause})${message}${runs.length ? ` — ${runs.join(', ')}` : ''}`;
  }
  if (failure.kind === 'timed-out') return `workflow task timed out (${failure.cause})`;
  return `workflow task failed (${failure.cause})${message}`;
}
