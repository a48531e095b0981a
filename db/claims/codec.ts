import { createHash } from 'node:crypto';
import type { Payload, PayloadCodec, SerializationContext } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { turnIdParts } from '../../core/turn/turn-id';
import type { ClaimBody, ClaimStore } from './store';

const PayloadProto = temporal.api.common.v1.Payload;

/** Metadata encoding of a claim reference. Never change it: recorded histories carry it. */
export const CLAIM_ENCODING = 'json/convengine-claim';
const HASH = /^[0-9a-f]{64}$/;

export type ClaimCheckErrorType = 'CLAIM_REFERENCE_INVALID' | 'CLAIM_MISSING' | 'CLAIM_CORRUPT';

/** A reference in history that cannot be turned back into its payload. */
export class ClaimCheckError extends Error {
  constructor(
    readonly type: ClaimCheckErrorType,
    message: string
  ) {
    super(message);
    this.name = 'ClaimCheckError';
  }
}

/** What history holds in place of an offloaded payload (the reference's JSON body). */
export interface ClaimReference {
  sha256: string;
  sizeBytes: number;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const utf8 = new TextEncoder();
const text = new TextDecoder('utf-8', { fatal: true });

/** Bytes of a payload's data and metadata: an upper bound of nothing, a cheap test before encoding. */
function roughSize(payload: Payload): number {
  let size = payload.data?.byteLength ?? 0;
  for (const [key, value] of Object.entries(payload.metadata ?? {})) size += key.length + (value?.byteLength ?? 0);
  return size;
}

export function isClaimReference(payload: Payload): boolean {
  const encoding = payload.metadata?.['encoding'];
  return encoding !== undefined && encoding !== null && text.decode(encoding) === CLAIM_ENCODING;
}

/** The reference a claim payload carries; throws CLAIM_REFERENCE_INVALID when it is malformed. */
export function claimReferenceOf(payload: Payload): ClaimReference {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.decode(payload.data ?? new Uint8Array()));
  } catch {
    parsed = null;
  }
  const ref = parsed as Partial<ClaimReference> | null;
  if (typeof ref?.sha256 !== 'string' || !HASH.test(ref.sha256) || typeof ref.sizeBytes !== 'number') {
    throw new ClaimCheckError(
      'CLAIM_REFERENCE_INVALID',
      'payload claim reference is malformed (need sha256, sizeBytes)'
    );
  }
  return { sha256: ref.sha256, sizeBytes: ref.sizeBytes };
}

/**
 * The conversation whose turn workflow (or one of its activities) a payload belongs to, as the SDK names the workflow
 * (`turn-<conversation id>-<n>`); undefined for any other workflow, or when the SDK does not say.
 */
function conversationOf(context: SerializationContext | undefined): string | undefined {
  return context?.workflowId ? turnIdParts(context.workflowId)?.conversationId : undefined;
}

function referencePayload(claim: ClaimBody): Payload {
  const ref: ClaimReference = { sha256: claim.hash, sizeBytes: claim.body.byteLength };
  return { metadata: { encoding: utf8.encode(CLAIM_ENCODING) }, data: utf8.encode(JSON.stringify(ref)) };
}

/**
 * Claim check (issue #13, item 7): a payload whose protobuf encoding is at least `thresholdBytes`
 * is stored in `ce_payload_claim` under the sha256 of those bytes, and history keeps only a small
 * `{sha256, sizeBytes}` reference. Decoding fetches and verifies the body, so a tampered row is an
 * error, never a wrong payload. Each call costs at most one round trip, and none without large payloads.
 */
export class ClaimCheckCodec implements PayloadCodec {
  constructor(
    private readonly claims: ClaimStore,
    private readonly thresholdBytes: number
  ) {}

  async encode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    const stored: ClaimBody[] = [];
    const out = payloads.map((payload) => {
      if (roughSize(payload) < this.thresholdBytes - 64 || isClaimReference(payload)) return payload;
      const body = PayloadProto.encode(payload).finish();
      if (body.byteLength < this.thresholdBytes) return payload;
      const claim = { hash: sha256(body), body };
      stored.push(claim);
      return referencePayload(claim);
    });
    await this.claims.putMany(stored, conversationOf(context));
    return out;
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    const refs = payloads.map((payload) => (isClaimReference(payload) ? claimReferenceOf(payload) : null));
    const hashes = refs.flatMap((ref) => (ref ? [ref.sha256] : []));
    if (hashes.length === 0) return payloads;
    const found = await this.claims.getMany(hashes);
    return payloads.map((payload, i) => {
      const ref = refs[i];
      if (!ref) return payload;
      const body = found.get(ref.sha256);
      if (!body) {
        throw new ClaimCheckError(
          'CLAIM_MISSING',
          `payload claim sha256:${ref.sha256} is not in ce_payload_claim (pruned too early, or another database?)`
        );
      }
      if (sha256(body) !== ref.sha256) {
        throw new ClaimCheckError('CLAIM_CORRUPT', `payload claim sha256:${ref.sha256} does not match its stored body`);
      }
      return PayloadProto.decode(body);
    });
  }
}
