/**
 * `convengine history`'s timeline: updates, as a reset leaves them, the reset itself and other workflow task
 * failures, when each step ran, and an open turn's pending activities.
 */
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { turnStory } from '../../api/history/turn-story';
import { formatOpenTurn, formatTimeline } from '../../cli/history/timeline';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const at = (seconds: number) => ({ seconds, nanos: 0 });

/** An update's request as history keeps it: its name and its one argument, as the client encoded it. */
const request = (updateId: string, name: string, input: unknown) => ({
  meta: { updateId },
  input: { name, args: { payloads: [defaultPayloadConverter.toPayload(input)] } },
});

describe('the timeline of updates', () => {
  // After a reset the new run has the update's Admitted event (origin REAPPLY, with the request) and an
  // Accepted event without the request, sequenced after it.
  const events: HistoryEvent[] = [
    { eventId: 1, eventTime: at(100), workflowExecutionStartedEventAttributes: {} },
    {
      eventId: 5,
      eventTime: at(101),
      workflowExecutionUpdateAdmittedEventAttributes: {
        request: request('u-1', 'decideApproval', {
          decision: 'reject',
          callIndex: 2,
          decidedBy: 'approver-ann',
          reason: 'not this\ncustomer \u001b[31mnow',
        }),
      },
    },
    {
      eventId: 7,
      eventTime: at(102),
      workflowExecutionUpdateAcceptedEventAttributes: {
        protocolInstanceId: 'u-1',
        acceptedRequestSequencingEventId: 5,
      },
    },
    {
      eventId: 6,
      eventTime: at(101),
      workflowExecutionUpdateAdmittedEventAttributes: {
        request: request('u-3', 'resolveHeldTool', { action: 'skip', decidedBy: 'sre-bob' }),
      },
    },
    { eventId: 8, eventTime: at(102), workflowExecutionUpdateAcceptedEventAttributes: { protocolInstanceId: 'u-3' } },
    {
      eventId: 9,
      eventTime: at(103),
      workflowExecutionUpdateAcceptedEventAttributes: {
        protocolInstanceId: 'u-2',
        acceptedRequest: request('u-2', 'decideApproval', { decision: 'approve', reason: 'checked' }),
      },
    },
    {
      eventId: 10,
      eventTime: at(104),
      workflowExecutionUpdateAcceptedEventAttributes: {
        protocolInstanceId: 'u-4',
        acceptedRequest: request('u-4', 'awaitMilestone', {}),
      },
    },
  ] as unknown as HistoryEvent[];
  const decisions = [
    // Who decided and why, on one line: a line break is a space, an escape shows as its code point.
    'decideApproval: reject (call 2) by approver-ann — not this customer ⟨U+001B⟩[31mnow',
    'resolveHeldTool: skip by sre-bob',
    'decideApproval: approve by (unnamed) — checked',
  ];

  it('says what each decision was, who took it and why, reapplied by temporal workflow reset or not', () => {
    const lines = formatTimeline('turn-x-1', events).map((l) => l.trim());
    expect(lines.filter((l) => l.startsWith('update accepted'))).toEqual([
      ...decisions.map((d) => `update accepted: ${d}`),
      'update accepted: awaitMilestone',
    ]);
  });

  it("says the same in the console's story, with the decision's fields apart", () => {
    const items = turnStory(events).timeline.filter((i) => i.kind === 'approval');
    expect(items.map((i) => i.text)).toEqual([
      `approval decision: ${decisions[0]?.slice('decideApproval: '.length)}`,
      `held tool decision: ${decisions[1]?.slice('resolveHeldTool: '.length)}`,
      `approval decision: ${decisions[2]?.slice('decideApproval: '.length)}`,
    ]);
    expect(items[0]).toMatchObject({
      decision: { update: 'decideApproval', action: 'reject', decidedBy: 'approver-ann', callIndex: 2 },
    });
  });
});

const ms = (epochMs: number) => ({ seconds: Math.floor(epochMs / 1000), nanos: (epochMs % 1000) * 1e6 });
const payload = (value: unknown) => ({ payloads: [defaultPayloadConverter.toPayload(value)] });

/** sdk-core's marker of a local activity: written when its workflow task completes, its own end in `data`. */
function localMarker(eventId: number, taskEndMs: number, type: string, completeMs: number, result: unknown) {
  return {
    eventId,
    eventTime: ms(taskEndMs),
    markerRecordedEventAttributes: {
      markerName: 'core_local_activity',
      details: {
        data: payload({ activity_type: type, activity_id: String(eventId), attempt: 1, complete_time: ms(completeMs) }),
        result: payload(result),
      },
    },
  };
}

describe('the timeline of steps', () => {
  it('times a local step by when it ran, not by its marker: a held skip then its step run read forwards', () => {
    // The operator's skip lands in a workflow task that starts at +47.500 s; McpToolHold (local) records it, then a
    // local step run (McpFinalize, ResponseResolution) ends at +47.600 s; the task ends, with both markers, at
    // +47.617 s. The marker's time put McpToolHold after the McpFinalize that followed it (+47.617 s, +47.551 s).
    const t0 = 1_000_000;
    const events = [
      { eventId: 1, eventTime: ms(t0), workflowExecutionStartedEventAttributes: {} },
      { eventId: 20, eventTime: ms(t0 + 47_500), workflowTaskStartedEventAttributes: {} },
      localMarker(22, t0 + 47_617, 'McpToolHold', t0 + 47_520, { ok: true }),
      localMarker(23, t0 + 47_617, 'LocalSteps', t0 + 47_600, {
        ran: [
          { name: 'McpFinalize', callKey: 'f', durationMs: 49, result: {} },
          { name: 'ResponseResolution', callKey: 'r', durationMs: 30, result: {} },
        ],
        handedOver: null,
      }),
    ] as unknown as HistoryEvent[];
    const lines = formatTimeline('turn-x-1', events).slice(1);
    expect(lines.map((l) => l.trim().split(/\s+/).slice(0, 2).join(' '))).toEqual([
      '+47.500s McpToolHold',
      '+47.521s McpFinalize',
      '+47.570s ResponseResolution',
    ]);
  });
});

/** A reset's copy of the old run ends at the reset point: a workflow task failed with cause RESET_WORKFLOW. */
const resetHistory = [
  { eventId: 1, eventTime: ms(1_000_000), workflowExecutionStartedEventAttributes: {} },
  localMarker(9, 1_001_000, 'McpFinalize', 1_000_900, {}),
  { eventId: 10, eventTime: ms(1_001_100), workflowTaskScheduledEventAttributes: {} },
  { eventId: 11, eventTime: ms(1_001_100), workflowTaskStartedEventAttributes: {} },
  {
    eventId: 12,
    eventTime: ms(1_005_000),
    workflowTaskFailedEventAttributes: {
      cause: temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW,
      failure: { message: 'sre@host: re-run from ResponseResolution after the fix' },
      baseRunId: 'run-old',
      newRunId: 'run-new',
    },
  },
  {
    eventId: 16,
    eventTime: ms(1_006_000),
    workflowTaskFailedEventAttributes: {
      cause: 'WORKFLOW_TASK_FAILED_CAUSE_NON_DETERMINISTIC_ERROR',
      failure: { message: '[TMPRL1100] Nondeterminism error: activity type mismatch' },
    },
  },
  {
    eventId: 19,
    eventTime: ms(1_007_000),
    workflowTaskTimedOutEventAttributes: { timeoutType: temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE },
  },
] as unknown as HistoryEvent[];

describe('the timeline of resets and workflow task failures', () => {
  const expected = [
    'reset (RESET_WORKFLOW): sre@host: re-run from ResponseResolution after the fix — from run run-old, new run run-new',
    'workflow task failed (NON_DETERMINISTIC_ERROR): [TMPRL1100] Nondeterminism error: activity type mismatch',
    'workflow task timed out (START_TO_CLOSE)',
  ];

  it('shows a reset with its reason and runs, and other failed or timed-out workflow tasks with their cause', () => {
    const lines = formatTimeline('turn-x-1', resetHistory).map((l) => l.trim());
    expect(lines.slice(2)).toEqual(expected);
  });

  it("says the same in the API's timeline, with the fields apart", () => {
    const items = turnStory(resetHistory).timeline.filter((i) => i.kind === 'workflow-task');
    expect(items.map((i) => i.text)).toEqual(expected);
    expect(items[0]).toMatchObject({
      eventId: 12,
      offsetMs: 5_000,
      task: { kind: 'reset', cause: 'RESET_WORKFLOW', baseRunId: 'run-old', newRunId: 'run-new' },
    });
  });
});

describe('an open turn', () => {
  it('lists each pending activity with its summary, attempt of the maximum, last failure and next attempt', () => {
    const history = [
      { eventId: 1, eventTime: ms(1_000_000), workflowExecutionStartedEventAttributes: {} },
      {
        eventId: 5,
        eventTime: ms(1_000_500),
        activityTaskScheduledEventAttributes: { activityId: '5', activityType: { name: 'McpToolCall' } },
        userMetadata: { summary: defaultPayloadConverter.toPayload('McpToolCall: loan.application.submit (call 2)') },
      },
    ] as unknown as HistoryEvent[];
    const pending = {
      activityId: '5',
      type: 'McpToolCall',
      state: 'SCHEDULED',
      attempt: 3,
      maximumAttempts: 6,
      paused: false,
      lastFailure: 'TOOL_HTTP_ERROR: HTTP_API call of loan.application.submit failed with status 503',
      nextAttemptAt: '2026-01-01T00:00:30.000Z',
    };
    const lines = formatOpenTurn(
      {
        status: 'RUNNING',
        runId: 'run-1',
        taskQueue: 'convengine-turns',
        pending: [
          pending,
          {
            ...pending,
            activityId: '9',
            type: 'Other',
            maximumAttempts: 0,
            lastFailure: null,
            nextAttemptAt: null,
            paused: true,
            state: 'PAUSED',
          },
        ],
      },
      history
    ).map((l) => l.trim());
    expect(lines).toEqual([
      'workflow RUNNING (run run-1, task queue convengine-turns): 2 pending activities',
      'pending McpToolCall — McpToolCall: loan.application.submit (call 2) (activity 5): SCHEDULED, attempt 3 of 6, ' +
        'next attempt at 2026-01-01T00:00:30.000Z',
      'last failure TOOL_HTTP_ERROR: HTTP_API call of loan.application.submit failed with status 503',
      'pending Other (activity 9): PAUSED, attempt 3 (no maximum)',
    ]);
  });
});

describe('text a user, a model or a tool wrote', () => {
  // A tool's error with an override (it reverses the rest of the terminal line), an escape sequence and a line break.
  const hostile = 'order \u202eexe.txt\u202c is \u001b[31mlate\r\nsee log';
  const shown = 'order ⟨U+202E⟩exe.txt⟨U+202C⟩ is ⟨U+001B⟩[31mlate see log';

  it('is one line of the timeline, each control shown as its code point', () => {
    const events = [
      { eventId: 1, eventTime: ms(1_000_000), workflowExecutionStartedEventAttributes: {} },
      {
        eventId: 5,
        eventTime: ms(1_000_100),
        activityTaskScheduledEventAttributes: { activityId: '5', activityType: { name: 'McpToolCall' } },
        userMetadata: { summary: defaultPayloadConverter.toPayload('McpToolCall: order.status \u202e(call 1)') },
      },
      { eventId: 6, eventTime: ms(1_000_200), activityTaskStartedEventAttributes: { scheduledEventId: 5, attempt: 1 } },
      {
        eventId: 7,
        eventTime: ms(1_000_300),
        activityTaskFailedEventAttributes: {
          scheduledEventId: 5,
          failure: { message: hostile, applicationFailureInfo: { type: 'TOOL_HTTP_ERROR', nonRetryable: true } },
        },
      },
      {
        eventId: 9,
        eventTime: ms(1_000_400),
        workflowExecutionFailedEventAttributes: { failure: { message: hostile } },
      },
    ] as unknown as HistoryEvent[];
    const lines = formatTimeline('turn-x-1', events).slice(1);
    expect(lines.map((l) => l.trim())).toEqual([
      `+0.100s  McpToolCall — McpToolCall: order.status ⟨U+202E⟩(call 1)  → FAILED TOOL_HTTP_ERROR (non-retryable): ${shown}`,
      `workflow FAILED: ${shown}`,
    ]);
  });

  it("is one line of an open turn's pending activity", () => {
    const pending = {
      activityId: '5',
      type: 'McpToolCall',
      state: 'SCHEDULED',
      attempt: 2,
      maximumAttempts: 3,
      paused: false,
      lastFailure: hostile,
      nextAttemptAt: null,
    };
    const open = { status: 'RUNNING', runId: 'run-1', taskQueue: 'q', pending: [pending] };
    expect(formatOpenTurn(open, []).at(-1)?.trim()).toBe(`last failure ${shown}`);
  });
});
