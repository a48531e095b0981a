import type { Payload, PayloadCodec } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { isStepRunType } from '../../core/turn/step-runs';
import { isClaimReference } from '../../db/claims/codec';
import { decodePayload } from './entries';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type Payloads = temporal.api.common.v1.IPayload[] | null | undefined;

/** One payload of an event: the array that holds it and its index, so it can be replaced. */
interface Slot {
  payloads: temporal.api.common.v1.IPayload[];
  index: number;
}

function slotOf(payloads: Payloads, which: 'first' | 'last'): Slot[] {
  if (!payloads?.length) return [];
  const index = which === 'first' ? 0 : payloads.length - 1;
  return isClaimReference(payloads[index] as Payload) ? [{ payloads, index }] : [];
}

/** A step run marker's result or, when the run failed, its progress (the failure's last detail). */
function markerSlots(e: HistoryEvent): Slot[] {
  const marker = e.markerRecordedEventAttributes;
  if (marker?.markerName !== 'core_local_activity') return [];
  const data = decodePayload(marker.details?.['data']?.payloads?.[0]) as { activity_type?: string } | undefined;
  if (!isStepRunType(data?.activity_type ?? '')) return [];
  if (marker.failure) return slotOf(marker.failure.applicationFailureInfo?.details?.payloads, 'last');
  return slotOf(marker.details?.['result']?.payloads, 'first');
}

/** The payloads of step runs (LocalSteps, RegularSteps) that api/history/entries.ts reads as their steps. */
function stepRunClaimSlots(events: readonly HistoryEvent[]): Slot[] {
  const stepRunActivities = new Set<number>();
  const slots: Slot[] = [];
  for (const e of events) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled && isStepRunType(scheduled.activityType?.name ?? '')) stepRunActivities.add(Number(e.eventId));
    const completed = e.activityTaskCompletedEventAttributes;
    if (completed && stepRunActivities.has(Number(completed.scheduledEventId)))
      slots.push(...slotOf(completed.result?.payloads, 'first'));
    const failed = e.activityTaskFailedEventAttributes;
    if (failed && stepRunActivities.has(Number(failed.scheduledEventId)))
      slots.push(...slotOf(failed.failure?.applicationFailureInfo?.details?.payloads, 'last'));
    slots.push(...markerSlots(e));
  }
  return slots;
}

/** Whether any step run's result in `events` is a claim reference (db/claims/): only then is a codec needed. */
export function hasStepRunClaims(events: readonly HistoryEvent[]): boolean {
  return stepRunClaimSlots(events).length > 0;
}

/**
 * Resolves, in place, the step runs' results that the claim check moved to ce_payload_claim, so the
 * history, the console and `convengine history` show each step of the run as they do for a small one.
 * `codecs` as the data converter lists them. A claim that cannot be read (pruned, another database, a database
 * that does not answer) is left as its reference and the run shows as one row; what stopped it is returned, for
 * the caller to tell a missing claim (ClaimCheckError) from a database it could not read.
 */
export async function resolveStepRunClaims(
  events: readonly HistoryEvent[],
  codecs: readonly PayloadCodec[]
): Promise<{ failure: unknown } | null> {
  const slots = stepRunClaimSlots(events);
  if (slots.length === 0 || codecs.length === 0) return null;
  let payloads = slots.map((s) => s.payloads[s.index] as Payload);
  try {
    for (const codec of [...codecs].reverse()) payloads = await codec.decode(payloads);
  } catch (failure) {
    return { failure };
  }
  slots.forEach((s, i) => (s.payloads[s.index] = payloads[i] as temporal.api.common.v1.IPayload));
  return null;
}
