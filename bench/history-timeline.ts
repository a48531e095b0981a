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

type Interval = [number, number];

/** Total length of the union of [start, end] intervals. */
function unionMs(intervals: Interval[]): number {
  let total = 0;
  let end = -Infinity;
  for (const [s, e] of [...intervals].sort((a, b) => a[0] - b[0])) {
    if (e <= end) continue;
    total += e - Math.max(s, end);
    end = e;
  }
  return total;
}

/** The [start, end] of the workflow task `e` closes (completed, failed or timed out), if it closes one. */
function workflowTaskInterval(e: HistoryEvent, started: ReadonlyMap<number, HistoryEvent>): Interval | undefined {
  const task =
    e.workflowTaskCompletedEventAttributes ??
    e.workflowTaskFailedEventAttributes ??
    e.workflowTaskTimedOutEventAttributes;
  const taskStart = task && 'startedEventId' in task ? started.get(num(task.startedEventId)) : undefined;
  return taskStart ? [timeMs(taskStart), timeMs(e)] : undefined;
}

/** The type and [start, end] of the activity attempt `e` closes, if it closes one. */
function activityInterval(
  e: HistoryEvent,
  started: ReadonlyMap<number, HistoryEvent>,
  typeByScheduled: ReadonlyMap<number, string>
): { type: string; interval: Interval } | undefined {
  const closed =
    e.activityTaskCompletedEventAttributes ??
    e.activityTaskFailedEventAttributes ??
    e.activityTaskTimedOutEventAttributes;
  const activityStart = closed?.startedEventId ? started.get(num(closed.startedEventId)) : undefined;
  if (!closed || !activityStart) return undefined;
  const type = typeByScheduled.get(num(closed.scheduledEventId)) ?? '?';
  return { type, interval: [timeMs(activityStart), timeMs(e)] };
}

function emptyTimeline(events: readonly HistoryEvent[]): TurnTimeline {
  const first = events[0];
  const last = events[events.length - 1];
  return {
    spanMs: first && last ? timeMs(last) - timeMs(first) : 0,
    workflowTasks: 0,
    workflowTaskMs: 0,
    localActivityTasks: 0,
    localActivityTaskMs: 0,
    activityMsByType: new Map(),
    betweenMs: 0,
  };
}

export function turnTimeline(events: readonly HistoryEvent[]): TurnTimeline {
  const timeline = emptyTimeline(events);
  const started = new Map<number, HistoryEvent>();
  const typeByScheduled = new Map<number, string>();
  const tasksWithMarkers = new Set(
    events.flatMap((e) => e.markerRecordedEventAttributes?.workflowTaskCompletedEventId ?? []).map(num)
  );
  const intervals: Interval[] = [];
  for (const e of events) {
    const id = num(e.eventId);
    if (e.workflowTaskStartedEventAttributes || e.activityTaskStartedEventAttributes) started.set(id, e);
    const activityType = e.activityTaskScheduledEventAttributes?.activityType?.name;
    if (activityType) typeByScheduled.set(id, activityType);
    const task = workflowTaskInterval(e, started);
    if (task) {
      const ms = task[1] - task[0];
      intervals.push(task);
      if (tasksWithMarkers.has(id)) {
        timeline.localActivityTasks += 1;
        timeline.localActivityTaskMs += ms;
      } else {
        timeline.workflowTasks += 1;
        timeline.workflowTaskMs += ms;
      }
    }
    const activity = activityInterval(e, started, typeByScheduled);
    if (activity) {
      const { type, interval } = activity;
      timeline.activityMsByType.set(type, (timeline.activityMsByType.get(type) ?? 0) + interval[1] - interval[0]);
      intervals.push(interval);
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
