import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { activityEntries, entriesByEvent, handoffNote, type ActivityEntry } from '../../api/history/entries';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

function timeOf(event: HistoryEvent | undefined): Date | null {
  const t = event?.eventTime;
  if (!t) return null;
  return new Date(Number(t.seconds ?? 0) * 1000 + Math.floor(Number(t.nanos ?? 0) / 1e6));
}

function decode(payload: temporal.api.common.v1.IPayload | null | undefined): unknown {
  return payload ? defaultPayloadConverter.fromPayload(payload as never) : undefined;
}

/** How the step ran: alone (regular or local), or in a step run, local or regular, which a regular step leads. */
function kindOf(entry: ActivityEntry): string {
  if (!entry.inRun) return entry.local ? ' (local)' : '';
  if (entry.local) return ' (local, in a step run)';
  return entry.leadsRun ? ' (leads a regular step run)' : ' (in a regular step run)';
}

function activityLine(entry: ActivityEntry, events: Map<number, HistoryEvent>, start: Date | null): string {
  // A step of a run has its own start, timed back from the run's end; any other step its scheduled time.
  const at =
    entry.inRun && entry.startedAt !== null ? entry.startedAt : timeOf(events.get(entry.scheduledEventId))?.getTime();
  const offset = at !== undefined && start ? `+${((at - start.getTime()) / 1000).toFixed(3)}s` : '';
  const kind = kindOf(entry);
  const handoff = handoffNote(entry);
  if (handoff !== null) return `${offset.padStart(10)}  ${entry.type}${kind}  → ${handoff}`;
  const attempt = entry.attempt && entry.attempt > 1 ? ` attempt ${entry.attempt}` : '';
  const failure = entry.failure
    ? ` ${entry.failure.type ?? 'failure'}${entry.failure.nonRetryable ? ' (non-retryable)' : ''}: ${entry.failure.message}`
    : '';
  const summary = entry.summary && entry.summary !== entry.type ? ` — ${entry.summary}` : '';
  return `${offset.padStart(10)}  ${entry.type}${kind}${summary}  → ${entry.outcome}${attempt}${failure}`;
}

/**
 * An accepted update's name. An update reapplied by `temporal workflow reset` is accepted without its
 * request: its Admitted event (origin REAPPLY) holds it, the event the acceptance was sequenced after or
 * the one of the same update id.
 */
function acceptedUpdateName(event: HistoryEvent, events: Map<number, HistoryEvent>): string {
  const accepted = event.workflowExecutionUpdateAcceptedEventAttributes;
  const named = accepted?.acceptedRequest?.input?.name;
  if (named) return named;
  const admitted = (e: HistoryEvent | undefined) => e?.workflowExecutionUpdateAdmittedEventAttributes?.request;
  const request =
    admitted(events.get(Number(accepted?.acceptedRequestSequencingEventId ?? 0))) ??
    [...events.values()].map(admitted).find((r) => r?.meta?.updateId === accepted?.protocolInstanceId);
  return request?.input?.name ?? '';
}

function otherLine(event: HistoryEvent, events: Map<number, HistoryEvent>): string | null {
  if (event.timerStartedEventAttributes) {
    return `timer started (${Number(event.timerStartedEventAttributes.startToFireTimeout?.seconds ?? 0)}s)`;
  }
  if (event.timerFiredEventAttributes) return 'timer fired';
  if (event.upsertWorkflowSearchAttributesEventAttributes) {
    const fields = event.upsertWorkflowSearchAttributesEventAttributes.searchAttributes?.indexedFields ?? {};
    const pairs = Object.entries(fields).map(([k, v]) => `${k}=${JSON.stringify(decode(v))}`);
    return `search attributes ${pairs.join(' ')}`;
  }
  if (event.workflowExecutionUpdateAcceptedEventAttributes) {
    return `update accepted: ${acceptedUpdateName(event, events)}`;
  }
  if (event.workflowExecutionSignaledEventAttributes) {
    return `signal: ${event.workflowExecutionSignaledEventAttributes.signalName ?? ''}`;
  }
  if (event.workflowExecutionCompletedEventAttributes) return 'workflow COMPLETED';
  if (event.workflowExecutionFailedEventAttributes) {
    return `workflow FAILED: ${event.workflowExecutionFailedEventAttributes.failure?.message ?? ''}`;
  }
  if (event.workflowExecutionTerminatedEventAttributes) return 'workflow TERMINATED';
  if (event.workflowExecutionTimedOutEventAttributes) return 'workflow TIMED_OUT';
  if (event.workflowExecutionCanceledEventAttributes) return 'workflow CANCELED';
  return null;
}

/**
 * A readable timeline of a turn's history for operators: each activity once (summary, final
 * attempt, outcome, failure), driver decisions (RecordTurnDecision), timers, search-attribute
 * upserts, updates and the close event. Works on any server's history, real Temporal included.
 */
export function formatTimeline(workflowId: string, history: HistoryEvent[]): string[] {
  const byId = new Map(history.map((e) => [Number(e.eventId ?? 0), e]));
  const start = timeOf(history[0]);
  const entries = activityEntries(history);
  const entriesOf = entriesByEvent(entries);
  const lines = [`${workflowId} — started ${start?.toISOString() ?? '?'} — ${history.length} events`];
  for (const event of history) {
    const steps = entriesOf.get(Number(event.eventId ?? 0));
    if (steps) {
      for (const entry of steps) lines.push(activityLine(entry, byId, start));
      continue;
    }
    const other = otherLine(event, byId);
    if (other) lines.push(`${''.padStart(10)}  ${other}`);
  }
  return lines;
}
