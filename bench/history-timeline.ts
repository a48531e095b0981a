import type { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/**
 * Where one durable turn's time went, read off its history's timestamps: the workflow tasks (the
 * worker running workflow code; a task that ran local activities includes their work), the regular
 * activities from start to close by type, and the rest of the span, when neither ran (the server
 * handing tasks over, the worker's polls). Eager activities start before the workflow task that
 * scheduled them is recorded as completed, so the phases overlap and the rest is what their union
 * leaves out.
 */
export interface TurnTimeline {
  spanMs: number;
  /** Workflow tasks that ran no local activity: pure orchestration. */
  workflowTasks: number;
  workflowTaskMs: number;
  /** Workflow tasks that ran local activities, their work included. */
  localActivityTasks: number;
  localActivityTaskMs: number;
  activityMsByType: Map<string, number>;
  /** The span's time outside every workflow task and activity. */
  betweenMs: number;
}

const num = (v: unknown) => Number(v ?? 0);
const timeMs = (e: HistoryEvent) => num(e.eventTime?.seconds) * 1000 + num(e.eventTime?.nanos) / 1e6;

/** Total length of the union of [start, end] intervals. */
function unionMs(intervals: [number, number][]): number {
  let total = 0;
  let end = -Infinity;
  for (const [s, e] of [...intervals].sort((a, b) => a[0] - b[0])) {
    if (e <= end) continue;
    total += e - Math.max(s, end);
    end = e;
  }
  return total;
}

export function turnTimeline(events: readonly HistoryEvent[]): TurnTimeline {
  const first = events[0];
  const last = events[events.length - 1];
  const timeline: TurnTimeline = {
    spanMs: first && last ? timeMs(last) - timeMs(first) : 0,
    workflowTasks: 0,
    workflowTaskMs: 0,
    localActivityTasks: 0,
    localActivityTaskMs: 0,
    activityMsByType: new Map(),
    betweenMs: 0,
  };
  const started = new Map<number, HistoryEvent>();
  const typeByScheduled = new Map<number, string>();
  const tasksWithMarkers = new Set(
    events.flatMap((e) => e.markerRecordedEventAttributes?.workflowTaskCompletedEventId ?? []).map(num)
  );
  const intervals: [number, number][] = [];
  for (const e of events) {
    const id = num(e.eventId);
    if (e.workflowTaskStartedEventAttributes) started.set(id, e);
    const activityType = e.activityTaskScheduledEventAttributes?.activityType?.name;
    if (activityType) typeByScheduled.set(id, activityType);
    const activityStarted = e.activityTaskStartedEventAttributes;
    if (activityStarted) started.set(id, e);
    const task =
      e.workflowTaskCompletedEventAttributes ??
      e.workflowTaskFailedEventAttributes ??
      e.workflowTaskTimedOutEventAttributes;
    const taskStart = task && 'startedEventId' in task ? started.get(num(task.startedEventId)) : undefined;
    if (taskStart) {
      const ms = timeMs(e) - timeMs(taskStart);
      intervals.push([timeMs(taskStart), timeMs(e)]);
      if (tasksWithMarkers.has(id)) {
        timeline.localActivityTasks += 1;
        timeline.localActivityTaskMs += ms;
      } else {
        timeline.workflowTasks += 1;
        timeline.workflowTaskMs += ms;
      }
    }
    const closed =
      e.activityTaskCompletedEventAttributes ??
      e.activityTaskFailedEventAttributes ??
      e.activityTaskTimedOutEventAttributes;
    const activityStart = closed?.startedEventId ? started.get(num(closed.startedEventId)) : undefined;
    if (closed && activityStart) {
      const type = typeByScheduled.get(num(closed.scheduledEventId)) ?? '?';
      timeline.activityMsByType.set(
        type,
        (timeline.activityMsByType.get(type) ?? 0) + timeMs(e) - timeMs(activityStart)
      );
      intervals.push([timeMs(activityStart), timeMs(e)]);
    }
  }
  timeline.betweenMs = Math.max(0, timeline.spanMs - unionMs(intervals));
  return timeline;
}

/** Per-turn means of a set of turns' timelines; activity types by time, longest first. */
export function meanTimeline(turns: readonly TurnTimeline[]) {
  const n = Math.max(1, turns.length);
  const avg = (f: (t: TurnTimeline) => number) => turns.reduce((sum, t) => sum + f(t), 0) / n;
  const byType = new Map<string, number>();
  for (const t of turns)
    for (const [type, ms] of t.activityMsByType) byType.set(type, (byType.get(type) ?? 0) + ms / n);
  return {
    spanMs: avg((t) => t.spanMs),
    workflowTasks: avg((t) => t.workflowTasks),
    workflowTaskMs: avg((t) => t.workflowTaskMs),
    localActivityTasks: avg((t) => t.localActivityTasks),
    localActivityTaskMs: avg((t) => t.localActivityTaskMs),
    activityMsByType: [...byType.entries()].sort((a, b) => b[1] - a[1]),
    betweenMs: avg((t) => t.betweenMs),
  };
}

export type MeanTimeline = ReturnType<typeof meanTimeline>;
