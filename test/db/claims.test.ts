import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { drizzle } from 'drizzle-orm/node-postgres';
import { ClaimCheckCodec, ClaimCheckError, CLAIM_ENCODING, isClaimReference } from '../../db/claims/codec';
import { createClaimStore } from '../../db/claims/store';
import { runConvengine } from '../support/run-cli';
import { createTestDatabase, type TestDatabase } from '../support/database';

const THRESHOLD = 4096;
const utf8 = new TextEncoder();

const claimPayload = (data: string): Payload => ({
  metadata: { encoding: utf8.encode(CLAIM_ENCODING) },
  data: utf8.encode(data),
});

describe('claim-check codec over ce_payload_claim', () => {
  let tdb: TestDatabase;
  let codec: ClaimCheckCodec;
  beforeAll(async () => {
    tdb = await createTestDatabase();
    codec = new ClaimCheckCodec(createClaimStore(tdb.db), THRESHOLD);
  });
  afterAll(async () => tdb?.drop());

  const claimRows = async () =>
    (
      await tdb.pool.query<{ claim_hash: string; size_bytes: number }>(
        'SELECT claim_hash, size_bytes FROM ce_payload_claim'
      )
    ).rows;

  it('keeps small payloads inline and replaces large ones by a reference, then decodes them back', async () => {
    const small = defaultPayloadConverter.toPayload({ ok: true });
    const large = defaultPayloadConverter.toPayload({ rows: 'r'.repeat(THRESHOLD * 3) });
    const encoded = await codec.encode([small, large]);
    expect(encoded[0]).toBe(small);
    expect(isClaimReference(encoded[1] as Payload)).toBe(true);
    expect((encoded[1] as Payload).data?.byteLength).toBeLessThan(200);
    const decoded = await codec.decode(encoded);
    expect(decoded.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([
      { ok: true },
      { rows: 'r'.repeat(THRESHOLD * 3) },
    ]);
  });

  it('stores a body once, by content: the same payload again is one row', async () => {
    const before = (await claimRows()).length;
    const payload = defaultPayloadConverter.toPayload('same'.repeat(THRESHOLD));
    const [first] = await codec.encode([payload, payload]);
    const [second] = await codec.encode([payload]);
    expect(second).toEqual(first);
    expect((await claimRows()).length).toBe(before + 1);
  });

  it('a reference to a claim that is not stored fails with CLAIM_MISSING naming the claim', async () => {
    const ref = claimPayload(JSON.stringify({ sha256: 'a'.repeat(64), sizeBytes: 10 }));
    const failure = codec.decode([ref]);
    await expect(failure).rejects.toThrow(ClaimCheckError);
    await expect(failure).rejects.toMatchObject({
      type: 'CLAIM_MISSING',
      message: expect.stringContaining('a'.repeat(64)),
    });
  });

  it.each([
    ['not JSON', '{'],
    ['no hash', JSON.stringify({ sizeBytes: 1 })],
    ['a hash that is not hex', JSON.stringify({ sha256: '../../etc/passwd', sizeBytes: 1 })],
    ['a hash of the wrong length', JSON.stringify({ sha256: 'ab', sizeBytes: 1 })],
  ])('a malformed reference (%s) fails with CLAIM_REFERENCE_INVALID', async (_what, data) => {
    await expect(codec.decode([claimPayload(data)])).rejects.toMatchObject({
      name: 'ClaimCheckError',
      type: 'CLAIM_REFERENCE_INVALID',
    });
  });

  it('a stored body that no longer matches its hash fails with CLAIM_CORRUPT', async () => {
    const [ref] = await codec.encode([defaultPayloadConverter.toPayload('t'.repeat(THRESHOLD * 2))]);
    await tdb.pool.query("UPDATE ce_payload_claim SET body = body || '\\x00'::bytea");
    await expect(codec.decode([ref as Payload])).rejects.toMatchObject({ type: 'CLAIM_CORRUPT' });
  });

  it('convengine claims prune deletes only claims last referenced before the cutoff', async () => {
    await tdb.pool.query('DELETE FROM ce_payload_claim');
    const [old] = await codec.encode([defaultPayloadConverter.toPayload('o'.repeat(THRESHOLD * 2))]);
    await tdb.pool.query("UPDATE ce_payload_claim SET last_referenced_at = now() - interval '40 days'");
    const [recent] = await codec.encode([defaultPayloadConverter.toPayload('n'.repeat(THRESHOLD * 2))]);

    const pruned = await runConvengine(['claims', 'prune', '--older-than', '31d'], { DATABASE_URL: tdb.url });
    expect(pruned).toMatchObject({ code: 0, stdout: expect.stringMatching(/^pruned 1 claim\(s\)/) });
    await expect(codec.decode([recent as Payload])).resolves.toHaveLength(1);
    await expect(codec.decode([old as Payload])).rejects.toMatchObject({ type: 'CLAIM_MISSING' });
  });

  it('storing a claim again refreshes it, so prune keeps a body a new history still names', async () => {
    await tdb.pool.query('DELETE FROM ce_payload_claim');
    const payload = defaultPayloadConverter.toPayload('k'.repeat(THRESHOLD * 2));
    await codec.encode([payload]);
    await tdb.pool.query("UPDATE ce_payload_claim SET last_referenced_at = now() - interval '40 days'");
    const [again] = await codec.encode([payload]);
    expect(await createClaimStore(tdb.db).prune(new Date(Date.now() - 31 * 86_400_000))).toEqual({
      claims: 0,
      bytes: 0,
    });
    await expect(codec.decode([again as Payload])).resolves.toHaveLength(1);
  });

  it('writes and reads claims again on a fresh connection when the first one is lost', async () => {
    let sent = 0;
    // A pool whose first statement finds its session terminated (pg_terminate_backend on itself).
    const query = async (...args: unknown[]) => {
      sent += 1;
      if (sent === 1 || sent === 3) await tdb.pool.query('SELECT pg_terminate_backend(pg_backend_pid())');
      return (tdb.pool.query as (...a: unknown[]) => unknown)(...args);
    };
    const flaky = new ClaimCheckCodec(createClaimStore(drizzle({ query } as never) as never), THRESHOLD);
    const payload = defaultPayloadConverter.toPayload({ rows: 'lost'.repeat(THRESHOLD) });
    const encoded = await flaky.encode([payload]);
    expect(sent).toBe(2);
    const [decoded] = await flaky.decode(encoded);
    expect(sent).toBe(4);
    expect(defaultPayloadConverter.fromPayload(decoded as Payload)).toEqual({ rows: 'lost'.repeat(THRESHOLD) });
  });

  it.each([
    [['claims'], /the only sub-command is prune/],
    [['claims', 'prune'], /needs --older-than/],
    [['claims', 'prune', '--older-than', 'soon'], /not a duration/],
    [['claims', 'prune', '--older-than', '5m'], /at least 1h/],
    [['claims', 'prune', '--older-than', '31d', '--force'], /unknown option --force/],
  ])('convengine %j refuses with a usage error', async (args, message) => {
    const run = await runConvengine(args, { DATABASE_URL: tdb.url });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });
});
