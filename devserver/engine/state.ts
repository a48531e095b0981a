/**
 * Mutable state of one workflow run. Everything here is plain data (Buffers included) so the
 * persistence layer can snapshot it; deadlines are absolute epoch milliseconds, never timers.
 * History events are kept apart (`RunState.history`) and persisted one by one.
 */
import type {
  EventType,
  Failure,
  Header,
  HistoryEvent,
  Payload,
  Payloads,
  RetryPolicy,
  UpdateOutcome,
  UpdateRequest,
  WorkflowExecutionStatus,
} from '../proto/types';
import { decodeMessage, protoType } from '../proto/codec';

const HISTORY_EVENT = protoType('temporal.api.history.v1.HistoryEvent');

/** An event not yet written: its ID is assigned when it reaches history. */
export interface PendingEvent {
  eventType: EventType;
  key: `${string}EventAttributes`;
  attributes: Record<string, unknown>;
  at: number;
}

export interface WorkflowTaskState {
  /** Increases for every WFT of the run; task tokens and queued tasks carry it. */
  seq: number;
  attempt: number;
  /** 0 while a transient attempt (>= 2) has not been dispatched yet. */
  scheduledEventId: number;
  /** 0 until a poller takes the task. */
  startedEventId: number;
  /** Queue the task currently waits on: the sticky queue or the run's normal queue. */
  queue: string;
  sticky: boolean;
  scheduledAt: number;
  /** The first WFT of a delayed start, or a backed-off retry, is queued at this time. */
  notBefore?: number;
  startedAt?: number;
  stickyDeadline?: number;
  startDeadline?: number;
  identity?: string;
  /** Attempts >= 2 keep their Scheduled/Started events out of history until they complete. */
  transientEvents?: HistoryEvent[];
  /**
   * Scheduled only to carry an update (the real server's speculative workflow task): its events stay
   * transient, and a completion that only rejects updates drops it, leaving history as it was.
   */
  speculative?: boolean;
  /** Updates and queries handed to the worker with this task. */
  deliveredUpdateIds: string[];
  deliveredQueryIds: string[];
}

export type ActivityStage = 'SCHEDULED' | 'STARTED' | 'BACKOFF';

export interface ActivityState {
  scheduledEventId: number;
  activityId: string;
  activityType: string;
  taskQueue: string;
  header?: Header;
  input?: Payloads;
  scheduleToCloseMs: number;
  scheduleToStartMs: number;
  startToCloseMs: number;
  heartbeatMs: number;
  retryPolicy: Required<RetryPolicy>;
  priority?: unknown;
  stage: ActivityStage;
  attempt: number;
  scheduledAt: number;
  attemptScheduledAt: number;
  startedAt?: number;
  lastHeartbeatAt?: number;
  heartbeatDetails?: Payloads;
  lastFailure?: Failure;
  lastIdentity?: string;
  cancelRequested: boolean;
  cancelRequestedEventId?: number;
  /** Set by PauseActivity: no new attempt is dispatched, and the running one hears PAUSED at its next heartbeat. */
  paused?: ActivityPause;
  /** Set by ResetActivity on a running attempt: its next heartbeat answers `activityReset`. */
  resetRequested?: boolean;
  /** Heartbeat details are dropped when the running attempt ends (ResetActivity with resetHeartbeat). */
  resetHeartbeats?: boolean;
}

export interface ActivityPause {
  at: number;
  identity?: string;
  reason?: string;
}

export interface TimerState {
  timerId: string;
  startedEventId: number;
  deadline: number;
}

export type UpdateStage = 'ADMITTED' | 'ACCEPTED' | 'COMPLETED';

export interface UpdateState {
  updateId: string;
  request: UpdateRequest;
  stage: UpdateStage;
  /** True while the request sits in a dispatched WFT that has not completed yet. */
  delivered: boolean;
  acceptedEventId?: number;
  outcome?: UpdateOutcome;
  /** Set when the update was aborted before it was accepted: its callers get the matching error (updates.ts). */
  aborted?: UpdateAbort;
}

/**
 * Why an update was aborted before it was accepted: its run closed, a new run (continue-as-new, retry) follows, or
 * the server refused the completion of the workflow task that carried it.
 */
export type UpdateAbort = 'RUN_CLOSED' | 'RUN_CONTINUING' | 'WORKFLOW_TASK_FAILED';

export interface StickyState {
  queue: string;
  scheduleToStartMs: number;
}

export interface RunState {
  workflowId: string;
  runId: string;
  firstExecutionRunId: string;
  workflowType: string;
  taskQueue: string;
  /** Creation order across all runs; the latest run of a workflow ID is its current run. */
  createdSeq: number;
  status: WorkflowExecutionStatus;
  startTime: number;
  executionTime: number;
  closeTime?: number;
  startRequestId: string;
  /** Recent request IDs (signals, cancels) for dedupe; bounded. */
  requestIds: string[];
  workflowTaskTimeoutMs: number;
  runTimeoutMs: number;
  executionTimeoutMs: number;
  runDeadline?: number;
  executionDeadline?: number;
  memo: Record<string, Payload>;
  searchAttributes: Record<string, Payload>;
  wft?: WorkflowTaskState;
  wftSeq: number;
  /** Attempt of the next WFT: > 1 after consecutive failures, back to 1 on completion. */
  nextWftAttempt: number;
  /**
   * The last WFT tried to close the run and was refused for events that arrived meanwhile (UNHANDLED_COMMAND).
   * Cleared when the next one ends. As on server 1.29 (`workflowCloseAttempted`), it lives in memory only.
   */
  closeAttempted?: boolean;
  /** Started event ID of the last completed WFT (`previousStartedEventId`). */
  lastCompletedStartedEventId: number;
  /** Events produced while a WFT is started, appended after its completion. Groups keep pairs together. */
  buffered: PendingEvent[][];
  sticky?: StickyState;
  activities: Record<string, ActivityState>;
  timers: Record<string, TimerState>;
  updates: Record<string, UpdateState>;
  cancelRequested: boolean;
  /** Set when this run continued as new; close-event readers follow it. */
  nextRunId?: string;
  /**
   * The events of an open run, decoded; empty once it closes (`releaseClosedHistory`), when only the
   * encoded copy is kept. Read events through `eventAt` / `eventCount`, which work in both cases.
   * Events are kept out of the snapshot and persisted as they are appended.
   */
  history: HistoryEvent[];
  /** Protobuf encoding of every event, computed once at append; the source of truth for history reads. */
  encodedHistory: Buffer[];
  historySizeBytes: number;
}

export function isOpen(run: RunState): boolean {
  return run.closeTime === undefined;
}

export function eventCount(run: RunState): number {
  return run.encodedHistory.length;
}

export function nextEventId(run: RunState): number {
  return eventCount(run) + 1;
}

/** True while every event is also held decoded (an open run); a closed run decodes on demand. */
export function holdsDecodedHistory(run: RunState): boolean {
  return run.history.length === run.encodedHistory.length;
}

/** The event at `index` (event ID - 1), decoded from its bytes if the run no longer holds it decoded. */
export function eventAt(run: RunState, index: number): HistoryEvent | undefined {
  if (holdsDecodedHistory(run)) return run.history[index];
  const bytes = run.encodedHistory[index];
  return bytes && (decodeMessage(HISTORY_EVENT, bytes) as unknown as HistoryEvent);
}

export function lastEvent(run: RunState): HistoryEvent | undefined {
  return eventAt(run, eventCount(run) - 1);
}

/**
 * Copies a run's encoded events into one buffer of their exact size. An event encoded on its own is
 * a slice of Node's shared 8 KiB allocation pool and keeps that whole pool alive (measured: 4.4x the
 * history's bytes, scripts/devserver-memory.ts); one buffer per run holds only its bytes.
 */
export function packEncodedHistory(encoded: readonly Buffer[]): Buffer[] {
  let total = 0;
  for (const part of encoded) total += part.length;
  const packed = Buffer.allocUnsafeSlow(total);
  let offset = 0;
  return encoded.map((part) => {
    part.copy(packed, offset);
    offset += part.length;
    return packed.subarray(offset - part.length, offset);
  });
}

/**
 * A closed run gets no more events and is read rarely (history pages, describe): it keeps only its
 * encoded events, packed, and decodes one when asked. Its decoded events (whose payloads may point
 * into the request buffers they came from) were most of what a retained run cost.
 */
export function releaseClosedHistory(run: RunState): void {
  run.history = [];
  run.encodedHistory = packEncodedHistory(run.encodedHistory);
}

export function pendingActivities(run: RunState): ActivityState[] {
  return Object.values(run.activities);
}

export function activityById(run: RunState, activityId: string): ActivityState | undefined {
  return Object.values(run.activities).find((a) => a.activityId === activityId);
}
