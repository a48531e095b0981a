import { z } from 'zod';
import { secretWhenSet } from './env-values';

/** One key of PAYLOAD_ENCRYPTION_KEYS: the id every payload it encrypts names, and its 32 bytes (AES-256). */
export interface PayloadKey {
  id: string;
  key: Buffer;
}

/** A key id: short and printable, since payload metadata and error messages carry it (the key never). */
export const PAYLOAD_KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
/** 32 bytes in standard base64 are 43 characters and one `=` (`openssl rand -base64 32`). */
const KEY_BASE64 = /^[A-Za-z0-9+/]{43}=$/;

/**
 * What is wrong with the key list, or the keys, first the one that encrypts. A problem names an entry by its
 * position, never by its text: a key written in the wrong place (`key:id`, no id) must not reach a log.
 */
export function parsePayloadKeys(text: string): PayloadKey[] | { problem: string } {
  const entries = text.split(',').map((entry) => entry.trim());
  const keys: PayloadKey[] = [];
  for (const [i, entry] of entries.entries()) {
    const where = `entry ${i + 1} of ${entries.length}`;
    const colon = entry.indexOf(':');
    const id = colon < 0 ? '' : entry.slice(0, colon);
    const key = colon < 0 ? '' : entry.slice(colon + 1);
    if (!PAYLOAD_KEY_ID.test(id)) {
      return { problem: `${where} must be keyId:base64key, the id 1-64 of letters, digits, '.', '_', '-'` };
    }
    if (!KEY_BASE64.test(key)) {
      return { problem: `${where}'s key must be 32 bytes in base64 (44 characters: openssl rand -base64 32)` };
    }
    if (keys.some((k) => k.id === id)) return { problem: `${where} repeats a key id that an earlier entry has` };
    keys.push({ id, key: Buffer.from(key, 'base64') });
  }
  return keys;
}

/**
 * PAYLOAD_ENCRYPTION_KEYS: `keyId:base64key[,keyId:base64key…]`. The first key encrypts every payload the engine
 * sends to Temporal, and each decrypts what was encrypted under its id (key rotation: docs/runbook.md). Unset: payloads
 * go to Temporal as they are; what was encrypted cannot be read.
 */
export const payloadEncryptionKeys = secretWhenSet('payloads go to Temporal unencrypted').transform((text, ctx) => {
  if (text === undefined) return undefined;
  const parsed = parsePayloadKeys(text);
  if (Array.isArray(parsed)) return parsed;
  ctx.addIssue({ code: 'custom', message: parsed.problem });
  return z.NEVER;
});
