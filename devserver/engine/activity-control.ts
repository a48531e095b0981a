/**
 * Operator control of a pending activity (PauseActivity, UnpauseActivity, ResetActivity), with the
 * real server's semantics: a pause stops new attempts at once and reaches a running attempt at its
 * next heartbeat (`activityPaused`: the SDK cancels it, and it fails with `ActivityPause`); unpause
 * queues the next attempt now; reset sets the attempt back to 1, unpauses unless `keepPaused`, and
 * reaches a running attempt as `activityReset`. None of this writes history events.
 */
import { invalidArgument, notFound, workflowAlreadyCompleted } from '../errors';
import { durationMs } from '../proto/time';
import type { Duration, Message, WorkflowExecutionRef } from '../proto/types';
import { armActivity, enqueueActivity } from './activities';
import type { Engine } from './engine';
import { activityById, isOpen, type ActivityState, type RunState } from './state';

interface ActivitySelector {
  execution?: WorkflowExecutionRef;
  identity?: string;
  id?: string;
  type?: string;
}

export interface PauseActivityRequest extends ActivitySelector {
  reason?: string;
}

export interface UnpauseActivityRequest extends ActivitySelector {
  unpauseAll?: boolean;
  resetAttempts?: boolean;
  resetHeartbeat?: boolean;
  jitter?: Duration;
}

export interface ResetActivityRequest extends ActivitySelector {
  matchAll?: boolean;
  resetHeartbeat?: boolean;
  keepPaused?: boolean;
  jitter?: Duration;
}

/**
 * Queues the activity's next attempt now (PauseActivity's unpause, ResetActivity), or after a
 * random `jitterMs`, as the real server regenerates its retry task. A running attempt is left alone.
 */
function scheduleAttemptNow(engine: Engine, run: RunState, activity: ActivityState, jitterMs: number): void {
  if (activity.stage === 'STARTED' || activity.paused) return;
  const delay = jitterMs > 0 ? Math.floor(Math.random() * jitterMs) : 0;
  activity.attemptScheduledAt = engine.now() + delay;
  activity.stage = delay > 0 ? 'BACKOFF' : 'SCHEDULED';
  engine.touch(run);
  armActivity(engine, run, activity);
  if (activity.stage === 'SCHEDULED') enqueueActivity(engine, run, activity);
}

/** The activities a request names: by ID, by type, or all of them. */
function select(
  engine: Engine,
  request: ActivitySelector,
  all: boolean
): { run: RunState; activities: ActivityState[] } {
  const run = engine.requireRun(request.execution);
  if (!isOpen(run)) throw workflowAlreadyCompleted();
  const pending = Object.values(run.activities);
  let activities: ActivityState[];
  if (request.id) activities = [activityById(run, request.id)].filter((a): a is ActivityState => a !== undefined);
  else if (request.type) activities = pending.filter((a) => a.activityType === request.type);
  else if (all) activities = pending;
  else throw invalidArgument('Either activity id or activity type must be provided.');
  if (activities.length === 0) throw notFound('activity not found');
  return { run, activities };
}

export function pauseActivity(engine: Engine, request: PauseActivityRequest): Message {
  const { run, activities } = select(engine, request, false);
  engine.transact(() => {
    for (const activity of activities) {
      activity.paused ??= { at: engine.now(), identity: request.identity, reason: request.reason };
    }
    engine.touch(run);
  });
  return {};
}

export function unpauseActivity(engine: Engine, request: UnpauseActivityRequest): Message {
  const { run, activities } = select(engine, request, request.unpauseAll === true);
  engine.transact(() => {
    for (const activity of activities.filter((a) => a.paused)) {
      activity.paused = undefined;
      if (request.resetAttempts) activity.attempt = 1;
      if (request.resetHeartbeat) {
        activity.heartbeatDetails = undefined;
        activity.lastHeartbeatAt = undefined;
      }
      scheduleAttemptNow(engine, run, activity, durationMs(request.jitter));
    }
    engine.touch(run);
  });
  return {};
}

export function resetActivity(engine: Engine, request: ResetActivityRequest): Message {
  const { run, activities } = select(engine, request, request.matchAll === true);
  engine.transact(() => {
    for (const activity of activities) {
      activity.attempt = 1;
      if (activity.stage === 'STARTED') {
        // The running attempt hears about it at its next heartbeat; its failure schedules the next one.
        activity.resetRequested = true;
        if (request.resetHeartbeat) activity.resetHeartbeats = true;
        continue;
      }
      if (activity.paused && request.keepPaused) continue;
      activity.paused = undefined;
      if (request.resetHeartbeat) {
        activity.heartbeatDetails = undefined;
        activity.lastHeartbeatAt = undefined;
      }
      scheduleAttemptNow(engine, run, activity, durationMs(request.jitter));
    }
    engine.touch(run);
  });
  return {};
}
