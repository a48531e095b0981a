import pg from 'pg';
import { countStatements } from '../../bench/db-statements';

type Query = (...args: unknown[]) => unknown;

describe("the bench's statement count (bench/db-statements.ts)", () => {
  const proto = pg.Client.prototype as unknown as { query: Query };
  const real = proto.query;
  // No database: the client's own query is a stub, so the count is all that is tested.
  const stub: Query = () => Promise.resolve({ rows: [] });
  beforeEach(() => {
    proto.query = stub;
  });
  afterAll(() => {
    proto.query = real;
  });

  it('counts what a client sends while the work runs, by prepared name or first words, and puts pg back', async () => {
    const client = new pg.Client();
    await client.query('SELECT outside');
    const counts = await countStatements(async () => {
      await client.query({ name: 'ce_audit_write_batch_v4', text: 'WITH batch AS (SELECT 1)' });
      await client.query('BEGIN READ ONLY');
      await client.query({ text: "SELECT set_config('statement_timeout', $1, true)", values: ['5'] });
      await client.query({ name: 'ce_audit_write_batch_v4', text: 'WITH batch AS (SELECT 1)' });
    });
    expect(counts).toEqual(
      new Map([
        ['ce_audit_write_batch_v4', 2],
        ['BEGIN READ', 1],
        ['SELECT set_config', 1],
      ])
    );
    expect(proto.query).toBe(stub);
  });

  it('puts pg back when the work fails', async () => {
    await expect(countStatements(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(proto.query).toBe(stub);
  });
});
