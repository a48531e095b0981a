import type { temporal } from '@temporalio/proto';
import { epochMs } from '../../config/temporal-timestamp';
import { activityEntries, entriesByEvent, type ActivityEntry } from './entries';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** A step of a history with when it started (epoch ms) and how long it took, as far as history says. */
export interface TimedStep {
  entry: ActivityEntry;
  atMs: number | null;
  durationMs: number | null;
}

/**
 * A local activity is recorded once, when its workflow task completes, after every local activity of that task:
 * its marker's time is the task's end. It started after the task started and after the local activity before it
 * in that task completed, so that is its time. A step of a step run carries its own start (entries.ts); any other
 * step is timed by its schedule.
 */
function stepTimes(entry: ActivityEntry, localStart: number | null): Omit<TimedStep, 'entry'> {
  const from = entry.local ? (entry.startedAt ?? localStart) : (entry.startedAt ?? entry.scheduledAt);
  const atMs = entry.local || entry.inRun ? from : entry.scheduledAt;
  return { atMs, durationMs: from !== null && entry.closedAt !== null ? Math.max(0, entry.closedAt - from) : null };
}

/**
 * The steps of a history by the event that recorded them (a step run's marker: several, in run order), each timed
 * as it ran: the console's turn story and `convengine history` tell the same times.
 */
export function timedSteps(events: HistoryEvent[]): Map<number, TimedStep[]> {
  const byEvent = entriesByEvent(activityEntries(events));
  const timed = new Map<number, TimedStep[]>();
  let localStart: number | null = null;
  for (const event of events) {
    if (event.workflowTaskStartedEventAttributes) localStart = epochMs(event.eventTime);
    const id = Number(event.eventId ?? 0);
    const steps = byEvent.get(id);
    if (!steps) continue;
    timed.set(
      id,
      steps.map((entry) => {
        const times = stepTimes(entry, localStart);
        if (entry.local) localStart = entry.closedAt;
        return { entry, ...times };
      })
    );
  }
  return timed;
}
