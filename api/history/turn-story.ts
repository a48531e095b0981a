import type { temporal } from '@temporalio/proto';
import { epochMs } from '../../config/temporal-timestamp';
import { publicFailure, publicFailureOf } from './public-failure';
import {
  decisionLog,
  decodedSearchAttributes,
  decodePayload,
  handoffNote,
  upsertedSearchAttributes,
  type ActivityEntry,
} from './entries';
import { operatorDecisionOf, operatorDecisionText, type OperatorDecision } from './operator-decisions';
import { timedSteps, type TimedStep } from './step-times';
import { workflowTaskFailureOf, workflowTaskFailureText, type WorkflowTaskFailure } from './workflow-task-failure';
import { readTurnSearchAttributes, TurnOutcomeValue, TurnSearchAttribute } from '../../workflows/search-attributes';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** One row of a turn's timeline: a step (activity), or something the workflow itself did. */
export type TimelineItem =
  | {
      kind: 'step';
      eventId: number;
      activityId: string | null;
      type: string;
      summary: string | null;
      local: boolean;
      /** Ran in a step run (core/turn/step-runs.ts), local or regular, with the steps next to it. */
      inRun: boolean;
      /**
       * 1-based count of this step type's runs so far: planner iteration n, tool call n. A handoff
       * carries the number of the run it hands to, which is the run that writes the audit rows.
       */
      iteration: number;
      attempt: number | null;
      /** HANDED_OFF: a local attempt that gave the call to a regular activity (docs/architecture.md, "Local first"). */
      outcome: ActivityEntry['outcome'] | 'HANDED_OFF';
      failure: ActivityEntry['failure'];
      /** What a handoff did, in the words `convengine history` uses; null for any other step. */
      note: string | null;
      offsetMs: number | null;
      durationMs: number | null;
    }
  | { kind: 'timer'; eventId: number; offsetMs: number | null; text: string }
  /** An operator's decision: an approval's, or a held tool call's (`decision.update`). */
  | { kind: 'approval'; eventId: number; offsetMs: number | null; text: string; decision: OperatorDecision }
  | { kind: 'search-attributes'; eventId: number; offsetMs: number | null; values: Record<string, unknown> }
  /** A reset (its reason, the runs) or a workflow task that failed or timed out; `text` as `convengine history` says it. */
  | { kind: 'workflow-task'; eventId: number; offsetMs: number | null; text: string; task: WorkflowTaskFailure }
  | { kind: 'close'; eventId: number; offsetMs: number | null; status: string; failure: string | null };

/** What a turn's event history says: every step, decision, approval and the close, with timings. */
export interface TurnStory {
  startedAt: string | null;
  closedAt: string | null;
  durationMs: number | null;
  status: string;
  /** The config version the turn pinned: its search attribute, or (still running) its first step's result. */
  configVersion: string | null;
  searchAttributes: Record<string, unknown>;
  decisions: string[];
  timeline: TimelineItem[];
  result: unknown;
  failure: string | null;
  eventCount: number;
}

const CLOSE_STATUS: [keyof HistoryEvent, string][] = [
  ['workflowExecutionCompletedEventAttributes', 'COMPLETED'],
  ['workflowExecutionFailedEventAttributes', 'FAILED'],
  ['workflowExecutionTerminatedEventAttributes', 'TERMINATED'],
  ['workflowExecutionTimedOutEventAttributes', 'TIMED_OUT'],
  ['workflowExecutionCanceledEventAttributes', 'CANCELED'],
  ['workflowExecutionContinuedAsNewEventAttributes', 'CONTINUED_AS_NEW'],
];

function closeOf(event: HistoryEvent): { status: string; failure: string | null } | null {
  for (const [field, status] of CLOSE_STATUS) {
    if (!event[field]) continue;
    const failure = event.workflowExecutionFailedEventAttributes?.failure;
    return { status, failure: failure ? failureText(failure) : null };
  }
  return null;
}

/** The step's failure the turn failed on, as the API shows it everywhere (public-failure.ts). */
function failureText(failure: temporal.api.failure.v1.IFailure): string {
  const shown = publicFailureOf(failure);
  return `${shown.type}: ${shown.message}`;
}

/** Operator waits and decisions: the approval or hold timer, and the update that decided it. */
function otherItem(
  event: HistoryEvent,
  events: ReadonlyMap<number, HistoryEvent>,
  offsetMs: number | null,
  held: boolean
): TimelineItem | null {
  const eventId = Number(event.eventId ?? 0);
  const timer = event.timerStartedEventAttributes;
  const waitingFor = held ? 'an operator on the held tool call' : 'an approval decision';
  if (timer) {
    const seconds = Number(timer.startToFireTimeout?.seconds ?? 0);
    return { kind: 'timer', eventId, offsetMs, text: `waiting for ${waitingFor} (expires in ${seconds}s)` };
  }
  if (event.timerFiredEventAttributes) {
    return { kind: 'timer', eventId, offsetMs, text: held ? 'hold expired' : 'approval window expired' };
  }
  const decision = operatorDecisionOf(event, events);
  if (decision) {
    const what = decision.update === 'decideApproval' ? 'approval decision' : 'held tool decision';
    return { kind: 'approval', eventId, offsetMs, text: `${what}: ${operatorDecisionText(decision)}`, decision };
  }
  const upsert = event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields;
  if (upsert) return { kind: 'search-attributes', eventId, offsetMs, values: decodedSearchAttributes(upsert) };
  const taskFailure = workflowTaskFailureOf(event);
  if (taskFailure)
    return { kind: 'workflow-task', eventId, offsetMs, text: workflowTaskFailureText(taskFailure), task: taskFailure };
  const close = closeOf(event);
  return close ? { kind: 'close', eventId, offsetMs, ...close } : null;
}

/** The story of one turn, from its event history alone (any server: ours or real Temporal). */
export function turnStory(events: HistoryEvent[]): TurnStory {
  const start = epochMs(events[0]?.eventTime);
  const entries = timedSteps(events);
  const seen = new Map<string, number>();
  const timeline: TimelineItem[] = [];
  // A timer after TurnOutcome=HELD is the hold's expiry, not an approval window.
  let held = false;
  let close: { status: string; failure: string | null; at: number | null } | null = null;
  const byId = new Map(events.map((e) => [Number(e.eventId ?? 0), e]));
  for (const event of events) {
    const at = epochMs(event.eventTime);
    const offsetMs = at !== null && start !== null ? at - start : null;
    const steps = entries.get(Number(event.eventId ?? 0));
    if (steps) {
      for (const { entry, atMs, durationMs } of steps) {
        const iteration = (seen.get(entry.type) ?? 0) + 1;
        // The handed-off attempt and the regular run after it are one call: it is counted once.
        if (handoffNote(entry) === null) seen.set(entry.type, iteration);
        const offsetMs = atMs !== null && start !== null ? Math.max(0, atMs - start) : null;
        timeline.push({
          kind: 'step',
          eventId: entry.scheduledEventId,
          ...pick(entry),
          iteration,
          offsetMs,
          durationMs,
        });
      }
      continue;
    }
    const item = otherItem(event, byId, offsetMs, held);
    if (item) timeline.push(item);
    if (item?.kind === 'search-attributes' && TurnSearchAttribute.TurnOutcome in item.values)
      held = readTurnSearchAttributes(item.values).turnOutcome === TurnOutcomeValue.Held;
    if (item?.kind === 'close') close = { status: item.status, failure: item.failure, at };
  }
  const completed = events.at(-1)?.workflowExecutionCompletedEventAttributes;
  const searchAttributes = upsertedSearchAttributes(events);
  return {
    startedAt: start !== null ? new Date(start).toISOString() : null,
    closedAt: close?.at != null ? new Date(close.at).toISOString() : null,
    durationMs: close?.at != null && start !== null ? close.at - start : null,
    status: close?.status ?? 'RUNNING',
    configVersion: configVersionOf(searchAttributes, [...entries.values()].flat()),
    searchAttributes,
    decisions: decisionLog(events),
    timeline: inTimeOrder(timeline),
    result: completed ? decodePayload(completed.result?.payloads?.[0]) : null,
    failure: close?.failure ?? null,
    eventCount: events.length,
  };
}

/**
 * The timeline by when each row happened. History orders a local step by its marker, written when its workflow task
 * ends, so a step that ran at +675 ms came after a search-attribute upsert or an update of +771 ms; every row is
 * placed by its own time (a step's start, anything else's event time), ties and untimed rows kept where history has
 * them.
 */
function inTimeOrder(timeline: TimelineItem[]): TimelineItem[] {
  let last = 0;
  const keyed = timeline.map((item) => ({ item, at: (last = item.offsetMs ?? last) }));
  return keyed.sort((a, b) => a.at - b.at).map(({ item }) => item);
}

function configVersionOf(searchAttributes: Record<string, unknown>, steps: TimedStep[]): string | null {
  const pinned = readTurnSearchAttributes(searchAttributes).configVersion;
  if (pinned !== undefined) return pinned;
  const load = steps.find((s) => s.entry.type === 'LoadOrCreateConversation')?.entry.result as
    { patch?: { set?: { configVersion?: unknown } } } | undefined;
  const version = load?.patch?.set?.configVersion;
  return typeof version === 'string' ? version : null;
}

/** A handoff is the local-first design at work, not a failure: it shows as HANDED_OFF with its note, no failure. */
function pick(entry: ActivityEntry) {
  const { activityId, type, summary, local, attempt } = entry;
  const inRun = entry.inRun === true;
  const note = handoffNote(entry);
  if (note !== null)
    return { activityId, type, summary, local, inRun, attempt, outcome: 'HANDED_OFF' as const, failure: null, note };
  const failure = entry.failure && publicFailure(entry.failure);
  return { activityId, type, summary, local, inRun, attempt, outcome: entry.outcome, failure, note };
}
