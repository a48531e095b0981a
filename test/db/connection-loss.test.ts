import net, { type AddressInfo } from 'node:net';
import { DrizzleQueryError, sql } from 'drizzle-orm';
import {
  isConnectionLoss,
  isDatabaseUnreachable,
  markSessionRefusal,
  retryOnConnectionLoss,
} from '../../db/connection-loss';
import { openDatabase, type Database } from '../../db/pool';
import { runStatement, type Statement } from '../../db/statements';
import { listAudits, writeAuditBatch } from '../../db/repositories/audit';
import { ensureConversation } from '../../db/repositories/conversation';
import {
  ADMIN_DATABASE_URL,
  createTestDatabase,
  setAcceptingConnections,
  type TestDatabase,
} from '../support/database';

describe('connection loss (db/connection-loss.ts)', () => {
  let tdb: TestDatabase;
  const conversationId = '00000000-0000-4000-8000-0000000000ce';

  beforeAll(async () => {
    tdb = await createTestDatabase();
    await ensureConversation(tdb.db, conversationId);
  });
  afterAll(async () => tdb.drop());

  /** The driver's own error for a session the server ended (pg_terminate_backend on itself). */
  async function terminatedError(): Promise<unknown> {
    return tdb.pool.query('SELECT pg_terminate_backend(pg_backend_pid())').then(
      () => new Error('the session survived its own termination'),
      (err: unknown) => err
    );
  }

  it('recognises a terminated session, also wrapped as drizzle wraps it, and nothing else', async () => {
    const terminated = await terminatedError();
    expect(terminated).toMatchObject({ code: '57P01' });
    expect(isConnectionLoss(terminated)).toBe(true);
    expect(isConnectionLoss(new DrizzleQueryError('SELECT 1', [], terminated as Error))).toBe(true);
    expect(isConnectionLoss(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isConnectionLoss(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(true);

    const syntax = await tdb.pool.query('SELEC 1').catch((err: unknown) => err);
    expect(syntax).toMatchObject({ code: '42601' });
    expect(isConnectionLoss(syntax)).toBe(false);
    expect(isConnectionLoss(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isConnectionLoss('Connection terminated')).toBe(false);
    expect(isConnectionLoss(null)).toBe(false);
  });

  it('sends a statement again on a fresh connection after its own was terminated', async () => {
    let tries = 0;
    const result = await retryOnConnectionLoss(async () => {
      tries += 1;
      if (tries === 1) await tdb.pool.query('SELECT pg_terminate_backend(pg_backend_pid())');
      return (await tdb.pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one;
    });
    expect(result).toBe(1);
    expect(tries).toBe(2);
  });

  it('throws other failures at once, and a connection lost on every try after the third', async () => {
    let tries = 0;
    const syntax = retryOnConnectionLoss(async () => {
      tries += 1;
      return tdb.pool.query('SELEC 1');
    });
    await expect(syntax).rejects.toMatchObject({ code: '42601' });
    expect(tries).toBe(1);

    tries = 0;
    const alwaysLost = retryOnConnectionLoss(async () => {
      tries += 1;
      return tdb.pool.query('SELECT pg_terminate_backend(pg_backend_pid())');
    });
    await expect(alwaysLost).rejects.toMatchObject({ code: '57P01' });
    expect(tries).toBe(3);
  });

  /** What a statement sent on a pool over `url` gets. */
  async function firstStatementOn(url: string): Promise<unknown> {
    const other = openDatabase(url, { max: 1 });
    try {
      return await other.db.execute(sql`select 1`).catch((err: unknown) => err);
    } finally {
      await other.close();
    }
  }
  const onServer = (change: Partial<Pick<URL, 'pathname' | 'username' | 'port'>>) =>
    Object.assign(new URL(ADMIN_DATABASE_URL), change).toString();

  it('reads a database that refuses sessions as unreachable, not as a lost connection to send again on', async () => {
    await setAcceptingConnections(tdb.name, false);
    let refused: unknown;
    try {
      refused = await tdb.db.execute(sql`select 1`).catch((err: unknown) => err);
    } finally {
      await setAcceptingConnections(tdb.name, true);
    }
    expect(refused).toBeInstanceOf(DrizzleQueryError);
    expect((refused as Error).cause).toMatchObject({ code: '55000', severity: 'FATAL' });
    expect(isDatabaseUnreachable(refused)).toBe(true);
    expect(isConnectionLoss(refused)).toBe(false);

    const role = `ce_t_${process.pid}_full`;
    await tdb.pool.query(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 0`);
    try {
      const tooMany = await firstStatementOn(onServer({ username: role }));
      expect((tooMany as Error).cause).toMatchObject({ code: '53300' });
      expect(isDatabaseUnreachable(tooMany)).toBe(true);
    } finally {
      await tdb.pool.query(`DROP ROLE ${role}`);
    }
  });

  it('reads a session refused for a wrong DATABASE_URL (no such database, no such role) as unreachable', async () => {
    const notThere = await firstStatementOn(onServer({ pathname: '/ce_no_such_db' }));
    expect((notThere as Error).cause).toMatchObject({ code: '3D000', severity: 'FATAL' });
    expect(isDatabaseUnreachable(notThere)).toBe(true);
    const nobody = await firstStatementOn(onServer({ username: 'ce_no_such_role' }));
    expect((nobody as Error).cause).toMatchObject({ code: '28000', severity: 'FATAL' });
    expect(isDatabaseUnreachable(nobody)).toBe(true);
    expect([notThere, nobody].map(isConnectionLoss)).toEqual([false, false]);

    // The same SQLSTATE for what a statement asked is the statement's failure.
    const dropMissing = await tdb.pool.query('DROP DATABASE ce_no_such_db').catch((err: unknown) => err);
    expect(dropMissing).toMatchObject({ code: '3D000', severity: 'ERROR' });
    expect(isDatabaseUnreachable(dropMissing)).toBe(false);
  });

  it('reads a refusal whose severity the server wrote in its own language (lc_messages) as unreachable', async () => {
    const server = await refusingPostgres({
      S: 'FATALE',
      V: 'FATAL',
      C: '55000',
      M: 'il database non accetta connessioni',
    });
    try {
      const refused = await firstStatementOn(onServer({ port: String(server.port) }));
      expect((refused as Error).cause).toMatchObject({ code: '55000', severity: 'FATALE' });
      expect(isDatabaseUnreachable(refused)).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('reads a statement refused for what it asked (55000 as an ERROR) as neither', async () => {
    const session = await tdb.pool.connect();
    try {
      await session.query('CREATE TEMPORARY SEQUENCE never_advanced');
      const unset = await session.query("SELECT currval('never_advanced')").catch((err: unknown) => err);
      expect(unset).toMatchObject({ code: '55000', severity: 'ERROR' });
      expect(isDatabaseUnreachable(unset)).toBe(false);
      expect(isDatabaseUnreachable(new DrizzleQueryError('SELECT 1', [], unset as Error))).toBe(false);
      expect(isConnectionLoss(unset)).toBe(false);
    } finally {
      session.release();
    }
  });

  /** A database whose first statement loses its connection; `sent` counts the statements. */
  function losesFirstConnection(): { db: Database; sent: () => number } {
    let sent = 0;
    const query = async (config: unknown) => {
      sent += 1;
      if (sent === 1) await tdb.pool.query('SELECT pg_terminate_backend(pg_backend_pid())');
      return tdb.pool.query(config as never);
    };
    return { db: { $client: { query } } as unknown as Database, sent: () => sent };
  }

  it('resends only statements declared resendable', async () => {
    const plain = losesFirstConnection();
    const once: Statement = { name: 'connection_loss_plain_v1', text: 'SELECT 1 AS one' };
    const failure = await runStatement(plain.db, once, []).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(DrizzleQueryError);
    expect(isConnectionLoss(failure)).toBe(true);
    expect(plain.sent()).toBe(1);

    const resendable = losesFirstConnection();
    const twice: Statement = { ...once, name: 'connection_loss_resendable_v1', resendable: true };
    expect(await runStatement(resendable.db, twice, [])).toEqual([{ one: 1 }]);
    expect(resendable.sent()).toBe(2);
  });

  it('writes an audit batch whose first connection was lost, once', async () => {
    const { db: flaky, sent } = losesFirstConnection();
    const key = 'connection-loss/write/0';
    await writeAuditBatch(flaky, [
      {
        rows: [
          {
            conversationId,
            turnNumber: 1,
            stage: 'STEP_EXIT',
            payload: { step: 'McpToolCall' },
            idempotencyKey: key,
            workflowId: null,
            runId: null,
          },
        ],
        replaceUnder: null,
      },
    ]);
    expect(sent()).toBe(2);
    const rows = (await listAudits(tdb.db, conversationId)).filter((r) => r.idempotencyKey === key);
    expect(rows).toHaveLength(1);
  });
});

const pgError = (code: string, message: string, severity = 'ERROR') =>
  Object.assign(new Error(message), { code, severity });

/**
 * A server that answers every session's startup with one ErrorResponse of these fields (S severity as localised, V as
 * not, C SQLSTATE, M message) and hangs up, as PostgreSQL refusing a session does.
 */
async function refusingPostgres(fields: Record<string, string>): Promise<{ port: number; close(): Promise<void> }> {
  const body = Buffer.concat([
    ...Object.entries(fields).map(([type, value]) => Buffer.from(`${type}${value}\0`)),
    Buffer.from([0]),
  ]);
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length + 4);
  const response = Buffer.concat([Buffer.from('E'), length, body]);
  const server = net.createServer((socket) => {
    socket.on('error', () => socket.destroy());
    socket.once('data', () => socket.end(response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('isDatabaseUnreachable, which a step waits out as it is (activities/runtime/database-outage.ts)', () => {
  it('a session refused (marked by the pool), unreachable or lost; also wrapped as drizzle wraps it', () => {
    const closed = markSessionRefusal(
      pgError('55000', 'database "ce" is not currently accepting connections', 'FATAL')
    );
    expect(isDatabaseUnreachable(closed)).toBe(true);
    expect(isDatabaseUnreachable(new DrizzleQueryError('SELECT 1', [], closed))).toBe(true);
    expect(isDatabaseUnreachable(markSessionRefusal(pgError('53300', 'sorry, too many clients already')))).toBe(true);
    expect(isDatabaseUnreachable(pgError('57P03', 'the database system is starting up'))).toBe(true);
    expect(isDatabaseUnreachable(pgError('57P01', 'terminating connection due to administrator command'))).toBe(true);
    expect(isDatabaseUnreachable(pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'))).toBe(true);
    expect(isDatabaseUnreachable(new Error('timeout exceeded when trying to connect'))).toBe(true);
  });

  it('not a statement the database refused, whatever its SQLSTATE or severity says', () => {
    expect(isDatabaseUnreachable(pgError('55000', 'currval of sequence "s" is not yet defined in this session'))).toBe(
      false
    );
    expect(isDatabaseUnreachable(pgError('55000', 'not accepting connections', 'FATAL'))).toBe(false);
    expect(isDatabaseUnreachable(pgError('3D000', 'database "x" does not exist'))).toBe(false);
    expect(isDatabaseUnreachable(pgError('23505', 'duplicate key value violates unique constraint'))).toBe(false);
    expect(isDatabaseUnreachable(pgError('42601', 'syntax error at or near "SELEC"'))).toBe(false);
    expect(isDatabaseUnreachable(null)).toBe(false);
    expect(markSessionRefusal(null)).toBeNull();
  });
});
