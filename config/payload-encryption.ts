import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { PAYLOAD_KEY_ID, type PayloadKey } from './payload-keys';

const PayloadProto = temporal.api.common.v1.Payload;

/**
 * Metadata of an encrypted payload, as Temporal's encryption samples write it: `encoding` says what the data is, and
 * `encryption-key-id` which key decrypts it. Never change them: recorded histories carry them.
 */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
const CIPHER = 'aes-256-gcm';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export type PayloadEncryptionErrorType = 'PAYLOAD_KEY_UNKNOWN' | 'PAYLOAD_DECRYPTION_FAILED';

/** An encrypted payload this process cannot turn back into its value: never its ciphertext passed on as a value. */
export class PayloadEncryptionError extends Error {
  constructor(
    readonly type: PayloadEncryptionErrorType,
    message: string
  ) {
    super(message);
    this.name = 'PayloadEncryptionError';
  }
}

const utf8 = new TextEncoder();
const text = new TextDecoder('utf-8', { fatal: false });
const metadataText = (payload: Payload, name: string): string | undefined => {
  const value = payload.metadata?.[name];
  return value === undefined || value === null ? undefined : text.decode(value);
};

export function isEncryptedPayload(payload: Payload): boolean {
  return metadataText(payload, 'encoding') === ENCRYPTED_ENCODING;
}

/** The key id an encrypted payload names, as an error may print it: metadata is anyone's to write. */
const printableKeyId = (id: string | undefined) => (id !== undefined && PAYLOAD_KEY_ID.test(id) ? `"${id}"` : '(none)');

/**
 * Payload encryption (PAYLOAD_ENCRYPTION_KEYS): each payload, metadata and data, is serialised as a Payload proto and
 * sealed with AES-256-GCM under the first key and a random 96-bit nonce (data: nonce, ciphertext, tag), the key's id
 * in the metadata. Decoding opens a payload under the key its id names, and passes a payload that is not encrypted
 * through (histories from before the keys, replay fixtures). Without keys it encrypts nothing, and an encrypted payload
 * is still an error, never a value.
 */
export class PayloadEncryptionCodec implements PayloadCodec {
  private readonly byId: ReadonlyMap<string, Buffer>;

  constructor(private readonly keys: readonly PayloadKey[]) {
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const current = this.keys[0];
    if (!current) return payloads;
    return payloads.map((payload) => {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv(CIPHER, current.key, nonce);
      const sealed = cipher.update(PayloadProto.encode(payload).finish());
      const data = Buffer.concat([nonce, sealed, cipher.final(), cipher.getAuthTag()]);
      return {
        metadata: { encoding: utf8.encode(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: utf8.encode(current.id) },
        data,
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => (isEncryptedPayload(payload) ? this.open(payload) : payload));
  }

  private open(payload: Payload): Payload {
    const id = metadataText(payload, KEY_ID_METADATA);
    const key = id === undefined ? undefined : this.byId.get(id);
    if (!key) {
      const held =
        this.keys.length === 0 ? 'PAYLOAD_ENCRYPTION_KEYS is unset' : 'PAYLOAD_ENCRYPTION_KEYS does not hold it';
      throw new PayloadEncryptionError(
        'PAYLOAD_KEY_UNKNOWN',
        `payload is encrypted under key id ${printableKeyId(id)}, and ${held}`
      );
    }
    const data = payload.data ?? new Uint8Array();
    try {
      if (data.byteLength < NONCE_BYTES + TAG_BYTES) throw new Error('too short');
      const decipher = createDecipheriv(CIPHER, key, data.subarray(0, NONCE_BYTES));
      decipher.setAuthTag(data.subarray(data.byteLength - TAG_BYTES));
      const plain = Buffer.concat([
        decipher.update(data.subarray(NONCE_BYTES, data.byteLength - TAG_BYTES)),
        decipher.final(),
      ]);
      return PayloadProto.decode(plain);
    } catch {
      throw new PayloadEncryptionError(
        'PAYLOAD_DECRYPTION_FAILED',
        `payload encrypted under key id ${printableKeyId(id)} does not authenticate: altered, or sealed with another key of that id`
      );
    }
  }
}
