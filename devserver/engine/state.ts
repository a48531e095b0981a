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
  /** Events are kept out of the snapshot and persisted as they are appended. */
  history: HistoryEvent[];
  /** Protobuf encoding of each event in `history`, computed once at append. */
  encodedHistory: Buffer[];
  historySizeBytes: number;
}

export function isOpen(run: RunState): boolean {
  return run.closeTime === undefined;
}

export function nextEventId(run: RunState): number {
  return run.history.length + 1;
}

export function lastEvent(run: RunState): HistoryEvent | undefined {
  return run.history[run.history.length - 1];
}

export function pendingActivities(run: RunState): ActivityState[] {
  return Object.values(run.activities);
}

export function activityById(run: RunState, activityId: string): ActivityState | undefined {
  return Object.values(run.activities).find((a) => a.activityId === activityId);
}
