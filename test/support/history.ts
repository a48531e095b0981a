import type { temporal } from '@temporalio/proto';
import { decodePayload } from '../../api/history/entries';

export {
  activityEntries,
  decisionLog,
  decodePayload,
  isHandedOver,
  stepRuns,
  upsertedSearchAttributes,
  type ActivityEntry,
} from '../../api/history/entries';

/** The ids of the patches a history recorded (its `core_patch` markers), in order. */
export function patchesRecorded(history: readonly temporal.api.history.v1.IHistoryEvent[]): string[] {
  return history.flatMap((e) => {
    const payload = e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0];
    return payload ? [(decodePayload(payload) as { id: string }).id] : [];
  });
}
