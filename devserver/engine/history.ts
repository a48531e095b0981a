/**
 * The event writer: the only place that appends to a run's history. Event IDs stay contiguous,
 * task IDs increase, each event is encoded once and persisted as it is written.
 */
import { encodeMessage, protoType } from '../proto/codec';
import { msToTimestamp } from '../proto/time';
import type { EventType, HistoryEvent } from '../proto/types';
import type { Engine } from './engine';
import { holdsDecodedHistory, nextEventId, type PendingEvent, type RunState } from './state';

const HISTORY_EVENT = protoType('temporal.api.history.v1.HistoryEvent');

export type { PendingEvent };

/**
 * In a buffered pair (ActivityTaskStarted + its completion) the completion refers to the Started
 * event's ID, which is only known when the pair is written.
 */
export const STARTED_EVENT_PLACEHOLDER = -1;

export function pending(
  engine: Engine,
  eventType: EventType,
  key: `${string}EventAttributes`,
  attributes: Record<string, unknown>,
  at = engine.now()
): PendingEvent {
  return { eventType, key, attributes, at };
}

export function historyTopic(runId: string): string {
  return `history:${runId}`;
}

/** Notified once, when the run closes. */
export function closedTopic(runId: string): string {
  return `closed:${runId}`;
}

export function materialize(engine: Engine, eventId: number, event: PendingEvent): HistoryEvent {
  const userMetadata = engine.commandMetadata;
  engine.commandMetadata = null;
  return {
    eventId,
    eventTime: msToTimestamp(event.at),
    eventType: event.eventType,
    taskId: engine.nextTaskId(),
    ...(userMetadata ? { userMetadata } : {}),
    [event.key]: event.attributes,
  } as HistoryEvent;
}

export function encodeEvent(event: HistoryEvent): Buffer {
  return encodeMessage(HISTORY_EVENT, event);
}

/** Writes an already materialized event (e.g. a transient WFT event that became permanent). */
export function appendMaterialized(engine: Engine, run: RunState, event: HistoryEvent): HistoryEvent {
  if (event.eventId !== nextEventId(run)) {
    throw new Error(`history out of order: event ${event.eventId} appended at ${nextEventId(run)}`);
  }
  const encoded = encodeEvent(event);
  if (holdsDecodedHistory(run)) run.history.push(event);
  run.encodedHistory.push(encoded);
  run.historySizeBytes += encoded.length;
  engine.stats.eventsWritten++;
  engine.store?.recordEvent(run.runId, encoded);
  engine.touch(run);
  engine.notify(historyTopic(run.runId));
  return event;
}

export function appendEvent(
  engine: Engine,
  run: RunState,
  eventType: EventType,
  key: `${string}EventAttributes`,
  attributes: Record<string, unknown>
): HistoryEvent {
  return appendMaterialized(
    engine,
    run,
    materialize(engine, nextEventId(run), pending(engine, eventType, key, attributes))
  );
}

/** Writes a group of pending events in order, resolving the Started-event placeholder. */
export function appendGroup(engine: Engine, run: RunState, group: readonly PendingEvent[]): HistoryEvent[] {
  const written: HistoryEvent[] = [];
  for (const event of group) {
    const first = written[0];
    if (first && event.attributes.startedEventId === STARTED_EVENT_PLACEHOLDER) {
      event.attributes.startedEventId = first.eventId;
    }
    written.push(appendMaterialized(engine, run, materialize(engine, nextEventId(run), event)));
  }
  return written;
}

/** Writes the events buffered while a workflow task was running. Returns true if there were any. */
export function flushBuffered(engine: Engine, run: RunState): boolean {
  if (run.buffered.length === 0) return false;
  const groups = run.buffered;
  run.buffered = [];
  for (const group of groups) appendGroup(engine, run, group);
  return true;
}

export function eventAttributes(event: HistoryEvent | undefined): Record<string, unknown> | undefined {
  if (!event) return undefined;
  for (const key in event) {
    if (key.endsWith('EventAttributes')) return event[key as `${string}EventAttributes`];
  }
  return undefined;
}
