/**
 * The API on a database that answers, but slower than its pool is asked: a request that gets no pooled connection in
 * time answers 503 DATABASE_BUSY with retry-after, and the log gives the pool's state rather than "check DATABASE_URL".
 * Before, the same load answered 503 DATABASE_UNREACHABLE while PostgreSQL was up the whole time. /readyz stays 200
 * meanwhile, naming the busy database: every replica on the database is as busy, and a 503 would take all of them out
 * of rotation at once.
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { startApiAndWorker, type ApiAndWorker } from '../support/api-and-worker';
import { DATABASE_BUSY_WARNING } from '../../observability/dependency-checks';
import { readyz } from './prerequisites-probes';

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

/** /readyz once it is 200 (the worker's first poll reaches the server a moment after it starts), within 15 s. */
async function untilReady(url: string): Promise<Awaited<ReturnType<typeof readyz>>> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const ready = await readyz(url);
    if (ready.status === 200 || Date.now() > deadline) return ready;
    await sleep(200);
  }
}

describe('the API on a saturated pool', () => {
  let stack: ApiAndWorker;
  beforeAll(async () => {
    stack = await startApiAndWorker({ name: 'database-busy' });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  /**
   * `probe`'s answer, asked while far more reads than the pool's 10 connections wait on the locked table (the ones
   * behind wait for a connection), and the reads' answers.
   */
  async function whileSaturated<T>(probe: () => Promise<T>): Promise<{ probed: T; reads: Answer[] }> {
    const stop = { done: false };
    const locking = lockInTurns(stack.db.url, stop);
    try {
      await sleep(100);
      const reads = Array.from({ length: 150 }, () => answer(`${stack.api.url}/api/v1/conversation/${randomUUID()}`));
      await sleep(300);
      const probed = await probe();
      return { probed, reads: await Promise.all(reads) };
    } finally {
      stop.done = true;
      await locking;
    }
  }

  /**
   * `probe` again while it answers as on an idle pool (`idle`), at most 20 times: on a loaded machine the reads may
   * not all wait in the pool yet when it is first asked, and its check then gets a connection.
   */
  async function untilBusy<T>(probe: () => Promise<T>, idle: (answer: T) => boolean): Promise<T> {
    let probed = await probe();
    for (let i = 1; i < 20 && idle(probed); i++) {
      await sleep(200);
      probed = await probe();
    }
    return probed;
  }

  it('answers 503 DATABASE_BUSY with retry-after, never DATABASE_UNREACHABLE, and logs how full the pool was', async () => {
    const send = () =>
      answer(`${stack.api.url}/api/v1/conversation/message`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'hello' }),
      });
    // Idle, the empty config refuses the message (CONFIG_EMPTY); saturated, the busy database does.
    const { probed: message, reads } = await whileSaturated(() => untilBusy(send, (a) => a.code === 'CONFIG_EMPTY'));
    expect(message).toEqual({ status: 503, retryAfter: '5', code: 'DATABASE_BUSY' });
    const codes = new Set(reads.map((a) => `${a.status} ${a.code ?? ''}`));
    expect([...codes].filter((c) => !['404 CONVERSATION_NOT_FOUND', '503 DATABASE_BUSY'].includes(c))).toEqual([]);
    const busy = stack.log.lines().find((line) => String(line.msg).startsWith('the database is busy'));
    expect(busy).toMatchObject({ pool: { max: 10, total: 10 } });
    expect(stack.log.raw()).not.toContain('check DATABASE_URL');
  });

  it('stays ready on /readyz (200) while it refuses requests DATABASE_BUSY, naming the busy database', async () => {
    const ready = await untilReady(stack.api.url);
    expect(ready).toMatchObject({ status: 200, checks: { database: 'ok', temporal: 'ok', worker: 'ok' } });
    // Its `select 1` waits behind the reads past the check's 2 s deadline while they get their answers.
    const probe = () => readyz(stack.api.url);
    const { probed: busy } = await whileSaturated(() => untilBusy(probe, (r) => r.checks?.database === 'ok'));
    expect(busy).toEqual({
      status: 200,
      checks: { ...ready.checks, database: 'busy' },
      // The config is not checked while the database is busy: the empty config's warning waits for the next check.
      warnings: { database: DATABASE_BUSY_WARNING },
    });
    expect(await readyz(stack.api.url)).toEqual(ready);
  });
});
