import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import type { PendingActivityView } from '../../api/console/ports';
import { activityEntries, handoffNote, type ActivityEntry } from '../../api/history/entries';
import { acceptedUpdateRequest, operatorDecisionOf, operatorDecisionText } from '../../api/history/operator-decisions';
import { failureOf } from '../../api/history/public-failure';
import { timedSteps, type TimedStep } from '../../api/history/step-times';
import { workflowTaskFailureOf, workflowTaskFailureText } from '../../api/history/workflow-task-failure';
import { TOOL_HOLD_FAILED } from '../../core/mcp/hold';
import { oneLineText } from '../../core/text/one-line-text';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

function timeOf(event: HistoryEvent | undefined): Date | null {
  const t = event?.eventTime;
  if (!t) return null;
  return new Date(Number(t.seconds ?? 0) * 1000 + Math.floor(Number(t.nanos ?? 0) / 1e6));
}

/**
 * The turn's failure as stored; an operator's fail of a held call as its type and message with the operator's reason,
 * which its details carry (operatorFailure, core/mcp/hold.ts), not its message.
 */
function workflowFailedText(failure: temporal.api.failure.v1.IFailure | null | undefined): string {
  const own = failure ? failureOf(failure) : null;
  return own?.type === TOOL_HOLD_FAILED ? `${TOOL_HOLD_FAILED}: ${own.message}` : (failure?.message ?? '');
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

/** What a step did: its summary, outcome and failure (a tool's or a model's words among them). */
function activityText(entry: ActivityEntry): string {
  const kind = kindOf(entry);
  const handoff = handoffNote(entry);
  if (handoff !== null) return `${entry.type}${kind}  → ${handoff}`;
  const attempt = entry.attempt && entry.attempt > 1 ? ` attempt ${entry.attempt}` : '';
  const failure = entry.failure
    ? ` ${entry.failure.type ?? 'failure'}${entry.failure.nonRetryable ? ' (non-retryable)' : ''}: ${entry.failure.message}`
    : '';
  const summary = entry.summary && entry.summary !== entry.type ? ` — ${entry.summary}` : '';
  return `${entry.type}${kind}${summary}  → ${entry.outcome}${attempt}${failure}`;
}

/** A step's line, at the time it ran (api/history/step-times.ts: a local step by its task, not its marker). */
function activityLine({ entry, atMs }: TimedStep, start: Date | null): string {
  const offset = atMs !== null && start ? `+${((atMs - start.getTime()) / 1000).toFixed(3)}s` : '';
  return `${offset.padStart(10)}  ${oneLineText(activityText(entry))}`;
}

function otherLine(event: HistoryEvent, events: Map<number, HistoryEvent>): string | null {
  if (event.timerStartedEventAttributes) {
    return `timer started (${Number(event.timerStartedEventAttributes.startToFireTimeout?.seconds ?? 0)}s)`;
  }
  if (event.timerFiredEventAttributes) return 'timer fired';
  const taskFailure = workflowTaskFailureOf(event);
  if (taskFailure) return workflowTaskFailureText(taskFailure);
  if (event.upsertWorkflowSearchAttributesEventAttributes) {
    const fields = event.upsertWorkflowSearchAttributesEventAttributes.searchAttributes?.indexedFields ?? {};
    const pairs = Object.entries(fields).map(([k, v]) => `${k}=${JSON.stringify(decode(v))}`);
    return `search attributes ${pairs.join(' ')}`;
  }
  if (event.workflowExecutionUpdateAcceptedEventAttributes) {
    const decision = operatorDecisionOf(event, events);
    if (decision) return `update accepted: ${decision.update}: ${operatorDecisionText(decision)}`;
    return `update accepted: ${acceptedUpdateRequest(event, events)?.input?.name ?? ''}`;
  }
  if (event.workflowExecutionSignaledEventAttributes) {
    return `signal: ${event.workflowExecutionSignaledEventAttributes.signalName ?? ''}`;
  }
  if (event.workflowExecutionCompletedEventAttributes) return 'workflow COMPLETED';
  if (event.workflowExecutionFailedEventAttributes) {
    return `workflow FAILED: ${workflowFailedText(event.workflowExecutionFailedEventAttributes.failure)}`;
  }
  if (event.workflowExecutionTerminatedEventAttributes) return 'workflow TERMINATED';
  if (event.workflowExecutionTimedOutEventAttributes) return 'workflow TIMED_OUT';
  if (event.workflowExecutionCanceledEventAttributes) return 'workflow CANCELED';
  return null;
}

/**
 * A readable timeline of a turn's history for operators: each activity once (summary, final
 * attempt, outcome, failure), driver decisions (RecordTurnDecision), timers, search-attribute
 * upserts, updates, resets and other workflow task failures, and the close event. Works on any server's history, real Temporal included.
 * Each event is one line, its controls shown as code points (oneLineText): a tool's error can hold an escape sequence.
 */
export function formatTimeline(workflowId: string, history: HistoryEvent[]): string[] {
  const byId = new Map(history.map((e) => [Number(e.eventId ?? 0), e]));
  const start = timeOf(history[0]);
  const stepsOf = timedSteps(history);
  const lines = [`${workflowId} — started ${start?.toISOString() ?? '?'} — ${history.length} events`];
  for (const event of history) {
    const steps = stepsOf.get(Number(event.eventId ?? 0));
    if (steps) {
      for (const step of steps) lines.push(activityLine(step, start));
      continue;
    }
    const other = otherLine(event, byId);
    if (other) lines.push(`${''.padStart(10)}  ${oneLineText(other)}`);
  }
  return lines;
}

/** What DescribeWorkflowExecution tells of a turn that is still open, beyond its history. */
export interface OpenTurn {
  status: string;
  runId: string;
  taskQueue: string;
  pending: PendingActivityView[];
}

function attemptText({ attempt, maximumAttempts }: PendingActivityView): string {
  return maximumAttempts > 0 ? `attempt ${attempt} of ${maximumAttempts}` : `attempt ${attempt} (no maximum)`;
}

/**
 * An open turn's status and its pending activities: a step that is retrying shows in history only as scheduled
 * (its Started event is written when it closes), so its attempt, last failure and next attempt come from here.
 */
export function formatOpenTurn(turn: OpenTurn, history: HistoryEvent[]): string[] {
  const count = turn.pending.length;
  const lines = [
    `${''.padStart(10)}  workflow ${turn.status} (run ${turn.runId}, task queue ${turn.taskQueue}): ` +
      `${count} pending activit${count === 1 ? 'y' : 'ies'}`,
  ];
  const summaries = new Map(activityEntries(history).map((e) => [e.activityId, e.summary]));
  for (const activity of turn.pending) {
    const summary = summaries.get(activity.activityId);
    const named = oneLineText(summary && summary !== activity.type ? `${activity.type} — ${summary}` : activity.type);
    const next = activity.nextAttemptAt ? `, next attempt at ${activity.nextAttemptAt}` : '';
    const paused = activity.paused && activity.state !== 'PAUSED' ? ' (paused)' : '';
    lines.push(
      `${''.padStart(12)}pending ${named} (activity ${activity.activityId}): ${activity.state}${paused}, ` +
        `${attemptText(activity)}${next}`
    );
    if (activity.lastFailure) lines.push(`${''.padStart(14)}last failure ${oneLineText(activity.lastFailure)}`);
  }
  return lines;
}
