import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { claimReferenceOf, isClaimReference } from '../../db/claims/codec';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export interface ActivityEntry {
  scheduledEventId: number;
  type: string;
  /** A local activity: a marker event, which the Web UI lists by name in its own row. */
  local: boolean;
  summary: string | null;
  /** Attempt of the final try (the Started event is written when the activity closes). */
  attempt: number | null;
  outcome: 'COMPLETED' | 'FAILED' | 'TIMED_OUT' | 'CANCELED' | 'OPEN';
  failure: { type: string | null; message: string; nonRetryable: boolean } | null;
  input: unknown;
  result: unknown;
}

const num = (v: unknown): number => Number(v ?? 0);

/** A payload's value; an offloaded one (db/claims/) shows as its claim reference, not its body. */
function decode(payload: temporal.api.common.v1.IPayload | null | undefined): unknown {
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
      const summary = decode(e.userMetadata?.summary);
      entries.set(id, {
        scheduledEventId: id,
        type: scheduled.activityType?.name ?? '',
        local: false,
        summary: typeof summary === 'string' ? summary : null,
        attempt: null,
        outcome: 'OPEN',
        failure: null,
        input: decode(scheduled.input?.payloads?.[0]),
        result: undefined,
      });
      continue;
    }
    const started = e.activityTaskStartedEventAttributes;
    if (started) {
      const entry = entries.get(num(started.scheduledEventId));
      if (entry) entry.attempt = started.attempt ?? null;
    }
    closeEntry(entries, e);
    const local = localActivityEntry(e);
    if (local) entries.set(id, local);
  }
  return [...entries.values()];
}

/**
 * A local activity (conversationTurnV2's bookkeeping steps) is one marker event: sdk-core's
 * `core_local_activity` marker, its `data` detail naming the activity type and attempt, its
 * `result` detail the result. Its input is not recorded.
 */
function localActivityEntry(e: HistoryEvent): ActivityEntry | null {
  const marker = e.markerRecordedEventAttributes;
  if (!marker || marker.markerName !== 'core_local_activity') return null;
  const data = decode(marker.details?.['data']?.payloads?.[0]) as
    { activity_type?: string; attempt?: number } | undefined;
  const summary = decode(e.userMetadata?.summary);
  const failure = marker.failure;
  return {
    scheduledEventId: num(e.eventId),
    type: data?.activity_type ?? '',
    local: true,
    summary: typeof summary === 'string' ? summary : null,
    attempt: data?.attempt ?? null,
    outcome: failure ? 'FAILED' : 'COMPLETED',
    failure: failure
      ? {
          type: failure.applicationFailureInfo?.type ?? null,
          message: failure.message ?? '',
          nonRetryable: !!failure.applicationFailureInfo?.nonRetryable,
        }
      : null,
    input: undefined,
    result: decode(marker.details?.['result']?.payloads?.[0]),
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
  if (completed) {
    entry.outcome = 'COMPLETED';
    entry.result = decode(completed.result?.payloads?.[0]);
  } else if (failed) {
    entry.outcome = 'FAILED';
    const info = failed.failure?.applicationFailureInfo;
    entry.failure = {
      type: info?.type ?? null,
      message: failed.failure?.message ?? '',
      nonRetryable: !!info?.nonRetryable,
    };
  } else {
    entry.outcome = 'TIMED_OUT';
  }
}

/**
 * A local attempt of a local-first step that reached the LLM or consumer code: it wrote nothing, and
 * the regular activity right after it is the step's real run (core/turn/steps.ts, `localFirst`).
 */
export function isHandedOver(entry: ActivityEntry): boolean {
  return entry.local && entry.failure?.type === 'NEEDS_REGULAR_ACTIVITY';
}

/** The activities that ran each step: handed-over local attempts left out. */
export function stepRuns(events: HistoryEvent[]): ActivityEntry[] {
  return activityEntries(events).filter((e) => !isHandedOver(e));
}

/** Search attributes upserted by the workflow, last value wins, decoded. */
export function upsertedSearchAttributes(events: HistoryEvent[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const e of events) {
    const fields = e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {};
    for (const [name, payload] of Object.entries(fields)) out[name] = decode(payload);
  }
  return out;
}

/** conversationTurnV2's driver decisions (`LOOP_LIMIT: reason=…`), from its memo upserts, in order. */
export function decisionLog(events: HistoryEvent[]): string[] {
  let log: string[] = [];
  for (const e of events) {
    const field = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.['decisionLog'];
    const value = field ? decode(field) : undefined;
    if (Array.isArray(value)) log = value.filter((v): v is string => typeof v === 'string');
  }
  return log;
}
