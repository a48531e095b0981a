/**
 * Readiness when the check's own `select 1` gets no answer on its connection (one backend stopped): busy, and ready,
 * while the pool's other connections answer (every replica on a slow database would see the same; docs/operations.md);
 * stalled, and not ready, when none answers.
 */
import { drizzle } from 'drizzle-orm/node-postgres';
import type { Pool, PoolClient } from 'pg';
import { createPool } from '../../db/pool';
import { DATABASE_BUSY, DATABASE_STALLED, databaseReadiness } from '../../observability/dependency-checks';
import { readinessReply } from '../../observability/probe-server';
import { ADMIN_DATABASE_URL } from '../support/database';
import { apiWithDependenciesDown, type Document } from './openapi/document';
import { startTcpSwitch, type TcpSwitch } from '../support/tcp-switch';

jest.setTimeout(30_000);

/** `pool`'s statements on `client` (checked out), each given back and taken again, until `done`: the pool answers. */
async function answerMeanwhile(pool: Pool, client: PoolClient, done: { at: boolean }): Promise<void> {
  let current = client;
  while (!done.at) {
    await current.query('SELECT 1');
    current.release();
    current = await pool.connect();
  }
  current.release();
}

describe("the database readiness check on a pool whose check's connection stalls", () => {
  let pass: TcpSwitch;
  let pool: Pool;
  beforeEach(async () => {
    const target = new URL(ADMIN_DATABASE_URL);
    pass = await startTcpSwitch(Number(target.port || 5432), target.hostname);
    target.host = pass.address;
    pool = createPool(target.toString(), { max: 2 });
  });
  afterEach(async () => {
    // Closing the switch's sockets fails the stalled statement, which gives its client back for pool.end().
    await pass.stop();
    await pool.end();
  });

  /** The check, its connection (the pool's idle one) stalled, `answered` saying whether the pool answers meanwhile. */
  async function checkOnStalledConnection(answered: boolean): Promise<string> {
    const answering = await pool.connect();
    const stalling = await pool.connect();
    stalling.release();
    pass.stallLatest();
    const done = { at: false };
    // Kept checked out either way: the check takes the stalled idle connection.
    const meanwhile = answered ? answerMeanwhile(pool, answering, done) : Promise.resolve();
    const database = await databaseReadiness(drizzle(pool));
    done.at = true;
    await meanwhile;
    if (!answered) answering.release();
    return database;
  }

  it('is "busy", and ready, while the pool answers its other statements', async () => {
    const database = await checkOnStalledConnection(true);
    expect(database).toBe(DATABASE_BUSY);
    expect(readinessReply({ checks: { database } }).statusCode).toBe(200);
  });

  it('is "busy" in words that fit a check that had a connection: /readyz\'s warning and the OpenAPI', async () => {
    const database = await checkOnStalledConnection(true);
    const app = apiWithDependenciesDown(undefined, { readiness: { check: async () => ({ checks: { database } }) } });
    try {
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      const doc: Document = (await app.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
      const schema = doc.paths['/readyz']?.get?.responses['200']?.content?.['application/json']?.schema as {
        properties: { checks: { description: string } };
      };
      const said = [
        ready.json<{ warnings: { database: string } }>().warnings.database,
        schema.properties.checks.description,
      ];
      expect(ready.statusCode).toBe(200);
      for (const words of said) {
        expect(words).not.toContain('no pooled connection was free');
        expect(words).toContain('or no answer');
      }
    } finally {
      await app.close();
    }
  });

  it('is "stalled", not ready, when the pool answers nothing meanwhile', async () => {
    const database = await checkOnStalledConnection(false);
    expect(database).toBe(DATABASE_STALLED);
    expect(readinessReply({ checks: { database } }).statusCode).toBe(503);
  });
});
