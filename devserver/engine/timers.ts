/** Workflow timers: TimerStarted → (deadline) → TimerFired, or TimerCanceled. */
import { durationMs } from '../proto/time';
import { enums, type Message } from '../proto/types';
import type { Engine } from './engine';
import { appendEvent, pending } from './history';
import { isOpen, type RunState } from './state';
import { recordExternalEvents } from './workflow-task';

const E = enums.EventType;

export function timerKey(runId: string, timerId: string): string {
  return `timer:${runId}:${timerId}`;
}

export function startTimer(engine: Engine, run: RunState, attributes: Message, completedEventId: number): void {
  const timerId = String(attributes.timerId);
  const event = appendEvent(engine, run, E.EVENT_TYPE_TIMER_STARTED, 'timerStartedEventAttributes', {
    timerId,
    startToFireTimeout: attributes.startToFireTimeout,
    workflowTaskCompletedEventId: completedEventId,
  });
  const deadline = engine.now() + durationMs(attributes.startToFireTimeout as Message);
  run.timers[timerId] = { timerId, startedEventId: event.eventId, deadline };
  armTimer(engine, run, timerId);
}

export function armTimer(engine: Engine, run: RunState, timerId: string): void {
  const timer = run.timers[timerId];
  if (!timer) return;
  const { runId } = run;
  engine.scheduler.set(timerKey(runId, timerId), timer.deadline, () => fireTimer(engine, runId, timerId));
}

function fireTimer(engine: Engine, runId: string, timerId: string): void {
  const run = engine.runs.get(runId);
  const timer = run?.timers[timerId];
  if (!run || !timer || !isOpen(run)) return;
  delete run.timers[timerId];
  recordExternalEvents(engine, run, [
    pending(engine, E.EVENT_TYPE_TIMER_FIRED, 'timerFiredEventAttributes', {
      timerId,
      startedEventId: timer.startedEventId,
    }),
  ]);
}

export function cancelTimer(
  engine: Engine,
  run: RunState,
  attributes: Message,
  completedEventId: number,
  identity: string
): void {
  const timerId = String(attributes.timerId);
  let startedEventId = run.timers[timerId]?.startedEventId;
  if (startedEventId === undefined) {
    // The timer fired while this task ran: its buffered TimerFired is dropped, as the real server does.
    startedEventId = dropBufferedFire(run, timerId);
  }
  delete run.timers[timerId];
  engine.scheduler.clear(timerKey(run.runId, timerId));
  appendEvent(engine, run, E.EVENT_TYPE_TIMER_CANCELED, 'timerCanceledEventAttributes', {
    timerId,
    startedEventId,
    workflowTaskCompletedEventId: completedEventId,
    identity,
  });
}

function dropBufferedFire(run: RunState, timerId: string): number | undefined {
  for (let i = 0; i < run.buffered.length; i++) {
    const event = run.buffered[i]?.[0];
    if (event?.eventType === E.EVENT_TYPE_TIMER_FIRED && event.attributes.timerId === timerId) {
      run.buffered.splice(i, 1);
      return Number(event.attributes.startedEventId);
    }
  }
  return undefined;
}
