import { temporal } from '@temporalio/proto';
import { meanTimeline, turnTimeline } from '../../bench/history-timeline';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const event = (fields: Record<string, unknown>): HistoryEvent =>
  temporal.api.history.v1.HistoryEvent.fromObject(fields);
const at = (ms: number) => ({ seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 });

/**
 * A turn over 100 ms: a first workflow task (0–10) that ran a local activity and scheduled an eager
 * activity, which ran 8–40 (overlapping the task); a second task 45–50; a regular activity 52–90;
 * the last task 93–97; completion at 100. Union of phases: 0–40, 45–50, 52–90, 93–97 = 87 ms.
 */
const TURN: HistoryEvent[] = [
  event({ eventId: 1, eventTime: at(0), workflowExecutionStartedEventAttributes: {} }),
  event({ eventId: 3, eventTime: at(0), workflowTaskStartedEventAttributes: { scheduledEventId: 2 } }),
  event({ eventId: 4, eventTime: at(10), workflowTaskCompletedEventAttributes: { startedEventId: 3 } }),
  event({ eventId: 5, eventTime: at(10), markerRecordedEventAttributes: { workflowTaskCompletedEventId: 4 } }),
  event({ eventId: 6, eventTime: at(10), activityTaskScheduledEventAttributes: { activityType: { name: 'McpPlan' } } }),
  event({ eventId: 7, eventTime: at(8), activityTaskStartedEventAttributes: { scheduledEventId: 6 } }),
  event({
    eventId: 8,
    eventTime: at(40),
    activityTaskCompletedEventAttributes: { scheduledEventId: 6, startedEventId: 7 },
  }),
  event({ eventId: 10, eventTime: at(45), workflowTaskStartedEventAttributes: { scheduledEventId: 9 } }),
  event({ eventId: 11, eventTime: at(50), workflowTaskCompletedEventAttributes: { startedEventId: 10 } }),
  event({
    eventId: 12,
    eventTime: at(50),
    activityTaskScheduledEventAttributes: { activityType: { name: 'RegularSteps' } },
  }),
  event({ eventId: 13, eventTime: at(52), activityTaskStartedEventAttributes: { scheduledEventId: 12 } }),
  event({
    eventId: 14,
    eventTime: at(90),
    activityTaskFailedEventAttributes: { scheduledEventId: 12, startedEventId: 13 },
  }),
  event({ eventId: 16, eventTime: at(93), workflowTaskStartedEventAttributes: { scheduledEventId: 15 } }),
  event({ eventId: 17, eventTime: at(97), workflowTaskCompletedEventAttributes: { startedEventId: 16 } }),
  event({ eventId: 18, eventTime: at(100), workflowExecutionCompletedEventAttributes: {} }),
];

describe('bench history timeline', () => {
  it('splits a turn into workflow tasks, tasks with local activities, activities by type and the time between', () => {
    const t = turnTimeline(TURN);
    expect(t).toMatchObject({
      spanMs: 100,
      workflowTasks: 2,
      workflowTaskMs: 9,
      localActivityTasks: 1,
      localActivityTaskMs: 10,
      betweenMs: 13,
    });
    expect([...t.activityMsByType]).toEqual([
      ['McpPlan', 32],
      ['RegularSteps', 38],
    ]);
  });

  it('averages per turn and orders activity types by time', () => {
    const t = turnTimeline(TURN);
    const quiet = turnTimeline(TURN.slice(0, 4));
    const mean = meanTimeline([t, quiet]);
    expect(mean.workflowTasks).toBe(1);
    expect(mean.localActivityTasks).toBe(1);
    expect(mean.activityMsByType).toEqual([
      ['RegularSteps', 19],
      ['McpPlan', 16],
    ]);
    expect(mean.spanMs).toBe(55);
  });

  it('is empty for an empty history', () => {
    expect(turnTimeline([])).toMatchObject({ spanMs: 0, workflowTasks: 0, betweenMs: 0 });
  });
});
