import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { isTemporalUnreachable } from '../../config/temporal-client';
import type { DecisionDeadline } from './decision-deadline';

/**
 * Why a turn's workflow task is being retried: no worker answered it in time (TIMED_OUT: a worker stopped, frozen or
 * overloaded) or a worker answered with a failure (FAILED: a bug or a bad deploy); or it no longer is (SETTLED: the
 * task completed since, or the run ended). Unknown (null) when the history does not say, or Temporal did not answer.
 */
export type WorkflowTaskTrouble = 'TIMED_OUT' | 'FAILED' | 'SETTLED' | null;

const EventType = temporal.api.enums.v1.EventType;

/** The events that close a run: a task retried before one of them is retried no more. */
const RUN_CLOSED: ReadonlySet<number> = new Set([
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
]);

/** Enough of the newest events to reach the task's first failed attempt (later attempts are not in history). */
const NEWEST_EVENTS = 50;

/**
 * The turn's newest workflow task failure or timeout since its last completed task, from its history, by `deadline`;
 * SETTLED when its newest events close the run or complete a task; undefined when Temporal did not answer in time.
 */
export async function workflowTaskTrouble(
  client: Client,
  workflowId: string,
  deadline: DecisionDeadline
): Promise<WorkflowTaskTrouble | undefined> {
  try {
    const { history } = await deadline.within(() =>
      client.workflowService.getWorkflowExecutionHistoryReverse({
        namespace: client.options.namespace,
        execution: { workflowId },
        maximumPageSize: NEWEST_EVENTS,
      })
    );
    for (const event of history?.events ?? []) {
      const type = event.eventType ?? 0;
      if (type === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED || RUN_CLOSED.has(type)) return 'SETTLED';
      if (type === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT) return 'TIMED_OUT';
      if (type === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED) return 'FAILED';
    }
    return null;
  } catch (err) {
    if (isTemporalUnreachable(err)) return undefined;
    // Any other failure to read it: only the wording depends on it, and the caller's refusal stands without.
    return null;
  }
}

/** What `trouble` says of the turn's workflow task, for a refusal's text. */
export function troubleText(trouble: WorkflowTaskTrouble): string {
  if (trouble === 'TIMED_OUT') return 'no worker answered its workflow task in time (a worker stopped or overloaded)';
  if (trouble === 'FAILED') return 'its workflow task failed or is failing (a worker fails it: a bug, a bad deploy?)';
  return 'its workflow task failed or timed out';
}
