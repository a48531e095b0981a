/**
 * The API on a database that answers, but slower than its pool is asked: a request that gets no pooled connection in
 * time answers 503 DATABASE_BUSY with retry-after, and the log gives the pool's state rather than "check DATABASE_URL".
 * Before, the same load answered 503 DATABASE_UNREACHABLE while PostgreSQL was up the whole time.
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { startApiServer, type ApiServer } from '../../api/server';
import { loadEnv } from '../../config/env';
import { localTemporal } from '../../config/temporal-connection';
import { startDevServer, type DevServer } from '../../devserver';
import { createLogger } from '../../observability/logger';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { captureLog, type LogCapture } from '../support/log-capture';

jest.setTimeout(90_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Holds ce_conversation locked 700 ms at a time until `stop`: every read of it waits, and they end in bursts. */
async function lockInTurns(url: string, stop: { done: boolean }): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    while (!stop.done) {
      await client.query('BEGIN');
      await client.query('LOCK TABLE ce_conversation IN ACCESS EXCLUSIVE MODE');
      await sleep(700);
      await client.query('COMMIT');
    }
  } finally {
    await client.end();
  }
}

interface Answer {
  status: number;
  retryAfter: string | null;
  code: string | undefined;
}

async function answer(url: string, init?: RequestInit): Promise<Answer> {
  const res = await fetch(url, init);
  const body = (await res.json()) as { error?: { code?: string } };
  return { status: res.status, retryAfter: res.headers.get('retry-after'), code: body.error?.code };
}

describe('the API on a saturated pool', () => {
  let server: DevServer;
  let db: TestDatabase;
  let api: ApiServer;
  let log: LogCapture;
  beforeAll(async () => {
    server = await startDevServer({ port: 0 });
    db = await createTestDatabase();
    const env = loadEnv({ DATABASE_URL: db.url, TEMPORAL_NAMESPACE: server.namespace });
    log = captureLog();
    const logger = createLogger({ level: 'info', format: 'json', name: 'api', destination: log.stream });
    api = await startApiServer({
      env,
      databaseUrl: db.url,
      temporal: localTemporal(server.address),
      host: '127.0.0.1',
      port: 0,
      logger,
      prerequisiteCacheMs: 0,
    });
  });
  afterAll(async () => {
    await api?.close({ drainMs: 0 });
    await server?.stop();
    await db?.drop();
  });

  it('answers 503 DATABASE_BUSY with retry-after, never DATABASE_UNREACHABLE, and logs how full the pool was', async () => {
    const stop = { done: false };
    const locking = lockInTurns(db.url, stop);
    try {
      await sleep(100);
      // Far more reads than the pool's 10 connections: the ones behind wait for a connection.
      const reads = Array.from({ length: 150 }, () => answer(`${api.url}/api/v1/conversation/${randomUUID()}`));
      await sleep(300);
      const message = await answer(`${api.url}/api/v1/conversation/message`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'hello' }),
      });
      expect(message).toEqual({ status: 503, retryAfter: '5', code: 'DATABASE_BUSY' });
      const codes = new Set((await Promise.all(reads)).map((a) => `${a.status} ${a.code ?? ''}`));
      expect([...codes].filter((c) => !['404 CONVERSATION_NOT_FOUND', '503 DATABASE_BUSY'].includes(c))).toEqual([]);
    } finally {
      stop.done = true;
      await locking;
    }
    const busy = log.lines().find((line) => String(line.msg).startsWith('the database is busy'));
    expect(busy).toMatchObject({ pool: { max: 10, total: 10 } });
    expect(log.raw()).not.toContain('check DATABASE_URL');
  });
});
