import type { DataConverter } from '@temporalio/common';
import type { Env } from '../config/env';
import { PayloadEncryptionCodec } from '../config/payload-encryption';
import { ClaimCheckCodec } from './claims/codec';
import { createClaimStore } from './claims/store';
import type { Database } from './pool';

/** What the engine's data converter is made of: the settings, from the environment (config/env.ts). */
export type DataConverterSettings = Pick<Env, 'CLAIM_CHECK_THRESHOLD_BYTES' | 'PAYLOAD_ENCRYPTION_KEYS'>;

/**
 * The one data converter of every worker and client that handles turns (the worker, the API, the CLI, the bench and
 * test stacks). Encoding runs the codecs in order: each payload is encrypted first (PAYLOAD_ENCRYPTION_KEYS), then one
 * still at least CLAIM_CHECK_THRESHOLD_BYTES goes to ce_payload_claim, so a claim body is ciphertext too; decoding runs
 * them backwards. Without `db` (`convengine sre`, `conversations prune`: commands that read
 * no claim) there is no claim check, and a claim
 * reference stays one. Failure messages and stack traces stay outside payloads, as Temporal keeps them; with the keys
 * set the turn worker seals an activity's failure into its encoded attributes, which these codecs encrypt
 * (activities/runtime/sealed-failure.ts, docs/security.md §8).
 */
export function engineDataConverter(settings: DataConverterSettings, db?: Database): DataConverter {
  const encryption = new PayloadEncryptionCodec(settings.PAYLOAD_ENCRYPTION_KEYS ?? []);
  if (!db) return { payloadCodecs: [encryption] };
  return {
    payloadCodecs: [encryption, new ClaimCheckCodec(createClaimStore(db), settings.CLAIM_CHECK_THRESHOLD_BYTES)],
  };
}
