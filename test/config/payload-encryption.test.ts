import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { loadEnv } from '../../config/env';
import {
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA,
  PayloadEncryptionCodec,
  PayloadEncryptionError,
} from '../../config/payload-encryption';
import type { PayloadKey } from '../../config/payload-keys';
import { issuesOf } from './env-issues';

const keyOf = (id: string): PayloadKey => ({ id, key: randomBytes(32) });
const SECRET_TEXT = 'my card number is 4111-1111-1111-1111';
const plain = () => defaultPayloadConverter.toPayload({ message: SECRET_TEXT, inputParams: { iban: 'DE89 3704' } });
const text = (payload: Payload) => Buffer.from(payload.data ?? []).toString('latin1');
const metadata = (payload: Payload, name: string) => Buffer.from(payload.metadata?.[name] ?? []).toString();

async function decodeError(codec: PayloadEncryptionCodec, payload: Payload): Promise<PayloadEncryptionError> {
  const err = await codec.decode([payload]).then(
    () => null,
    (e: unknown) => e
  );
  if (!(err instanceof PayloadEncryptionError)) throw new Error(`expected PayloadEncryptionError, got ${String(err)}`);
  return err;
}

describe('PayloadEncryptionCodec', () => {
  const k1 = keyOf('k1');

  it('round trip: the whole payload is sealed under the first key, metadata says how, and opens as it was', async () => {
    const codec = new PayloadEncryptionCodec([k1]);
    const [sealed] = (await codec.encode([plain()])) as [Payload];
    expect(metadata(sealed, 'encoding')).toBe(ENCRYPTED_ENCODING);
    expect(metadata(sealed, KEY_ID_METADATA)).toBe('k1');
    expect(Object.keys(sealed.metadata ?? {}).sort()).toEqual(['encoding', KEY_ID_METADATA].sort());
    expect(text(sealed)).not.toContain('4111');
    expect(text(sealed)).not.toContain('json/plain');
    const [opened] = (await codec.decode([sealed])) as [Payload];
    expect(defaultPayloadConverter.fromPayload(opened)).toEqual({
      message: SECRET_TEXT,
      inputParams: { iban: 'DE89 3704' },
    });
    expect(metadata(opened, 'encoding')).toBe('json/plain');
    // A random nonce each time: the same value never seals to the same bytes.
    const [again] = (await codec.encode([plain()])) as [Payload];
    expect(Buffer.from(again.data ?? []).equals(Buffer.from(sealed.data ?? []))).toBe(false);
  });

  it('rotation: a new first key encrypts, the old one still decrypts what it sealed', async () => {
    const k2 = keyOf('k2');
    const [old] = (await new PayloadEncryptionCodec([k1]).encode([plain()])) as [Payload];
    const rotated = new PayloadEncryptionCodec([k2, k1]);
    const [fresh] = (await rotated.encode([plain()])) as [Payload];
    expect(metadata(fresh, KEY_ID_METADATA)).toBe('k2');
    const opened = await rotated.decode([old, fresh]);
    expect(opened.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([
      { message: SECRET_TEXT, inputParams: { iban: 'DE89 3704' } },
      { message: SECRET_TEXT, inputParams: { iban: 'DE89 3704' } },
    ]);
    // Once k1 is retired, what it sealed is an error, not ciphertext passed on.
    const err = await decodeError(new PayloadEncryptionCodec([k2]), old);
    expect(err.type).toBe('PAYLOAD_KEY_UNKNOWN');
    expect(err.message).toBe('payload is encrypted under key id "k1", and PAYLOAD_ENCRYPTION_KEYS does not hold it');
  });

  it('tampering with the ciphertext, the nonce or the tag, or another key under the same id, fails authentication', async () => {
    const codec = new PayloadEncryptionCodec([k1]);
    const [sealed] = (await codec.encode([plain()])) as [Payload];
    const flipped = (at: number): Payload => {
      const data = Buffer.from(sealed.data ?? []);
      data[at] = (data[at] ?? 0) ^ 0x01;
      return { ...sealed, data };
    };
    const length = sealed.data?.byteLength ?? 0;
    for (const at of [0, 20, length - 1]) {
      const err = await decodeError(codec, flipped(at));
      expect(err.type).toBe('PAYLOAD_DECRYPTION_FAILED');
      expect(err.message).toMatch(/^payload encrypted under key id "k1" does not authenticate/);
    }
    expect((await decodeError(codec, { ...sealed, data: new Uint8Array(5) })).type).toBe('PAYLOAD_DECRYPTION_FAILED');
    // Another key under the same id (a key replaced instead of rotated) fails the same way.
    const other = new PayloadEncryptionCodec([keyOf('k1')]);
    expect((await decodeError(other, sealed)).type).toBe('PAYLOAD_DECRYPTION_FAILED');
  });

  it('an unknown or missing key id is PAYLOAD_KEY_UNKNOWN, and metadata text is printed only as a key id', async () => {
    const codec = new PayloadEncryptionCodec([k1]);
    const [sealed] = (await codec.encode([plain()])) as [Payload];
    const named = (id: string | undefined): Payload => {
      const rest = { encoding: sealed.metadata?.['encoding'] as Uint8Array };
      return { data: sealed.data, metadata: id === undefined ? rest : { ...rest, [KEY_ID_METADATA]: Buffer.from(id) } };
    };
    expect((await decodeError(codec, named('k9'))).message).toContain('key id "k9"');
    expect((await decodeError(codec, named(undefined))).message).toContain('key id (none)');
    const hostile = await decodeError(codec, named('<script>\n4111'));
    expect(hostile.type).toBe('PAYLOAD_KEY_UNKNOWN');
    expect(hostile.message).not.toContain('4111');
    // No keys at all: nothing is encrypted, and an encrypted payload is still an error.
    const keyless = new PayloadEncryptionCodec([]);
    expect((await decodeError(keyless, sealed)).message).toBe(
      'payload is encrypted under key id "k1", and PAYLOAD_ENCRYPTION_KEYS is unset'
    );
    const untouched = plain();
    expect(await keyless.encode([untouched])).toEqual([untouched]);
  });

  it('passes through a payload that is not encrypted: histories from before the keys, replay fixtures', async () => {
    const codec = new PayloadEncryptionCodec([k1]);
    const old = [
      plain(),
      defaultPayloadConverter.toPayload(null),
      defaultPayloadConverter.toPayload(new Uint8Array([1])),
    ];
    expect(await codec.decode(old)).toEqual(old);
  });
});

describe('PAYLOAD_ENCRYPTION_KEYS', () => {
  const b64 = (bytes = 32) => randomBytes(bytes).toString('base64');

  it('is a list of keyId:base64 entries, the first encrypting', () => {
    const [a, b] = [b64(), b64()];
    const { PAYLOAD_ENCRYPTION_KEYS: keys } = loadEnv({ PAYLOAD_ENCRYPTION_KEYS: `2026-05:${a}, 2025-11:${b}` });
    expect(keys?.map((k) => [k.id, k.key.toString('base64')])).toEqual([
      ['2026-05', a],
      ['2025-11', b],
    ]);
    expect(loadEnv({})).not.toHaveProperty('PAYLOAD_ENCRYPTION_KEYS', expect.anything());
  });

  it('refuses a malformed list with a reason that never prints a key', () => {
    const key = b64();
    const short = b64(16);
    const cases: [string, RegExp][] = [
      [key, /^entry 1 of 1 must be keyId:base64key/],
      [`${key}:k1`, /^entry 1 of 1 must be keyId:base64key/],
      [`k1:${short}`, /^entry 1 of 1's key must be 32 bytes in base64/],
      [`k1:${key},k2:${key.slice(0, -2)}`, /^entry 2 of 2's key must be 32 bytes/],
      [`k1:${key},k1:${b64()}`, /^entry 2 of 2 repeats a key id/],
      [`k1:${key},`, /^entry 2 of 2 must be keyId:base64key/],
      [`bad id:${key}`, /^entry 1 of 1 must be keyId:base64key/],
      ['', /^is set but blank/],
    ];
    for (const [value, reason] of cases) {
      let message = '';
      const issues = issuesOf(() => {
        try {
          return loadEnv({ PAYLOAD_ENCRYPTION_KEYS: value });
        } catch (err) {
          message = (err as Error).message;
          throw err;
        }
      });
      expect(issues['PAYLOAD_ENCRYPTION_KEYS']).toMatch(reason);
      for (const secret of [key, short, key.slice(0, 20)]) expect(message).not.toContain(secret);
    }
  });
});
