import type { Payload, PayloadCodec } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { isClaimReference } from '../../db/claims/codec';
import { commonAttributesOf } from './public-failure';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type Failure = temporal.api.failure.v1.IFailure;

/** Where a payload sits: the object or array that holds it, so it can be replaced. */
interface Slot {
  holder: Record<string, unknown> | unknown[];
  key: string | number;
}

const isBytes = (value: unknown) => value === undefined || value === null || value instanceof Uint8Array;

/** A Payload message, whichever field holds it: metadata of bytes, and bytes of data. */
function isPayload(value: object): value is Payload {
  const { metadata, data } = value as { metadata?: unknown; data?: unknown };
  return typeof metadata === 'object' && metadata !== null && isBytes(data) && Object.values(metadata).every(isBytes);
}

/** Every payload in `value` but claim references (whose bodies resolveStepRunClaims reads, where it needs them). */
function payloadSlots(value: unknown, slots: Slot[]): void {
  if (typeof value !== 'object' || value === null || value instanceof Uint8Array) return;
  const holder = value as Record<string, unknown> | unknown[];
  for (const [key, child] of Object.entries(holder)) {
    if (typeof child !== 'object' || child === null || child instanceof Uint8Array) continue;
    const at = Array.isArray(holder) ? Number(key) : key;
    if (!isPayload(child)) payloadSlots(child, slots);
    else if (!isClaimReference(child)) slots.push({ holder, key: at });
  }
}

/**
 * Decodes, in place, every payload of `events` through `codecs` (the data converter's, backwards as it decodes):
 * fetchHistory returns payloads as stored, so with PAYLOAD_ENCRYPTION_KEYS set each is ciphertext until this runs.
 * The history's readers (api/history/entries.ts) then read values. Claim references stay references. Throws
 * PayloadEncryptionError for a payload these keys cannot open: never shown as a value.
 */
export async function decodeHistoryPayloads(
  events: readonly HistoryEvent[],
  codecs: readonly PayloadCodec[]
): Promise<void> {
  await decodePayloadsIn(events, codecs);
}

/**
 * decodeHistoryPayloads for any message read from Temporal (a description's pending activities, with their last
 * failures): every payload in `value` decoded in place, and every failure's message and stack trace restored.
 */
export async function decodePayloadsIn(value: unknown, codecs: readonly PayloadCodec[]): Promise<void> {
  const slots: Slot[] = [];
  payloadSlots(value, slots);
  if (slots.length > 0 && codecs.length > 0) {
    let payloads = slots.map(({ holder, key }) => (holder as Record<string | number, Payload>)[key] as Payload);
    for (const codec of [...codecs].reverse()) payloads = await codec.decode(payloads);
    slots.forEach(({ holder, key }, i) => ((holder as Record<string | number, unknown>)[key] = payloads[i]));
  }
  // A failure's message and stack trace, if a client's failure converter encoded them (encodeCommonAttributes) or the
  // turn worker sealed them (PAYLOAD_ENCRYPTION_KEYS, activities/runtime/sealed-failure.ts), back in place.
  for (const { holder, key } of slots) {
    if (key === 'encodedAttributes') Object.assign(holder, commonAttributesOf(holder as Failure));
  }
}
