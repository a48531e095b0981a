import { temporal } from '@temporalio/proto';
import { HEARTBEAT_INTERVAL_MS } from '../activities/runtime/heartbeat';
import { isStepRunType } from '../core/turn/step-runs';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The marker sdk-core records for each local activity. */
const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

/**
 * What one turn's history holds and what it would cost: bytes by step (activity type), regular and
 * local activities, and an estimate of billable actions in Temporal Cloud terms — the workflow start,
 * each activity attempt, each search-attribute upsert, each update, each heartbeat that reaches the
 * server, and one action for all the local activities of one workflow task.
 */
export interface TurnHistoryCosts {
  events: number;
  bytesByStep: Map<string, number>;
  activities: number;
  activityAttempts: number;
  localActivities: number;
  /** Steps the local activities ran: one each, or the steps a step run (LocalSteps) ran. */
  localSteps: number;
  /** Steps the regular activities ran: one each, or the steps a step run (RegularSteps) ran. */
  regularSteps: number;
  /** Workflow tasks that ran at least one local activity. */
  localActivityTasks: number;
  searchAttributeUpserts: number;
  updates: number;
  /** Estimated: activities beat every HEARTBEAT_INTERVAL_MS while they run (heartbeats are not in history). */
  heartbeats: number;
  billableActions: number;
}

const eventBytes = (event: HistoryEvent) => temporal.api.history.v1.HistoryEvent.encode(event).finish().length;
const num = (v: unknown) => Number(v ?? 0);
const timeMs = (e: HistoryEvent | undefined) =>
  e?.eventTime ? num(e.eventTime.seconds) * 1000 + num(e.eventTime.nanos) / 1e6 : NaN;

/** The scheduled event an activity event belongs to (started, completed, failed, timed out, canceled). */
function scheduledIdOf(e: HistoryEvent): number | null {
  const attrs =
    e.activityTaskStartedEventAttributes ??
    e.activityTaskCompletedEventAttributes ??
    e.activityTaskFailedEventAttributes ??
    e.activityTaskTimedOutEventAttributes ??
    e.activityTaskCanceledEventAttributes;
  return attrs ? num(attrs.scheduledEventId) : null;
}

/** A JSON payload's object, read without the data converter; {} when it is no JSON object. */
function jsonObject(data: Uint8Array | null | undefined): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(data ?? new Uint8Array()));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function jsonDetail(
  marker: temporal.api.history.v1.IMarkerRecordedEventAttributes,
  key: string
): Record<string, unknown> {
  return jsonObject(marker.details?.[key]?.payloads?.[0]?.data);
}

/** The local activity's type from its marker, read without the data converter (JSON payload). */
function localActivityType(marker: temporal.api.history.v1.IMarkerRecordedEventAttributes): string {
  const data = jsonDetail(marker, 'data');
  return String(data['activity_type'] ?? data['activityType'] ?? 'local activity');
}

/** The steps a step run ran (core/turn/step-runs.ts), from its result; one for any other activity. */
function stepsRun(type: string, result: () => Record<string, unknown>): number {
  const ran = isStepRunType(type) ? result()['ran'] : undefined;
  return Array.isArray(ran) ? Math.max(1, ran.length) : 1;
}

/** A completed activity's JSON result, read without the data converter. */
function completedResult(e: HistoryEvent): Record<string, unknown> {
  return jsonObject(e.activityTaskCompletedEventAttributes?.result?.payloads?.[0]?.data);
}

/** What the events read so far add up to. */
interface Tally {
  typeByScheduled: Map<number, string>;
  startedByScheduled: Map<number, HistoryEvent>;
  bytesByStep: Map<string, number>;
  localTasks: Set<number>;
  costs: Pick<
    TurnHistoryCosts,
    | 'activityAttempts'
    | 'localActivities'
    | 'localSteps'
    | 'regularSteps'
    | 'searchAttributeUpserts'
    | 'updates'
    | 'heartbeats'
  >;
}

function addBytes(tally: Tally, step: string, e: HistoryEvent): void {
  tally.bytesByStep.set(step, (tally.bytesByStep.get(step) ?? 0) + eventBytes(e));
}

/** An event of the regular activity scheduled as `owner`: an attempt started, or one closed. */
function tallyActivityEvent(tally: Tally, e: HistoryEvent, owner: number): void {
  const { costs } = tally;
  addBytes(tally, tally.typeByScheduled.get(owner) ?? '?', e);
  if (e.activityTaskStartedEventAttributes) {
    tally.startedByScheduled.set(owner, e);
    costs.activityAttempts += Math.max(1, num(e.activityTaskStartedEventAttributes.attempt));
  } else {
    const runMs = timeMs(e) - timeMs(tally.startedByScheduled.get(owner));
    if (Number.isFinite(runMs)) costs.heartbeats += Math.floor(runMs / HEARTBEAT_INTERVAL_MS);
    costs.regularSteps += stepsRun(tally.typeByScheduled.get(owner) ?? '?', () => completedResult(e));
  }
}

function tallyEvent(tally: Tally, e: HistoryEvent): void {
  const { costs } = tally;
  const scheduled = e.activityTaskScheduledEventAttributes;
  const marker = e.markerRecordedEventAttributes;
  const owner = scheduledIdOf(e);
  if (scheduled) {
    tally.typeByScheduled.set(num(e.eventId), scheduled.activityType?.name ?? '?');
    addBytes(tally, scheduled.activityType?.name ?? '?', e);
  } else if (owner !== null) {
    tallyActivityEvent(tally, e, owner);
  } else if (marker?.markerName === LOCAL_ACTIVITY_MARKER) {
    const type = localActivityType(marker);
    costs.localActivities += 1;
    costs.localSteps += stepsRun(type, () => jsonDetail(marker, 'result'));
    tally.localTasks.add(num(marker.workflowTaskCompletedEventId));
    addBytes(tally, type, e);
  } else {
    if (e.upsertWorkflowSearchAttributesEventAttributes) costs.searchAttributeUpserts += 1;
    if (e.workflowExecutionUpdateAcceptedEventAttributes) costs.updates += 1;
    addBytes(tally, '(workflow events)', e);
  }
}

export function turnHistoryCosts(events: readonly HistoryEvent[]): TurnHistoryCosts {
  const tally: Tally = {
    typeByScheduled: new Map(),
    startedByScheduled: new Map(),
    bytesByStep: new Map(),
    localTasks: new Set(),
    costs: {
      activityAttempts: 0,
      localActivities: 0,
      localSteps: 0,
      regularSteps: 0,
      searchAttributeUpserts: 0,
      updates: 0,
      heartbeats: 0,
    },
  };
  for (const e of events) tallyEvent(tally, e);
  const { costs, localTasks } = tally;
  const billableActions =
    1 + costs.activityAttempts + localTasks.size + costs.searchAttributeUpserts + costs.updates + costs.heartbeats;
  return {
    events: events.length,
    bytesByStep: tally.bytesByStep,
    activities: tally.typeByScheduled.size,
    localActivityTasks: localTasks.size,
    billableActions,
    ...costs,
  };
}

/** Per-turn means of a set of turns' costs; bytes by step sorted largest first. */
export function meanCosts(turns: readonly TurnHistoryCosts[]) {
  const n = Math.max(1, turns.length);
  const avg = (f: (t: TurnHistoryCosts) => number) => turns.reduce((sum, t) => sum + f(t), 0) / n;
  const steps = new Map<string, number>();
  for (const t of turns) for (const [step, bytes] of t.bytesByStep) steps.set(step, (steps.get(step) ?? 0) + bytes / n);
  return {
    bytesByStep: [...steps.entries()].sort((a, b) => b[1] - a[1]),
    activities: avg((t) => t.activities),
    activityAttempts: avg((t) => t.activityAttempts),
    localActivities: avg((t) => t.localActivities),
    localSteps: avg((t) => t.localSteps),
    regularSteps: avg((t) => t.regularSteps),
    localActivityTasks: avg((t) => t.localActivityTasks),
    searchAttributeUpserts: avg((t) => t.searchAttributeUpserts),
    updates: avg((t) => t.updates),
    heartbeats: avg((t) => t.heartbeats),
    billableActions: avg((t) => t.billableActions),
  };
}

export type MeanHistoryCosts = ReturnType<typeof meanCosts>;
