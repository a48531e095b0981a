/** `convengine history`'s timeline: updates, as a reset leaves them, and when each step ran. */
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { formatTimeline } from '../../cli/history/timeline';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const at = (seconds: number) => ({ seconds, nanos: 0 });

describe('the timeline of updates', () => {
  it('names an update reapplied by temporal workflow reset from its Admitted event', () => {
    // After a reset the new run has the update's Admitted event (origin REAPPLY, with the request) and an
    // Accepted event without the request, sequenced after it.
    const events: HistoryEvent[] = [
      { eventId: 1, eventTime: at(100), workflowExecutionStartedEventAttributes: {} },
      {
        eventId: 5,
        eventTime: at(101),
        workflowExecutionUpdateAdmittedEventAttributes: {
          request: { meta: { updateId: 'u-1' }, input: { name: 'decideApproval' } },
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
          request: { meta: { updateId: 'u-3' }, input: { name: 'resolveHeldTool' } },
        },
      },
      {
        eventId: 8,
        eventTime: at(102),
        workflowExecutionUpdateAcceptedEventAttributes: { protocolInstanceId: 'u-3' },
      },
      {
        eventId: 9,
        eventTime: at(103),
        workflowExecutionUpdateAcceptedEventAttributes: {
          protocolInstanceId: 'u-2',
          acceptedRequest: { meta: { updateId: 'u-2' }, input: { name: 'resolveHeldTool' } },
        },
      },
    ] as unknown as HistoryEvent[];
    const lines = formatTimeline('turn-x-1', events).map((l) => l.trim());
    expect(lines.filter((l) => l.startsWith('update accepted'))).toEqual([
      'update accepted: decideApproval',
      'update accepted: resolveHeldTool',
      'update accepted: resolveHeldTool',
    ]);
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
