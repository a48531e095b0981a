import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload, type PayloadCodec } from '@temporalio/common';
import { isClaimReference } from '../../db/claims/codec';
import { engineDataConverter } from '../../db/data-converter';
import { createTestDatabase, type TestDatabase } from '../support/database';

const THRESHOLD = 1024;
/** As the SDK runs a data converter's codecs: encoding in order, decoding backwards. */
async function encode(codecs: PayloadCodec[], payloads: Payload[]): Promise<Payload[]> {
  for (const codec of codecs) payloads = await codec.encode(payloads);
  return payloads;
}
async function decode(codecs: PayloadCodec[], payloads: Payload[]): Promise<Payload[]> {
  for (const codec of [...codecs].reverse()) payloads = await codec.decode(payloads);
  return payloads;
}

const USER_TEXT = 'Please send the statement to jane.doe@example.com, IBAN DE89370400440532013000';

describe('the engine data converter with PAYLOAD_ENCRYPTION_KEYS: claim bodies in ce_payload_claim', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
  });
  afterAll(async () => tdb?.drop());

  const bodies = async () =>
    (await tdb.pool.query<{ body: Buffer }>('SELECT body FROM ce_payload_claim')).rows.map((r) => r.body);

  it('encrypts before it offloads: the stored body holds no plaintext, and decodes back with the key', async () => {
    const keys = [{ id: 'k1', key: randomBytes(32) }];
    const settings = { CLAIM_CHECK_THRESHOLD_BYTES: THRESHOLD, PAYLOAD_ENCRYPTION_KEYS: keys };
    const codecs = engineDataConverter(settings, tdb.db).payloadCodecs as PayloadCodec[];
    const value = { message: USER_TEXT, inputParams: { note: USER_TEXT.repeat(40) } };
    const [stored] = (await encode(codecs, [defaultPayloadConverter.toPayload(value)])) as [Payload];
    expect(isClaimReference(stored)).toBe(true);

    const rows = await bodies();
    expect(rows).toHaveLength(1);
    const body = rows[0] as Buffer;
    expect(body.byteLength).toBeGreaterThan(USER_TEXT.length * 40);
    for (const needle of ['jane.doe', 'DE8937', 'json/plain', 'inputParams']) {
      expect(body.toString('latin1')).not.toContain(needle);
    }
    expect(body.toString('latin1')).toContain('binary/encrypted');

    const [back] = (await decode(codecs, [stored])) as [Payload];
    expect(defaultPayloadConverter.fromPayload(back)).toEqual(value);
    // Without the key the claim is fetched but never shown: a typed error.
    const keyless = engineDataConverter({ ...settings, PAYLOAD_ENCRYPTION_KEYS: undefined }, tdb.db);
    await expect(decode(keyless.payloadCodecs as PayloadCodec[], [stored])).rejects.toMatchObject({
      name: 'PayloadEncryptionError',
      type: 'PAYLOAD_KEY_UNKNOWN',
    });
  });
});
