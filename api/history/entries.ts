import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import {
  isStepRunFailure,
  isStepRunResult,
  isStepRunType,
  timedBackFrom,
  type StepRunEntry,
} from '../../core/turn/step-runs';
import { claimReferenceOf, isClaimReference } from '../../db/claims/codec';
import { failureOf } from './public-failure';
import { epochMs, type TemporalTimestamp } from '../../config/temporal-timestamp';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export interface ActivityEntry {
  scheduledEventId: number;
  /** The id Temporal's activity operations (reset, pause, unpause) name it by. */
  activityId: string | null;
  type: string;
  /** A local activity: a marker event, which the Web UI lists by name in its own row. */
  local: boolean;
  /** One of the steps of a step run (core/turn/step-runs.ts): its events are the run's. */
  inRun?: boolean;
  /** The first step of a step run: the one a regular run (RegularSteps) is scheduled for. */
  leadsRun?: boolean;
  summary: string | null;
  /** Attempt of the final try (the Started event is written when the activity closes). */
  attempt: number | null;
  outcome: 'COMPLETED' | 'FAILED' | 'TIMED_OUT' | 'CANCELED' | 'OPEN';
  failure: { type: string | null; message: string; nonRetryable: boolean } | null;
  input: unknown;
  result: unknown;
  /** Epoch ms: scheduled (a local activity: null, it is recorded only when it completes). */
  scheduledAt: number | null;
  /** Epoch ms of the final attempt's start (regular activities) and of the close. */
  startedAt: number | null;
  closedAt: number | null;
}

const num = (v: unknown): number => Number(v ?? 0);

/** A payload's value; an offloaded one (db/claims/) shows as its claim reference, not its body. */
export function decodePayload(payload: temporal.api.common.v1.IPayload | null | undefined): unknown {
  if (!payload) return undefined;
  if (isClaimReference(payload as never)) return { claim: claimReferenceOf(payload as never) };
  return defaultPayloadConverter.fromPayload(payload as never);
}

/** The activities of a history in schedule order, with summary, final attempt and outcome. */
export function activityEntries(events: HistoryEvent[]): ActivityEntry[] {
  const entries = new Map<number, ActivityEntry>();
  for (const e of events) {
    const id = num(e.eventId);
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) {
      const summary = decodePayload(e.userMetadata?.summary);
      entries.set(id, {
        scheduledEventId: id,
        activityId: scheduled.activityId ?? null,
        type: scheduled.activityType?.name ?? '',
        local: false,
        summary: typeof summary === 'string' ? summary : null,
        attempt: null,
        outcome: 'OPEN',
        failure: null,
        input: decodePayload(scheduled.input?.payloads?.[0]),
        result: undefined,
        scheduledAt: epochMs(e.eventTime),
        startedAt: null,
        closedAt: null,
      });
      continue;
    }
    const started = e.activityTaskStartedEventAttributes;
    if (started) {
      const entry = entries.get(num(started.scheduledEventId));
      if (entry) {
        entry.attempt = started.attempt ?? null;
        entry.startedAt = epochMs(e.eventTime);
      }
    }
    closeEntry(entries, e);
    const local = localActivityEntry(e);
    if (local) entries.set(id, local);
  }
  return [...entries.values()].flatMap(stepsOfRun);
}

/**
 * The entries by the event that recorded them. A step run's marker is several steps (stepsOfRun):
 * one event, several entries, in run order.
 */
export function entriesByEvent(entries: readonly ActivityEntry[]): Map<number, ActivityEntry[]> {
  const byEvent = new Map<number, ActivityEntry[]>();
  for (const e of entries) byEvent.set(e.scheduledEventId, [...(byEvent.get(e.scheduledEventId) ?? []), e]);
  return byEvent;
}

/** The steps a run ran, each timed back from the run's end by the durations they took (only the end is recorded). */
function ranSteps(entry: ActivityEntry, ran: StepRunEntry[], end: number | null): ActivityEntry[] {
  const timed =
    end === null
      ? ran.map((step) => ({ step, startedAt: null, closedAt: null }))
      : timedBackFrom(ran, end).map(({ step, startMs, endMs }) => ({ step, startedAt: startMs, closedAt: endMs }));
  return timed.map(({ step, startedAt, closedAt }, i) => ({
    ...entry,
    inRun: true,
    ...(i === 0 ? { leadsRun: true } : {}),
    type: step.name,
    summary: step.name,
    outcome: 'COMPLETED',
    failure: null,
    result: step.result,
    startedAt,
    closedAt,
  }));
}

/**
 * A step run (core/turn/step-runs.ts), local or regular, is read as the steps it ran, each under its
 * own name with its own result, then the step it handed over (as a handed-over local attempt: the
 * step ran next as an activity of its own) or the step that failed it: the view a history had when
 * every step was an activity of its own.
 */
function stepsOfRun(entry: ActivityEntry): ActivityEntry[] {
  if (!isStepRunType(entry.type)) return [entry];
  const last = (name: string, failure: ActivityEntry['failure'], handedOver = false): ActivityEntry => ({
    ...entry,
    ...(handedOver ? { local: true } : {}),
    inRun: true,
    type: name,
    summary: name,
    outcome: 'FAILED',
    failure,
    result: undefined,
    startedAt: entry.closedAt,
  });
  if (entry.outcome === 'COMPLETED' && isStepRunResult(entry.result)) {
    const { ran, handedOver } = entry.result;
    const steps = ranSteps(entry, ran, entry.closedAt);
    if (!handedOver) return steps;
    const failure = { type: 'NEEDS_REGULAR_ACTIVITY', message: handedOver.reason, nonRetryable: true };
    return [...steps, last(handedOver.name, failure, true)];
  }
  if (entry.outcome === 'FAILED' && isStepRunFailure(entry.result)) {
    const { ran, failedStep } = entry.result;
    return [...ranSteps(entry, ran, entry.closedAt), last(failedStep.name, entry.failure)];
  }
  return [entry];
}

/**
 * A local activity (conversationTurnV2's bookkeeping steps) is one marker event: sdk-core's
 * `core_local_activity` marker, its `data` detail naming the activity type and attempt, its
 * `result` detail the result. Its input is not recorded.
 */
function localActivityEntry(e: HistoryEvent): ActivityEntry | null {
  const marker = e.markerRecordedEventAttributes;
  if (!marker || marker.markerName !== 'core_local_activity') return null;
  const data = decodePayload(marker.details?.['data']?.payloads?.[0]) as
    { activity_type?: string; activity_id?: string; attempt?: number; complete_time?: TemporalTimestamp } | undefined;
  const summary = decodePayload(e.userMetadata?.summary);
  const failure = marker.failure;
  return {
    scheduledEventId: num(e.eventId),
    activityId: data?.activity_id ?? null,
    type: data?.activity_type ?? '',
    local: true,
    summary: typeof summary === 'string' ? summary : null,
    attempt: data?.attempt ?? null,
    outcome: failure ? 'FAILED' : 'COMPLETED',
    failure: failure ? failureOf(failure) : null,
    input: undefined,
    // A failed step run carries its progress as its failure's last detail (activities/pipeline/step-runs.ts).
    result: failure
      ? decodePayload(failure.applicationFailureInfo?.details?.payloads?.at(-1))
      : decodePayload(marker.details?.['result']?.payloads?.[0]),
    scheduledAt: null,
    startedAt: null,
    closedAt: epochMs(data?.complete_time) ?? epochMs(e.eventTime),
  };
}

function closeEntry(entries: Map<number, ActivityEntry>, e: HistoryEvent): void {
  const completed = e.activityTaskCompletedEventAttributes;
  const failed = e.activityTaskFailedEventAttributes;
  const timedOut = e.activityTaskTimedOutEventAttributes;
  const attrs = completed ?? failed ?? timedOut;
  if (!attrs) return;
  const entry = entries.get(num(attrs.scheduledEventId));
  if (!entry) return;
  entry.closedAt = epochMs(e.eventTime);
  if (completed) {
    entry.outcome = 'COMPLETED';
    entry.result = decodePayload(completed.result?.payloads?.[0]);
  } else if (failed) {
    entry.outcome = 'FAILED';
    const info = failed.failure?.applicationFailureInfo;
    entry.failure = failureOf(failed.failure ?? {});
    // A failed step run carries its progress as its failure's last detail (activities/pipeline/step-runs.ts).
    if (isStepRunType(entry.type)) entry.result = decodePayload(info?.details?.payloads?.at(-1));
  } else {
    entry.outcome = 'TIMED_OUT';
    entry.failure = failureOf(timedOut?.failure ?? { timeoutFailureInfo: {} });
  }
}

/**
 * A local attempt of a local-first step that reached the LLM or consumer code: it wrote nothing, and
 * the regular activity right after it is the step's real run (core/turn/steps.ts, `localFirst`).
 */
export function isHandedOver(entry: ActivityEntry): boolean {
  return entry.local && entry.failure?.type === 'NEEDS_REGULAR_ACTIVITY';
}

/**
 * What a handed-over local attempt did, in words (the CLI's history and the console's timeline):
 * null for any other entry. It is the handoff the local-first design expects, not a failure.
 */
export function handoffNote(entry: ActivityEntry): string | null {
  return isHandedOver(entry) ? `handed to a regular activity: ${entry.failure?.message ?? ''}` : null;
}

/** The activities that ran each step: handed-over local attempts left out. */
export function stepRuns(events: HistoryEvent[]): ActivityEntry[] {
  return activityEntries(events).filter((e) => !isHandedOver(e));
}

type IndexedFields = Record<string, temporal.api.common.v1.IPayload> | null | undefined;

/**
 * Search attributes decoded, keyed in sorted order: real Temporal sends them as a map whose order changes
 * from one read to the next, and the console compares reads of a turn to tell whether it changed.
 */
export function decodedSearchAttributes(...upserts: IndexedFields[]): Record<string, unknown> {
  const last = new Map<string, unknown>();
  for (const fields of upserts) {
    for (const [name, payload] of Object.entries(fields ?? {})) last.set(name, decodePayload(payload));
  }
  return Object.fromEntries([...last].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Search attributes upserted by the workflow, last value wins, decoded (sorted by name). */
export function upsertedSearchAttributes(events: HistoryEvent[]): Record<string, unknown> {
  return decodedSearchAttributes(
    ...events.map((e) => e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields)
  );
}

/** conversationTurnV2's driver decisions (`LOOP_LIMIT: reason=…`), from its memo upserts, in order. */
export function decisionLog(events: HistoryEvent[]): string[] {
  let log: string[] = [];
  for (const e of events) {
    const field = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.['decisionLog'];
    const value = field ? decodePayload(field) : undefined;
    if (Array.isArray(value)) log = value.filter((v): v is string => typeof v === 'string');
  }
  return log;
}
