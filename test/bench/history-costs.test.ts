import { temporal } from '@temporalio/proto';
import { meanCosts, turnHistoryCosts } from '../../bench/history-costs';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
/** A real HistoryEvent from a plain object (ids and times as numbers). */
const event = (fields: Record<string, unknown>): HistoryEvent =>
  temporal.api.history.v1.HistoryEvent.fromObject(fields);

const at = (ms: number) => ({ seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 });
const json = (value: unknown) => ({ payloads: [{ data: new TextEncoder().encode(JSON.stringify(value)) }] });
const localMarker = (eventId: number, task: number, type: string, result?: unknown): HistoryEvent =>
  event({
    eventId,
    markerRecordedEventAttributes: {
      markerName: 'core_local_activity',
      workflowTaskCompletedEventId: task,
      details: { data: json({ activityType: type }), ...(result !== undefined ? { result: json(result) } : {}) },
    },
  });

/** One turn: start, an activity that ran 5 s on its 3rd attempt, two local activities in one task, an upsert, an update. */
const TURN: HistoryEvent[] = [
  event({ eventId: 1, workflowExecutionStartedEventAttributes: {} }),
  event({ eventId: 5, activityTaskScheduledEventAttributes: { activityType: { name: 'McpToolCall' } } }),
  event({ eventId: 6, eventTime: at(10_000), activityTaskStartedEventAttributes: { scheduledEventId: 5, attempt: 3 } }),
  event({ eventId: 7, eventTime: at(15_000), activityTaskCompletedEventAttributes: { scheduledEventId: 5 } }),
  localMarker(10, 9, 'AuditUserInput'),
  localMarker(11, 9, 'PolicyEnforcement'),
  event({ eventId: 12, upsertWorkflowSearchAttributesEventAttributes: {} }),
  event({ eventId: 13, workflowExecutionUpdateAcceptedEventAttributes: {} }),
];

describe('bench history costs', () => {
  it('counts activities, attempts, local activities per workflow task, upserts, updates and heartbeats', () => {
    expect(turnHistoryCosts(TURN)).toMatchObject({
      events: 8,
      activities: 1,
      activityAttempts: 3,
      localActivities: 2,
      localSteps: 2,
      regularSteps: 1,
      localActivityTasks: 1,
      searchAttributeUpserts: 1,
      updates: 1,
      heartbeats: 2,
      // start + 3 attempts + 1 task of local activities + 1 upsert + 1 update + 2 heartbeats
      billableActions: 9,
    });
  });

  it('attributes every event of an activity to its type, markers to the local activity type', () => {
    const costs = turnHistoryCosts(TURN);
    expect([...costs.bytesByStep.keys()].sort()).toEqual(
      ['(workflow events)', 'AuditUserInput', 'McpToolCall', 'PolicyEnforcement'].sort()
    );
    const total = [...costs.bytesByStep.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(0);
    expect(meanCosts([costs, costs]).bytesByStep[0]?.[1]).toBe(Math.max(...costs.bytesByStep.values()));
  });

  it('counts the steps a step run ran as steps, the run as one local activity', () => {
    const ran = ['Rules', 'ResponseResolution', 'Memory'].map((name) => ({ name, callKey: name, durationMs: 1 }));
    const costs = turnHistoryCosts([
      localMarker(3, 2, 'LocalSteps', { ran, handedOver: null }),
      localMarker(4, 2, 'PipelineEnd', {}),
    ]);
    expect(costs).toMatchObject({ localActivities: 2, localSteps: 4, localActivityTasks: 1 });
    expect(meanCosts([costs]).localSteps).toBe(4);
  });

  it('counts the steps a regular step run ran as steps, the run as one activity attempt', () => {
    const ran = ['PersistConversation', 'PipelineEnd'].map((name) => ({ name, callKey: name, durationMs: 1 }));
    const costs = turnHistoryCosts([
      event({ eventId: 5, activityTaskScheduledEventAttributes: { activityType: { name: 'RegularSteps' } } }),
      event({ eventId: 6, activityTaskStartedEventAttributes: { scheduledEventId: 5, attempt: 1 } }),
      event({ eventId: 7, activityTaskCompletedEventAttributes: { scheduledEventId: 5, result: json({ ran }) } }),
    ]);
    expect(costs).toMatchObject({ activities: 1, activityAttempts: 1, regularSteps: 2, localSteps: 0 });
  });
});
