/**
 * Every pool names its sessions: pg_stat_activity showed application_name '' for all of them, and the migration lock's
 * "held by" message printed `application_name ""`. A name the connection string sets is the operator's, and kept.
 */
import type { Pool } from 'pg';
import { openApiDatabase } from '../../api/server';
import { loadEnv } from '../../config/env';
import { openDatabase } from '../../db/pool';
import { openToolsPool, openWorkerDatabase } from '../../worker/deps';
import { ADMIN_DATABASE_URL } from '../support/database';

/** What pg_stat_activity says of the session a query of `pool` runs on. */
async function activityName(pool: Pool): Promise<string> {
  const { rows } = await pool.query<{ name: string }>(
    'SELECT application_name AS name FROM pg_stat_activity WHERE pid = pg_backend_pid()'
  );
  return rows[0]?.name ?? '(no row)';
}

const env = loadEnv({});
const withName = (url: string, name: string) => `${url}${url.includes('?') ? '&' : '?'}application_name=${name}`;

test.each([
  ['the API', () => openApiDatabase(ADMIN_DATABASE_URL, env).pool, 'convengine-api'],
  ['the worker', () => openWorkerDatabase(ADMIN_DATABASE_URL, env).pool, 'convengine-worker'],
  ['the SQL tools', () => openToolsPool(ADMIN_DATABASE_URL, env), 'convengine-tools'],
  ['any other command', () => openDatabase(ADMIN_DATABASE_URL, { max: 1 }).pool, 'convengine'],
  ['a DATABASE_URL naming it', () => openApiDatabase(withName(ADMIN_DATABASE_URL, 'mine'), env).pool, 'mine'],
])('%s sessions are named in pg_stat_activity', async (_who, open, name) => {
  const pool = open();
  try {
    expect(await activityName(pool)).toBe(name);
  } finally {
    await pool.end();
  }
});
