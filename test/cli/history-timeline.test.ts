/** `convengine history`'s timeline of events other than activities: updates, as a reset leaves them. */
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
