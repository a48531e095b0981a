import { executeReadOnly } from '../../../activities/tools/sql/executor';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { query } from './sql-executor-fixture';

/**
 * A SQL tool's result is the database's values, the same on every worker: neither the tools role's session defaults
 * in that database (a DBA's `ALTER ROLE … IN DATABASE … SET`, which outranks the role's own) nor the worker's time
 * zone change it.
 */
describe('SQL tool results under session defaults and the worker time zone', () => {
  let tdb: TestDatabase;
  const hostZone = process.env['TZ'];
  beforeAll(async () => {
    tdb = await createTestDatabase();
    await tdb.pool.query(`
      CREATE TABLE business.requests (id int PRIMARY KEY, requested_at timestamptz NOT NULL, wait interval NOT NULL);
      INSERT INTO business.requests VALUES (1, '2026-03-02 10:15:00+00', '1 day 2 hours');
    `);
    for (const setting of ["DateStyle = 'SQL, DMY'", "IntervalStyle = 'sql_standard'", "TimeZone = 'Pacific/Chatham'"])
      await tdb.pool.query(`ALTER ROLE ${tdb.toolsRole} IN DATABASE ${tdb.name} SET ${setting}`);
    process.env['TZ'] = 'Pacific/Chatham';
  });
  afterAll(async () => {
    if (hostZone === undefined) delete process.env['TZ'];
    else process.env['TZ'] = hostZone;
    await tdb.drop();
  });

  it('gives timestamptz as the UTC instant, and date, timestamp, time and interval as the database writes them', async () => {
    const out = await executeReadOnly(
      { pool: tdb.toolsPool() },
      query(`SELECT requested_at, requested_at::date AS day, requested_at::timestamp AS local, requested_at::time AS at,
                    wait, ARRAY[requested_at::date] AS days, ARRAY[wait] AS waits
               FROM requests`)
    );
    expect(out.rows).toEqual([
      {
        requested_at: '2026-03-02T10:15:00.000Z',
        day: '2026-03-02',
        local: '2026-03-02 10:15:00',
        at: '10:15:00',
        wait: '1 day 02:00:00',
        days: ['2026-03-02'],
        waits: ['1 day 02:00:00'],
      },
    ]);
  });
});
