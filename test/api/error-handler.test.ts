import { DrizzleQueryError } from 'drizzle-orm';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { DatabaseError } from 'pg';
import { installErrorHandler } from '../../api/error-handler';
import { createLogger } from '../../observability/logger';
import { captureLog } from '../support/log-capture';

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
});
