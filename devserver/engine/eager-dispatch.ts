/**
 * Eager dispatch, as the real server does it: a task handed to the worker in the answer to the call
 * that created it, with no task queue, poll or matching in between. The first workflow task of a run
 * goes back to the client that started it (it shares its connection with a worker;
 * `system.enableEagerWorkflowStart`); an activity, and a workflow task a completion made necessary,
 * go back to the worker whose workflow task scheduled them (`system.enableActivityEagerExecution`;
 * `returnNewWorkflowTask`).
 */
import type { EncodedResponse } from '../proto/codec';
import type { Message } from '../proto/types';
import { startAttempt } from './activities';
import type { Engine } from './engine';
import { isOpen, type RunState } from './state';
import { startWorkflowTask } from './workflow-task';
import { startedTaskResponse } from './workflow-task-response';

/** WorkflowExecutionStarted, WorkflowTaskScheduled, WorkflowTaskStarted: a run's first task, started. */
const FIRST_TASK_STARTED_EVENT_ID = 3;

/**
 * Eager workflow start: the new run's first task, started for the client that started the run (it
 * shares its connection with a worker). Its queued copy is dropped when matching reaches it, as any
 * task that was started meanwhile. Undefined when the task is held back or already started.
 */
export function startEagerWorkflowTask(engine: Engine, run: RunState, identity: string): EncodedResponse | undefined {
  const wft = run.wft;
  if (!wft || wft.startedEventId !== 0 || wft.notBefore !== undefined || wft.sticky) return undefined;
  engine.stats.eagerWorkflowTasks++;
  return startWorkflowTask(engine, run, wft, { identity, queueName: wft.queue });
}

/**
 * The workflow task a completion made necessary (events that arrived meanwhile, an update, a forced
 * task), started for the worker that completed the previous one and returned in its answer, as the
 * real server does when the completion asks (`returnNewWorkflowTask`: sdk-core asks whenever it
 * keeps the run cached). Its queued copy is dropped when matching reaches it.
 */
export function startReturnedWorkflowTask(
  engine: Engine,
  run: RunState,
  identity: string
): EncodedResponse | undefined {
  const wft = run.wft;
  if (!isOpen(run) || !wft || wft.startedEventId !== 0 || wft.notBefore !== undefined) return undefined;
  engine.stats.returnedWorkflowTasks++;
  return startWorkflowTask(engine, run, wft, { identity, queueName: wft.queue }, true);
}

/** The eager task again, for a start retried with the same request ID, while the first task is still running. */
export function resendEagerWorkflowTask(engine: Engine, run: RunState): EncodedResponse | undefined {
  const wft = run.wft;
  if (!wft || wft.startedEventId !== FIRST_TASK_STARTED_EVENT_ID || wft.attempt !== 1) return undefined;
  return startedTaskResponse(engine, run, wft, {}, false);
}

/**
 * Eager activity execution: the activities a workflow task scheduled with `requestEagerExecution`
 * start at once, for the worker that completed the task, and their tasks go back in its answer
 * (no task queue, no poll). As on the real server this runs after every command of the task: an
 * activity the same task cancelled, or of a run the task closed, is not handed out. A handed-out
 * task the worker never gets fails its attempt by start-to-close timeout and is retried through
 * the task queue.
 */
export function startEagerActivities(
  engine: Engine,
  run: RunState,
  scheduledEventIds: readonly number[],
  identity: string
): Message[] {
  if (!isOpen(run)) return [];
  const tasks: Message[] = [];
  for (const id of scheduledEventIds) {
    const activity = run.activities[id];
    if (activity?.stage !== 'SCHEDULED' || activity.attempt !== 1) continue;
    tasks.push(startAttempt(engine, run, activity, identity));
    engine.stats.eagerActivityTasks++;
  }
  return tasks;
}
