import { executeReadOnly, sqlFailure } from '../../../activities/tools/sql/executor';
import { createPool } from '../../../db/pool';
import { toolsDatabaseUrl } from '../../../db/tools-role';
import { eventually } from '../../devserver/harness';
import { engineFailure } from '../../support/engine-failure';
import { executorDatabase, query } from './sql-executor-fixture';

/**
 * Defense in depth (P4, D20): these tests hand SQL to the executor directly, as if the guardrail
 * had been bypassed, and show that the tools role's own login, the READ ONLY transaction and the
 * server-side limits each refuse on their own: no write, no escape from the role, no lock that
 * outlives the query, no unbounded result. The role's own refusals are in sql-executor-role.test.ts.
 */
describe('read-only SQL executor', () => {
  const db = executorDatabase();

  it('reads the business schema through the search path, binds values and caps rows', async () => {
    const out = await executeReadOnly(
      db.appTarget,
      query('select id, created_at from orders where id <= $1 order by id', [12], { maxRows: 10 })
    );
    expect(out.rowCount).toBe(10);
    expect(out.truncated).toBe(true);
    expect(out.rows[0]).toEqual({ id: 1, created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) });
    const all = await executeReadOnly(db.appTarget, query('select id from orders where id <= 3;'));
    expect(all).toMatchObject({ rowCount: 3, truncated: false });
  });

  it('cannot write even through a function that inserts (READ ONLY transaction)', async () => {
    const err = await engineFailure(executeReadOnly(db.appTarget, query('select business.sneaky_insert()')));
    expect(err).toMatchObject({ type: 'TOOL_NOT_ALLOWED', retryable: false });
    expect(err.message).toMatch(/read-only transaction|permission denied/);
    expect(await db.count()).toBe(30);
  });

  it('cannot advance a sequence or read outside the business schema', async () => {
    expect(
      (await engineFailure(executeReadOnly(db.appTarget, query("select nextval('business.order_seq')")))).type
    ).toBe('TOOL_NOT_ALLOWED');
    const secret = await engineFailure(executeReadOnly(db.appTarget, query('select v from public.secrets')));
    expect(secret.message).toContain('permission denied');
  });

  it('runs exactly one statement (extended protocol) and times out long queries', async () => {
    await engineFailure(executeReadOnly(db.appTarget, query('select 1; delete from orders')));
    const slow = await engineFailure(
      executeReadOnly(
        db.appTarget,
        query('select count(*) from generate_series(1, 1e10)', [], { statementTimeoutMs: 150 })
      )
    );
    // The same statement would take as long again: it is not retried.
    expect(slow).toMatchObject({ type: 'TOOL_TIMEOUT', retryable: false, details: { sqlState: '57014' } });
    expect(slow.message).toBe('SQL tool query took longer than its statement timeout of 150 ms and was cancelled');
    expect(await db.count()).toBe(30);
  });

  it('cancels its statement on the server when its signal aborts (a cancelled activity), with the abort reason', async () => {
    const waitingToolQueries = async (): Promise<number> => {
      const r = await db.tdb.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND usename = $1 AND wait_event_type = 'Lock'`,
        [db.tdb.toolsRole]
      );
      return r.rows[0]?.n ?? -1;
    };
    // One connection: the pool would hand the cancelled one to the next statement, were it pooled again.
    const target = { pool: createPool(toolsDatabaseUrl(db.tdb.url), { max: 1 }) };
    const backendPid = async () => {
      const { rows } = await executeReadOnly(target, query('select pg_backend_pid() as pid'));
      return rows[0]?.['pid'];
    };
    const cancelledPid = await backendPid();
    // The table locked by another session: the tool's statement waits, as a slow query would run, for up to 20 s.
    const holder = await db.tdb.pool.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE business.orders IN ACCESS EXCLUSIVE MODE');
    try {
      const controller = new AbortController();
      const slow = { statementTimeoutMs: 20_000, lockTimeoutMs: 20_000, signal: controller.signal };
      const running = executeReadOnly(target, query('select id from orders', [], slow)).catch((e: unknown) => e);
      await eventually(async () => expect(await waitingToolQueries()).toBe(1));
      const cancelledAt = Date.now();
      controller.abort(new Error('the activity was cancelled'));
      const err = await running;
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).message).toBe('the activity was cancelled');
      expect(Date.now() - cancelledAt).toBeLessThan(5_000);
      expect(await waitingToolQueries()).toBe(0);
      await expect(
        executeReadOnly(target, query('select 1 as one', [], { signal: controller.signal }))
      ).rejects.toThrow('the activity was cancelled');
      // A late cancel could reach only the discarded session: the next statement runs on another.
      const next = await backendPid();
      expect(next).toEqual(expect.any(Number));
      expect(next).not.toBe(cancelledPid);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
      await target.pool.end();
    }
  });

  it('fails at once, naming the limit, when the query reaches a limit of its own', async () => {
    // A temp_file_limit for the tools role in this database only, so the spill fails within a few MB.
    await db.tdb.pool.query(`ALTER ROLE ${db.tdb.toolsRole} IN DATABASE ${db.tdb.name} SET temp_file_limit = '1MB'`);
    const limited = createPool(toolsDatabaseUrl(db.tdb.url), { max: 1 });
    try {
      const spilled = await engineFailure(
        executeReadOnly({ pool: limited }, query('select count(*) from generate_series(1, 10000000000)'))
      );
      expect(spilled).toMatchObject({
        type: 'TOOL_EXECUTION_FAILED',
        retryable: false,
        details: { sqlState: '53400' },
      });
      expect(spilled.message).toMatch(
        /^SQL tool query was stopped by a database limit: temporary file size exceeds temp_file_limit \(\d+kB\) \(SQLSTATE 53400\)$/
      );
    } finally {
      await limited.end();
      await db.tdb.pool.query(`ALTER ROLE ${db.tdb.toolsRole} IN DATABASE ${db.tdb.name} RESET temp_file_limit`);
    }
    const tooLong = await engineFailure(executeReadOnly(db.appTarget, query("select repeat('x', 1100000000)")));
    expect(tooLong).toMatchObject({ type: 'TOOL_EXECUTION_FAILED', retryable: false, details: { sqlState: '54000' } });
    expect(tooLong.message).toBe(
      'SQL tool query was stopped by a database limit: requested length too large (SQLSTATE 54000)'
    );
  });

  it('caps the result by bytes on the server, even when a single row is too large', async () => {
    const many = await executeReadOnly(
      db.appTarget,
      query("select g, repeat('x', 1000) as pad from generate_series(1, 50) g order by g", [], {
        maxResultBytes: 10_000,
      })
    );
    expect(many.truncatedBy).toBe('BYTES');
    expect(many.rowCount).toBeGreaterThan(0);
    expect(many.rowCount).toBeLessThan(10);
    expect(many.rows.map((r) => r['g'])).toEqual(Array.from({ length: many.rowCount }, (_, i) => i + 1));
    const huge = await executeReadOnly(
      db.appTarget,
      query("select repeat('x', 5000000) as pad", [], { maxResultBytes: 1_000_000 })
    );
    expect(huge).toMatchObject({ rows: [], rowCount: 0, truncated: true, truncatedBy: 'BYTES' });
    const none = await executeReadOnly(db.appTarget, query('select 1 where false'));
    expect(none).toMatchObject({ rows: [], truncated: false, truncatedBy: null });
  });
});

describe('SQL tool failures by SQLSTATE', () => {
  const failed = (code: string, message: string) => sqlFailure(Object.assign(new Error(message), { code }), 'Q');

  it('does not retry a limit the query reached: its memory, a configured limit, a program limit', () => {
    expect(failed('53200', 'out of memory')).toMatchObject({
      retryable: false,
      message: 'Q was stopped by a database limit: out of memory (SQLSTATE 53200)',
    });
    expect(failed('54001', 'stack depth limit exceeded')).toMatchObject({ retryable: false });
    expect(failed('53400', 'temporary file size exceeds temp_file_limit (262144kB)').message).toContain(
      'temp_file_limit'
    );
  });

  it('retries what another attempt may pass, each with its own cause and no role or file names', () => {
    const slots = failed('53300', `too many connections for role "convengine_tools_ro_x"`);
    expect(slots).toMatchObject({ type: 'TOOL_EXECUTION_FAILED', retryable: true });
    expect(slots.message).toBe('Q failed: the database server ran short of disk space or connections (SQLSTATE 53300)');
    expect(failed('53100', 'could not extend file "base/1/2": No space left on device').message).not.toContain('base/');
    for (const code of ['08006', '57P01']) {
      expect(failed(code, 'terminating connection')).toMatchObject({
        retryable: true,
        message: 'Q failed: the database connection for SQL tools failed',
      });
    }
    for (const code of ['40001', '40P01']) expect(failed(code, 'deadlock detected')).toMatchObject({ retryable: true });
    expect(failed('55P03', 'canceling statement due to lock timeout')).toMatchObject({
      type: 'TOOL_TIMEOUT',
      retryable: true,
    });
  });
});
