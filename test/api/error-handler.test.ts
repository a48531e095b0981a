import { DrizzleQueryError } from 'drizzle-orm';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { DatabaseError } from 'pg';
import { installErrorHandler } from '../../api/error-handler';
import { markSessionRefusal } from '../../db/connection-loss';
import { createLogger } from '../../observability/logger';
import { captureLog, type LogCapture } from '../support/log-capture';

/** A server error with its SQLSTATE, as pg raises it. */
const serverError = (message: string, code: string) => Object.assign(new DatabaseError(message, 0, 'error'), { code });
/** Node's error of a failed socket. */
const socketError = (message: string, code: string) => Object.assign(new Error(message), { code });
/** A failed statement as drizzle raises it, quoting the statement and its values. */
const failedQuery = (cause: Error) =>
  new DrizzleQueryError('select * from ce_conversation where id = $1', ['4111'], cause);

/** The reply and the error log line of a route that throws `err`. */
async function thrown(err: Error): Promise<{ status: number; body: string; retryAfter: unknown; log: LogCapture }> {
  const log = captureLog();
  const logger = createLogger({ level: 'info', format: 'json', name: 'api', destination: log.stream });
  const app = Fastify({ loggerInstance: logger as FastifyBaseLogger });
  installErrorHandler(app);
  app.get('/fail', async () => {
    throw err;
  });
  try {
    const response = await app.inject({ method: 'GET', url: '/fail' });
    return { status: response.statusCode, body: response.body, retryAfter: response.headers['retry-after'], log };
  } finally {
    await app.close();
  }
}

describe('the error handler (api/error-handler.ts)', () => {
  it('answers a failed database statement INTERNAL and logs it without the statement or its values', async () => {
    const log = captureLog();
    const logger = createLogger({ level: 'info', format: 'json', name: 'api', destination: log.stream });
    const app = Fastify({ loggerInstance: logger as FastifyBaseLogger });
    installErrorHandler(app);
    const driver = Object.assign(new DatabaseError('value too long for type character varying(8)', 0, 'error'), {
      code: '22001',
    });
    app.post('/fail', async () => {
      throw new DrizzleQueryError('insert into ce_turn_request (message) values ($1)', ['my card is 4111'], driver);
    });
    try {
      const response = await app.inject({ method: 'POST', url: '/fail', payload: {} });
      expect(response.statusCode).toBe(500);
      expect(response.json()).toEqual({ error: { code: 'INTERNAL', message: 'Something went wrong on our side.' } });
      expect(response.body).not.toContain('insert');
    } finally {
      await app.close();
    }
    const line = log
      .raw()
      .split('\n')
      .find((l) => l.includes('unhandled error'));
    expect(line).toBeDefined();
    expect(JSON.parse(line ?? '{}')).toMatchObject({
      err: {
        type: 'DrizzleQueryError',
        message: 'A database statement failed: value too long for type character varying(8) (SQLSTATE 22001)',
        sqlState: '22001',
      },
    });
    for (const leaked of ['4111', 'insert into', 'Failed query']) expect(log.raw()).not.toContain(leaked);
  });

  describe('a database that cannot be reached or dropped the connection: 503 DATABASE_UNREACHABLE on any route', () => {
    const unreachable = {
      'a refused connection': failedQuery(socketError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')),
      'a reset connection': failedQuery(socketError('read ECONNRESET', 'ECONNRESET')),
      'a socket timeout': failedQuery(socketError('connect ETIMEDOUT 10.0.0.1:5432', 'ETIMEDOUT')),
      'a lost connection (pg, no code)': failedQuery(new Error('Connection terminated unexpectedly')),
      "the pool's connect timeout": new Error('timeout exceeded when trying to connect'),
      "a new client's connect timeout": new Error('Connection terminated due to connection timeout', {
        cause: new Error('Connection terminated'),
      }),
      'SQLSTATE 08006 (connection failure)': failedQuery(serverError('connection failure', '08006')),
      'SQLSTATE 57P01 (admin shutdown)': serverError('terminating connection due to administrator command', '57P01'),
      'SQLSTATE 57P03 (cannot connect now)': serverError('the database system is starting up', '57P03'),
      // What the pool's client marks as raised while it opened a session (db/session-client.ts): the server refused one.
      'a session refused: too many connections (53300)': failedQuery(
        markSessionRefusal(serverError('sorry, too many clients already', '53300'))
      ),
      'a session refused: a database not accepting connections (55000)': failedQuery(
        markSessionRefusal(serverError('database "x" is not currently accepting connections', '55000'))
      ),
      'a session refused: no such database (3D000)': failedQuery(
        markSessionRefusal(serverError('database "x" does not exist', '3D000'))
      ),
      'a session refused: a login refused (28P01)': failedQuery(
        markSessionRefusal(serverError('password authentication failed for user "x"', '28P01'))
      ),
    };
    it.each(Object.entries(unreachable))('%s', async (_name, err) => {
      const reply = await thrown(err);
      expect(reply).toMatchObject({ status: 503, retryAfter: '5' });
      expect(JSON.parse(reply.body)).toEqual({
        error: { code: 'DATABASE_UNREACHABLE', message: 'The database is unreachable; retry later.' },
      });
      expect(reply.log.lines().find((l) => l['msg'] === 'database unreachable')).toBeDefined();
      for (const leaked of ['4111', 'ce_conversation', '5432']) expect(reply.body).not.toContain(leaked);
    });

    it("logs a socket's code as systemCode, not as a SQLSTATE", async () => {
      const reply = await thrown(failedQuery(socketError('read ECONNRESET', 'ECONNRESET')));
      const line = reply.log.lines().find((l) => l['msg'] === 'database unreachable');
      expect(line?.['err']).toMatchObject({ type: 'DrizzleQueryError', sqlState: null, systemCode: 'ECONNRESET' });
      for (const leaked of ['4111', 'ce_conversation']) expect(reply.log.raw()).not.toContain(leaked);
    });

    it('a statement the server refused (a constraint, a bad value, the same SQLSTATEs in a session) stays INTERNAL', async () => {
      for (const code of ['23505', '22001', '28P01', '3D000', '57014', '55000']) {
        const reply = await thrown(failedQuery(serverError('refused', code)));
        expect({ code, status: reply.status }).toEqual({ code, status: 500 });
      }
      expect((await thrown(socketError('other', 'ERR_INVALID_ARG_TYPE'))).status).toBe(500);
    });
  });
});
