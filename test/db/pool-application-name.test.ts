/**
 * Every pool names its sessions: pg_stat_activity showed application_name '' for all of them, and the migration lock's
 * "held by" message printed `application_name ""`. A name the operator gives is kept, in libpq's order: the connection
 * string's, then PGAPPNAME (which the default name overrode). The one-off clients (the SQL tools' login check, doctor's
 * pooling check) are named the same way (they had no name).
 */
import { Client, type Pool } from 'pg';
import { checkPooling } from '../../cli/doctor/pooling';
import { checkToolsLogin } from '../../observability/tools-login';
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

/** Opens a pool, and expects pg_stat_activity to name its session `name`. */
async function expectNamed(_who: string, open: () => Pool, name: string): Promise<void> {
  const pool = open();
  try {
    expect(await activityName(pool)).toBe(name);
  } finally {
    await pool.end();
  }
}

const env = loadEnv({});
const withName = (url: string, name: string) => `${url}${url.includes('?') ? '&' : '?'}application_name=${name}`;

test.each([
  ['the API', () => openApiDatabase(ADMIN_DATABASE_URL, env).pool, 'convengine-api'],
  ['the worker', () => openWorkerDatabase(ADMIN_DATABASE_URL, env).pool, 'convengine-worker'],
  ['the SQL tools', () => openToolsPool(ADMIN_DATABASE_URL, env), 'convengine-tools'],
  ['any other command', () => openDatabase(ADMIN_DATABASE_URL, { max: 1 }).pool, 'convengine'],
  ['a DATABASE_URL naming it', () => openApiDatabase(withName(ADMIN_DATABASE_URL, 'mine'), env).pool, 'mine'],
])('%s sessions are named in pg_stat_activity', expectNamed);

describe('PGAPPNAME', () => {
  const before = process.env.PGAPPNAME;
  beforeEach(() => {
    process.env.PGAPPNAME = 'operator-named';
  });
  afterEach(() => {
    if (before === undefined) delete process.env.PGAPPNAME;
    else process.env.PGAPPNAME = before;
  });

  test.each([
    ['the API', () => openApiDatabase(ADMIN_DATABASE_URL, env).pool, 'operator-named'],
    ['the SQL tools', () => openToolsPool(ADMIN_DATABASE_URL, env), 'operator-named'],
    ['a DATABASE_URL naming it too', () => openApiDatabase(withName(ADMIN_DATABASE_URL, 'mine'), env).pool, 'mine'],
  ])('names the sessions of %s', expectNamed);
});

describe('one-off clients', () => {
  /** The application_name each client connected during `run` sent in its startup packet. */
  async function namesSent(run: () => Promise<unknown>): Promise<unknown[]> {
    const connect = jest.spyOn(Client.prototype, 'connect');
    try {
      await run();
      return connect.mock.contexts.map(
        (client) => (client as { getStartupConf(): Record<string, unknown> }).getStartupConf().application_name
      );
    } finally {
      connect.mockRestore();
    }
  }

  test.each([
    [
      "the SQL tools' login check",
      () => checkToolsLogin({ url: ADMIN_DATABASE_URL, configured: true }),
      'convengine-tools',
    ],
    ["doctor's pooling check", () => checkPooling(ADMIN_DATABASE_URL), 'convengine-doctor'],
  ])('%s names its sessions', async (_who, run, name) => {
    const names = await namesSent(run);
    expect(names.length).toBeGreaterThan(0);
    expect(names).toEqual(names.map(() => name));
  });
});
